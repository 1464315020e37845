import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { actorOf, webhookSecret, webhookProviderOf } from '../../plugins/auth.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { isUuid } from '../../lib/ids.js';
import { createCompletionService } from '../../modules/checkout/index.js';
import {
  AnonymousCompleteBody,
  AnonymousCompleteResponse,
  CompleteBody,
  CompleteReplayResponse,
  ProvisioningResponse,
} from '../../modules/provisioning/index.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Gone = z
  .object({ detail: z.object({ code: z.string(), detail: z.string() }) })
  .describe('Session expired or cancelled: `detail` is an object (`Session expired` / `Session cancelled`)');
const IdempotencyHeader = idempotencyKeyHeader('Optional; the same key and body within 24 h replays the first answer');

const ERRORS = {
  400: Detail.describe('Malformed Idempotency-Key'),
  401: Detail.describe('X-Webhook-Secret missing: `Not authenticated`'),
  403: Detail.describe('Wrong secret: `Invalid credentials`'),
  404: Detail.describe('Unknown session_id, or a session of another provider (answered alike): `Checkout session not found`'),
  409: Detail.describe('Unit (or port) already has a pending or active subscription; or the same Idempotency-Key is still running'),
  410: Gone,
  422: Detail.describe(
    'Invalid body; explicit-fields: plan_version_id missing, unknown plan/location/unit, delivery_mode mismatch with the line type; neither port nor unit',
  ),
};

/** The session's 410 (and its expiry mark) before authentication, as section 5 of the partner document orders. */
function gateSession(service: ReturnType<typeof createCompletionService>) {
  return async (request: FastifyRequest) => {
    const id = (request.body as { session_id?: unknown } | null)?.session_id;
    if (typeof id === 'string' && isUuid(id)) await service.gate(id);
  };
}

export const completionRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.completion;

  app.post(
    '/external-checkout/complete',
    {
      preValidation: [gateSession(service), webhookSecret({ scope: 'provisioning:write' })],
      preHandler: idempotent,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'completeExternalCheckout',
        tags: ['checkout'],
        summary: 'Complete a checkout: create the subscription (CKO-03)',
        description: PARTNER_DESCRIPTIONS.completeExternalCheckout,
        headers: IdempotencyHeader,
        body: CompleteBody,
        response: {
          201: ProvisioningResponse.describe('Subscription created'),
          200: CompleteReplayResponse,
          ...ERRORS,
        },
      },
    },
    async (request, reply) => {
      const ctx = { providerId: webhookProviderOf(request).providerId, actor: actorOf(request), requestId: String(request.id) };
      const out = await service.complete(ctx, request.body);
      return out.created ? reply.code(201).send(out.result) : reply.code(200).send(out.replay);
    },
  );

  app.post(
    '/external-checkout/anonymous-complete',
    {
      preValidation: [gateSession(service), webhookSecret({ scope: 'provisioning:write' })],
      preHandler: idempotent,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'completeExternalCheckoutAnonymous',
        tags: ['checkout'],
        summary: 'Complete a checkout of a shopper without an account, idempotent on your own subscription id',
        description: PARTNER_DESCRIPTIONS.completeExternalCheckoutAnonymous,
        headers: IdempotencyHeader,
        body: AnonymousCompleteBody,
        response: {
          201: AnonymousCompleteResponse.describe('Subscription created'),
          200: AnonymousCompleteResponse.describe('Idempotent replay (`idempotent_replay: true`)'),
          ...ERRORS,
        },
      },
    },
    async (request, reply) => {
      const ctx = { providerId: webhookProviderOf(request).providerId, actor: actorOf(request), requestId: String(request.id) };
      const out = await service.anonymousComplete(ctx, request.body);
      return out.created
        ? reply.code(201).send({ ...out.result, idempotent_replay: false })
        : reply.code(200).send({ ...out.replay, idempotent_replay: true });
    },
  );
};
