import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';
import { ROLLBACK_STATUS, renderRollbackPage } from '../../modules/rollback/rollback.page.js';

const Params = z.object({ token: z.string().min(1).max(300).describe('The token of the emailed rollback link') });
const Page = z.string().describe('text/html page');

const RULES =
  "The rollback link of a change-confirmation mail, sent after a support agent (the /agent surface) changed the customer's " +
  'contact details or plan (no other credential). It works once, for 24 hours after the change, and only while the account still ' +
  'stands as the change left it: 404 unknown link, 410 used or expired, 409 changed again since (or the subscription can no longer ' +
  "change plan, or a restored email is now another account's).";

export const rollbackRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.rollback;

  // The page's form posts application/x-www-form-urlencoded (only inside this plugin); its fields are not used.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const page = { config: { rateLimit: limit('rollback.page') }, helmet: pageHelmet(), onRequest: noStore };

  app.get(
    '/rollback/:token',
    {
      ...page,
      schema: {
        operationId: 'rollbackPage',
        tags: ['rollback'],
        summary: 'Rollback page of a change-confirmation mail (HTML)',
        description: `${RULES} Shows what the link would undo and a button that posts to the same address; opening it changes nothing (mail scanners open links).`,
        params: Params,
        produces: ['text/html'],
        response: Object.fromEntries([200, 404, 409, 410].map((s) => [s, Page])),
      },
    },
    async (request, reply) => {
      const v = await service.view(request.params.token);
      return reply.code(ROLLBACK_STATUS[v.state]).type('text/html; charset=utf-8').send(renderRollbackPage(request.params.token, v));
    },
  );

  app.post(
    '/rollback/:token',
    {
      ...page,
      schema: {
        operationId: 'rollbackChange',
        tags: ['rollback'],
        summary: 'Undo the change of a rollback link (form post)',
        description:
          `${RULES} Restores the contact fields the change set (only while they still hold the values it set) or returns to the previous ` +
          'plan: a plan change of its own (source `rollback`), exempt from the one-change-per-day rule, whose one-time adjustment the ' +
          "billing engine writes like any plan change (a credit or an invoice line that reverses this month's amount). Audited. Answers an HTML page.",
        params: Params,
        consumes: ['application/x-www-form-urlencoded'],
        produces: ['text/html'],
        response: Object.fromEntries([200, 404, 409, 410].map((s) => [s, Page])),
      },
    },
    async (request, reply) => {
      const v = await service.perform(request.params.token, String(request.id));
      return reply.code(ROLLBACK_STATUS[v.state]).type('text/html; charset=utf-8').send(renderRollbackPage(request.params.token, v));
    },
  );
};
