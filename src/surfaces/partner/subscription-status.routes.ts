import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf, webhookSecret } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { SubscriptionStatusBody, SubscriptionStatusResponse } from '../../modules/subscription-status/subscription-status.schemas.js';
import { Detail } from '../../modules/serviceability/serviceability.schemas.js';

export const subscriptionStatusRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.subscriptionStatus;

  app.post(
    '/external-checkout/subscription-status',
    {
      onRequest: webhookSecret(),
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'changeSubscriptionStatus',
        tags: ['subscriptions'],
        summary: 'Suspend or restore a subscription (provider-owned billing)',
        description:
          '`X-Webhook-Secret`. For providers that own billing. `suspend` applies only to an ACTIVE subscription: it becomes SUSPENDED ' +
          'and its port is switched to the captive portal; if the switch call fails the subscription is still SUSPENDED, with ' +
          '`port_changed: false` and a short `port_error`. `restore` applies to a SUSPENDED subscription: it becomes ACTIVE and port ' +
          'provisioning is re-queued (`port_changed: false`, applied asynchronously). `restore` on an ACTIVE subscription is an ' +
          'idempotent 200 saying it is already ACTIVE. Any other state answers 409. A subscription this service bills answers 409 ' +
          'for both actions (its suspension follows non-payment and a payment lifts it); an unknown subscription or one of another ' +
          'provider answers 404. No webhook fires: the response is the confirmation. There are no billing effects.',
        security: [{ webhookSecret: [] }],
        body: SubscriptionStatusBody,
        response: { 200: SubscriptionStatusResponse, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 422: Detail },
      },
    },
    async (request) =>
      service.change(
        request.webhookProvider!.providerId,
        request.body.subscription_id,
        request.body.action,
        actorOf(request),
        String(request.id),
      ),
  );
};
