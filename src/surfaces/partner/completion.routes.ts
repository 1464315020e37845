import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { actorOf, webhookSecret } from '../../plugins/auth.js';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { isUuid } from '../../lib/ids.js';
import { createCompletionService } from '../../modules/provisioning/completion.service.js';
import {
  AnonymousCompleteBody,
  AnonymousCompleteResponse,
  CompleteBody,
  CompleteReplayResponse,
  Detail,
  ProvisioningResponse,
} from '../../modules/provisioning/provisioning.schemas.js';

const Gone = z
  .object({ detail: z.object({ code: z.string(), detail: z.string() }) })
  .describe('Session expired or cancelled: `detail` is an object (`Session expired` / `Session cancelled`)');
const IdempotencyHeader = z.looseObject({
  'idempotency-key': z.string().max(255).optional().describe('Optional; the same key and body within 24 h replays the first answer'),
});

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

const ROUTING =
  "The building's line type decides, failing closed: first-line with a port (the session's location_hash) → ACTIVE at once, the " +
  'port provisioned asynchronously (`route: provision`, `job_id`; webhooks subscription.activated then provisioning.completed or ' +
  'provisioning.failed). First-line with only building and suite, second-line, third-line or unclassified → PENDING_INSTALL with ' +
  'an install job (`route: install`, `job_id: null`, webhook subscription.pending_install; third-line subscribers get a booking ' +
  'link by email, held until `move_in_date` is inside the booking window; second-line gets a CPE shipment). Neither port nor unit → ' +
  '422. A unit already held by a pending, pending-install, active or suspended subscription → 409 `Unit already has a pending or ' +
  'active subscription`. The subscriber is reused by email within the provider, else created (with a login without password, ' +
  'activated later). CKO-03 subscriptions are billed by the provider (service_billed false): this service creates no invoices.';

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
      preValidation: [gateSession(service), webhookSecret()],
      preHandler: idempotent,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'completeExternalCheckout',
        tags: ['checkout'],
        summary: 'Complete a checkout: create the subscription (CKO-03)',
        description:
          "Called by the provider's hosted checkout page after it took the payment. Session-based (recommended): send `session_id` " +
          'and `subscriber`; the session is the source of truth for provider, plan, location/unit, building and MAC address, so ' +
          '`location_hash`, `unit_id`, `plan_version_id` and `mac_address` in the body are ignored when they disagree, and ' +
          "`delivery_mode` is ignored. The session must belong to the secret's provider (another provider's session answers 404 like an unknown one). An expired or cancelled session " +
          'answers 410 (checked before the secret). A session completed before answers 200 `{subscription_id, subscriber_id, message}` ' +
          '(idempotent replay, no job_id). Explicit-fields (legacy, no session_id): `plan_version_id`, `delivery_mode` `direct` ' +
          "(the default) or `home_drop` (with unit_id; a unit_id without delivery_mode answers 422 naming delivery_mode), `location_hash` / `unit_id`, optional `mac_address`; the building's " +
          'line type still decides and a mismatch (direct on a building that is not first-line or on a location without a switch port) ' +
          'answers 422; a repeat for the same (subscriber email, plan version, location) answers 200 like a replay. New: 201. ' +
          ROUTING,
        security: [{ webhookSecret: [] }],
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
      const ctx = { providerId: request.webhookProvider!.providerId, actor: actorOf(request), requestId: String(request.id) };
      const out = await service.complete(ctx, request.body);
      return out.created ? reply.code(201).send(out.result) : reply.code(200).send(out.replay);
    },
  );

  app.post(
    '/external-checkout/anonymous-complete',
    {
      preValidation: [gateSession(service), webhookSecret()],
      preHandler: idempotent,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'completeExternalCheckoutAnonymous',
        tags: ['checkout'],
        summary: 'Complete a checkout of a shopper without an account, idempotent on your own subscription id',
        description:
          'The anonymous variant of POST /external-checkout/complete, authenticated the same way (`X-Webhook-Secret`, the checkout ' +
          'secret: it is a checkout-page call like complete). Same body (session-based or explicit-fields) plus ' +
          '`external_subscription_id`, your own id of the subscription. Idempotent: a repeat with an `external_subscription_id` that ' +
          'already names a subscription of your provider, or with a `session_id` that is already completed, answers 200 with the ' +
          'existing subscription and `idempotent_replay: true` (no route, no job_id); concurrent repeats create one subscription. ' +
          'New: 201 with `idempotent_replay: false`. ' +
          ROUTING,
        security: [{ webhookSecret: [] }],
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
      const ctx = { providerId: request.webhookProvider!.providerId, actor: actorOf(request), requestId: String(request.id) };
      const out = await service.anonymousComplete(ctx, request.body);
      return out.created
        ? reply.code(201).send({ ...out.result, idempotent_replay: false })
        : reply.code(200).send({ ...out.replay, idempotent_replay: true });
    },
  );
};
