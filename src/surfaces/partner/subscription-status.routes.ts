import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf, webhookSecret, webhookProviderOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { SubscriptionStatusBody, SubscriptionStatusResponse } from '../../modules/subscription-status/index.js';
import { ReadableDetail as Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

export const subscriptionStatusRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.subscriptionStatus;

  app.post(
    '/external-checkout/subscription-status',
    {
      onRequest: webhookSecret({ scope: 'provisioning:write' }),
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'changeSubscriptionStatus',
        tags: ['subscriptions'],
        summary: 'Suspend or restore a subscription (provider-owned billing)',
        description: PARTNER_DESCRIPTIONS.changeSubscriptionStatus,
        body: SubscriptionStatusBody,
        response: { 200: SubscriptionStatusResponse, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail },
      },
    },
    async (request) =>
      service.change(
        webhookProviderOf(request).providerId,
        request.body.subscription_id,
        request.body.action,
        actorOf(request),
        String(request.id),
      ),
  );
};
