import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

// Stripe's events, raw body (the signature covers the exact bytes): this plugin alone parses JSON as a Buffer.
export const stripeEventRoutes: FastifyPluginAsyncZod = async (app) => {
  const events = app.services.cardEvents;
  // The app's JSON parser (depth scan, then parse) is replaced in this scope only: the signature needs the bytes.
  if (app.hasContentTypeParser('application/json')) app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 512 * 1024 }, (_req, body, done) => done(null, body));

  app.post(
    '/webhooks/stripe',
    {
      schema: {
        operationId: 'receiveStripeEvent',
        tags: ['payment'],
        summary: "Stripe's events (the card processor calls this, not a partner)",
        description: PARTNER_DESCRIPTIONS.receiveStripeEvent,
        headers: z.object({ 'stripe-signature': z.string().max(2000).optional().describe('Set by Stripe: t=<timestamp>,v1=<HMAC>') }),
        body: z.any().describe('The event, exactly as Stripe sent it (JSON)'),
        response: {
          200: z.object({ received: z.literal(true), outcome: z.enum(['applied', 'duplicate', 'ignored']) }),
          400: Detail.describe('The signature does not verify, or no signature'),
          502: Detail,
          503: Detail.describe('dependency_unconfigured: no STRIPE_WEBHOOK_SECRET'),
        },
      },
    },
    (request) => events.receive(request.body as Buffer, request.headers['stripe-signature']),
  );
};
