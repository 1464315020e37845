// The rollback link's page (plain HTML, no script): what the link undoes with one button, or the
// outcome. The button posts to the same address; opening the page changes nothing.
import { ROLLBACK_PATH } from '../../mail/links.js';
import type { RollbackState, RollbackView } from '../../modules/rollback/index.js';
import { escapeHtml, renderPage } from './layout.js';

/** The HTTP status of each page state. */
export const ROLLBACK_STATUS: Record<RollbackState, number> = {
  ready: 200,
  done: 200,
  invalid: 404,
  used: 410,
  expired: 410,
  moved_on: 409,
  conflict: 409,
  not_possible: 409,
};

const TEXT: Record<RollbackState, { title: string; message: string }> = {
  ready: { title: 'Undo this change?', message: 'Nothing has been undone yet. Press the button to undo the change.' },
  done: { title: 'Change undone', message: 'The change was undone.' },
  invalid: { title: 'Link not valid', message: 'This link is not valid. Check that you opened the whole address from the email.' },
  used: { title: 'Link already used', message: 'This link was already used; a link undoes a change only once.' },
  expired: { title: 'Link expired', message: 'This link has expired: it works for 24 hours after the change. Please contact support.' },
  moved_on: {
    title: 'Cannot undo',
    message: 'This change cannot be undone from the link any more: the account was changed again since. Please contact support.',
  },
  conflict: { title: 'Cannot undo', message: 'The change could not be undone. Please contact support.' },
  not_possible: { title: 'Cannot undo', message: 'The change cannot be undone now. Please contact support.' },
};

export function renderRollbackPage(token: string, v: RollbackView): string {
  const t = TEXT[v.state];
  const error = ROLLBACK_STATUS[v.state] >= 400;
  const lines = [v.summary, v.reason ?? t.message].filter(Boolean) as string[];
  const body = lines
    .map(
      (l, i) =>
        `<p${i === lines.length - 1 ? ` role="${error ? 'alert' : 'status'}" class="${error ? 'error' : 'ok'}"` : ''}>${escapeHtml(l)}</p>`,
    )
    .join('');
  const form =
    v.state === 'ready'
      ? `<form method="post" action="${ROLLBACK_PATH}/${encodeURIComponent(token)}"><input type="hidden" name="confirm" value="yes"><button type="submit">Undo the change</button></form>`
      : '';
  return renderPage({ title: t.title, main: `<h1>${escapeHtml(t.title)}</h1>${body}${form}` });
}
