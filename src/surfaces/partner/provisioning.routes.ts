import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, bearer, DASHBOARD_ROLES, partnerApiKey } from '../../plugins/auth.js';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { provisionBulk } from '../../modules/provisioning/provisioning.bulk.js';
import {
  BulkBody,
  BulkResponse,
  ConfirmInstallBody,
  ConfirmInstallResponse,
  Detail,
  JobParams,
  JobResponse,
  ProviderInitiatedBody,
  ProvisioningResponse,
} from '../../modules/provisioning/provisioning.schemas.js';

const AUTH_ERRORS = {
  401: Detail.describe('X-API-Key missing: `Not authenticated`'),
  403: Detail.describe('Wrong key or disabled account (`Invalid credentials`), or the key lacks the provisioning:write scope'),
};
const RateLimited = z
  .object({ statusCode: z.literal(429), error: z.string(), message: z.string() })
  .describe('Rate limit exceeded (the standard rate-limit body, with Retry-After); back off');
const IdempotencyHeader = z.looseObject({
  'idempotency-key': z.string().max(255).optional().describe('Optional; the same key and body within 24 h replays the first answer'),
});

const ROUTING =
  "Routing by the building's line type, failing closed: a first-line building with a port (location_hash of a location that " +
  "has a switch port) is provisioned unattended: the subscription is ACTIVE at once, the port (VLAN, the plan's bandwidth, " +
  'optional MAC binding) is provisioned by an asynchronous job (`route: provision`, `job_id`; webhooks subscription.activated ' +
  'then provisioning.completed or provisioning.failed). A unit (unit_id) of any building, including a first-line building ' +
  'ordered by suite, takes the install path: PENDING_INSTALL, an install job (a CPE shipment for second-line buildings, a ' +
  'technician visit otherwise; third-line subscribers are emailed a booking link, held until `move_in_date` is inside the ' +
  "booking window of the building's region; windows are in the building's local time zone), `route: install`, `job_id: null`, webhook subscription.pending_install. `delivery_mode` " +
  'direct on a building that is not first-line or on a location without a switch port answers 422; neither a port nor a ' +
  'unit answers 422; a unit (or port) already held by a pending, pending-install, active or suspended subscription answers ' +
  '409 `Unit already has a pending or active subscription`. Branch on `route`, never on job_id presence. ' +
  'The subscriber is reused by email within your provider, else created (with a customer number and a login without ' +
  'password, activated later). CKO-04 subscriptions are billed by you: this service creates no invoices or payments for them.';

export const provisioningRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.provisioning;
  const confirm = app.services.confirmInstall;
  const auth = partnerApiKey('provisioning:write');

  app.post(
    '/provisioning/provider-initiated',
    {
      onRequest: auth,
      preHandler: idempotent,
      config: { rateLimit: limit('provisioning.provider_initiated') },
      schema: {
        operationId: 'provisionProviderInitiated',
        tags: ['provisioning'],
        summary: 'Provision a subscriber from your own storefront (CKO-04)',
        description:
          'Creates the subscriber (or reuses it by email) and the subscription for `plan_version_id` at a port (`location_hash`, ' +
          'delivery_mode direct, the default) or a unit (`unit_id` with delivery_mode home_drop: a unit_id without delivery_mode answers ' +
          '422 naming delivery_mode). ' +
          ROUTING +
          ' ' +
          'Idempotent per (subscriber email, plan version, location): a repeat answers 200 with the existing subscription and ' +
          '`Subscription already exists (idempotent replay)`, or `Provisioning already in progress` while its port job is queued ' +
          'or running; the same subscriber and plan at another location provisions a second line (201). Concurrent duplicates ' +
          'create one subscription. 120 requests per minute per key.',
        security: [{ apiKey: [] }],
        headers: IdempotencyHeader,
        body: ProviderInitiatedBody,
        response: {
          201: ProvisioningResponse.describe('Created'),
          200: ProvisioningResponse.describe('Idempotent replay: the subscription already exists'),
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH_ERRORS,
          409: Detail.describe('Unit (or port) already has a pending or active subscription; or the same Idempotency-Key is still running'),
          422: Detail.describe(
            'Invalid body, unknown plan/location/unit, building out of coverage, delivery_mode mismatch with the line type, or neither port nor unit',
          ),
          429: RateLimited.describe('Rate limit exceeded (120 per minute per key); back off for Retry-After seconds'),
        },
      },
    },
    async (request, reply) => {
      const ctx = { providerId: request.apiKey!.providerId, actor: actorOf(request), requestId: String(request.id) };
      const { created, result } = await service.provisionExplicit(ctx, request.body, 'provider_initiated');
      return reply.code(created ? 201 : 200).send(result);
    },
  );

  app.post(
    '/provisioning/bulk',
    {
      onRequest: auth,
      preHandler: idempotent,
      config: { rateLimit: limit('provisioning.bulk') },
      schema: {
        operationId: 'provisionBulk',
        tags: ['provisioning'],
        summary: 'Provision up to 500 subscribers in one call',
        description:
          'Each item is a provider-initiated body and is handled exactly like POST /provisioning/provider-initiated, on its own ' +
          '(own transaction, in order): one refused item never affects another. The answer is 200 with one result per item: ' +
          '`created` (new subscription, with route, subscription_id and job_id), `replayed` (it already existed: idempotent per ' +
          '(subscriber email, plan version, location), also within the batch) or `error` with the reason (the 4xx detail a single ' +
          'request would have answered, e.g. `subscriber.email: Invalid email address`). Resend only the failed items. ' +
          '30 requests per minute per key.',
        security: [{ apiKey: [] }],
        headers: IdempotencyHeader,
        body: BulkBody,
        response: {
          200: BulkResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH_ERRORS,
          409: Detail.describe('The same Idempotency-Key is still running'),
          422: Detail.describe('`items` missing, empty or longer than 500'),
          429: RateLimited,
        },
      },
    },
    async (request) => {
      const ctx = { providerId: request.apiKey!.providerId, actor: actorOf(request), requestId: String(request.id) };
      return { results: await provisionBulk(service, ctx, request.body.items, request.log) };
    },
  );

  app.get(
    '/provisioning/jobs/:job_id',
    {
      onRequest: auth,
      config: { rateLimit: limit('provisioning.jobs') },
      schema: {
        operationId: 'getProvisioningJob',
        tags: ['provisioning'],
        summary: 'Poll a port-provisioning job',
        description:
          'The state of a job_id from a provisioning response: `queued` (waiting, also between retries: see attempts and error), ' +
          '`running`, `succeeded` (the port is provisioned; provisioning.completed was sent) or `failed` (retries exhausted; ' +
          '`error` says why and provisioning.failed was sent; the subscription stays ACTIVE and the operator re-provisions the port). ' +
          "Only jobs of the key's provider: any other id answers 404. 300 requests per minute per key: poll every few seconds, " +
          'or wait for the webhook.',
        security: [{ apiKey: [] }],
        params: JobParams,
        response: {
          200: JobResponse,
          ...AUTH_ERRORS,
          404: Detail.describe('No such job for this provider'),
          422: Detail.describe('job_id is not a UUID'),
        },
      },
    },
    async (request) => service.getJob(request.apiKey!.providerId, request.params.job_id),
  );

  app.post(
    '/provisioning/confirm-install',
    {
      onRequest: bearer(DASHBOARD_ROLES),
      preHandler: idempotent,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'confirmInstall',
        tags: ['provisioning'],
        summary: 'Staff: confirm an installation (dashboard login only)',
        description:
          'Provider staff (dashboard JWT in `Authorization: Bearer`) confirm that the installation of an own PENDING_INSTALL ' +
          "subscription is done. The install job must be SHIPPED (else 409) and is COMPLETED; the unit's port is attached. A " +
          'subscription the provider bills becomes ACTIVE at once and its port is provisioned by a job (`job_id`); one this service ' +
          'bills gets its first invoice (the installation month pro rata) and the saved card is charged right after the answer, else ' +
          'the subscriber is emailed a payment link; it becomes ACTIVE, and its port is provisioned, when that payment succeeds ' +
          '(`job_id` null until then; `status` and `payment` say which). ' +
          'No webhook fires: poll the session status or the subscription. Not callable with a partner API key.',
        security: [{ bearer: [] }],
        headers: IdempotencyHeader,
        body: ConfirmInstallBody,
        response: {
          200: ConfirmInstallResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          401: Detail.describe('No bearer token: `Not authenticated`'),
          403: Detail.describe('Invalid token, or not a dashboard account'),
          404: Detail.describe('Subscription not found for your provider'),
          409: Detail.describe(
            'Subscription not PENDING_INSTALL, install job not SHIPPED, no switch port registered for the unit, or the port still held by another subscription',
          ),
          422: Detail.describe('subscription_id is not a UUID'),
        },
      },
    },
    async (request) =>
      confirm.confirm(request.user!, request.body.subscription_id, { actor: actorOf(request), requestId: String(request.id) }),
  );
};
