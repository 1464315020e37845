import type { ExampleMap } from '../../../plugins/openapi-examples.js';

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;

const REFUSALS = {
  404: [
    {
      name: 'link_not_valid',
      detail: page('Link not valid', 'This link is not valid. Check that you opened the whole address from the email.'),
    },
  ],
  409: [
    {
      name: 'changed_since',
      detail: page('Cannot undo', 'The account was changed again since this link was sent. Please contact support.'),
    },
  ],
  410: [
    { name: 'link_used', detail: page('Link already used', 'This link was already used; a link undoes a change only once.') },
    {
      name: 'link_expired',
      detail: page('Link expired', 'This link has expired: it works for 24 hours after the change. Please contact support.'),
    },
  ],
};

/** The rollback link's pages (GET shows, POST undoes), in the demo's words. */
export const ROLLBACK_EXAMPLES: ExampleMap = {
  // GET /rollback/{token}
  rollbackPage: {
    200: page('Undo this change?', 'Plan change from Fibre Fast 500 to Fibre Faster 1000 on 2026-11-16. Nothing has been undone yet.'),
    ...REFUSALS,
  },
  // POST /rollback/{token}
  rollbackChange: {
    200: page('Change undone', 'Your plan is Fibre Fast 500 again; this month is corrected on your next invoice.'),
    ...REFUSALS,
  },
};
