import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';
import { ROLLBACK_STATUS, renderRollbackPage } from '../pages/rollback.page.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Params = z.object({ token: z.string().min(1).max(300).describe('The token of the emailed rollback link') });
const Page = z.string().describe('text/html page');

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
        description: PARTNER_DESCRIPTIONS.rollbackPage,
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
        description: PARTNER_DESCRIPTIONS.rollbackChange,
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
