import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf, apiKeyOf } from '../../plugins/auth.js';
import { RecentChanges, ResendConfirmationResponse } from '../../modules/rollback/index.js';
import { CustomerParams } from './common.schemas.js';
import { requireOwnedCustomer, requireVerifiedSession, agentCustomerOf } from './verified-session.js';

/** The undo the agent can see (issue 31 §3): recent changes with their undo state, and a resend of the mail. */
export const recentChangesRoutes: FastifyPluginAsyncZod = async (app) => {
  const recent = app.services.recentChanges;

  app.get(
    '/customers/:customerId/recent-changes',
    {
      config: { rateLimit: limit('agent.read') },
      preValidation: [requireOwnedCustomer],
      preHandler: [requireVerifiedSession],
      schema: {
        operationId: 'listRecentChanges',
        tags: ['read'],
        summary: 'Recent changes and whether each can still be undone (verified)',
        params: CustomerParams,
        response: { 200: RecentChanges },
      },
    },
    async (request) => recent.list(apiKeyOf(request).providerId, agentCustomerOf(request).id),
  );

  app.post(
    '/customers/:customerId/recent-changes/:changeId/resend-confirmation',
    {
      config: { rateLimit: limit('agent.write') },
      preValidation: [requireOwnedCustomer],
      preHandler: [requireVerifiedSession],
      schema: {
        operationId: 'resendChangeConfirmation',
        tags: ['change'],
        summary: 'Email the change confirmation with its undo link again (verified)',
        params: CustomerParams.extend({
          changeId: z.uuid().describe('The change_id from GET /agent/customers/{customerId}/recent-changes'),
        }),
        response: {
          202: ResendConfirmationResponse,
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          await recent.resend(
            { ...actorOf(request), providerId: apiKeyOf(request).providerId, requestId: String(request.id) },
            agentCustomerOf(request).id,
            request.params.changeId,
          ),
        ),
  );
};
