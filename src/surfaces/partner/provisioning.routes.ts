import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RateLimited } from '../../plugins/route-contract.js';
import { actorOf, bearer, DASHBOARD_ROLES, partnerApiKey, apiKeyOf, userOf } from '../../plugins/auth.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { provisionBulk } from '../../modules/provisioning/index.js';
import {
  BulkBody,
  BulkResponse,
  ConfirmInstallBody,
  ConfirmInstallResponse,
  JobParams,
  JobResponse,
  ProviderInitiatedBody,
  ProvisioningResponse,
} from '../../modules/provisioning/index.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const AUTH_ERRORS = {
  401: Detail.describe('X-API-Key missing: `Not authenticated`'),
  403: Detail.describe('Wrong key or disabled account (`Invalid credentials`), or the key lacks the provisioning:write scope'),
};
const BackOff = RateLimited.describe('Rate limit exceeded (the standard rate-limit body, with Retry-After); back off');
const IdempotencyHeader = idempotencyKeyHeader('Optional; the same key and body within 24 h replays the first answer');

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
        description: PARTNER_DESCRIPTIONS.provisionProviderInitiated,
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
      const ctx = { providerId: apiKeyOf(request).providerId, actor: actorOf(request), requestId: String(request.id) };
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
      // Up to 500 provider-initiated bodies of a few KB each.
      bodyLimit: 1024 * 1024,
      schema: {
        operationId: 'provisionBulk',
        tags: ['provisioning'],
        summary: 'Provision up to 500 subscribers in one call',
        description: PARTNER_DESCRIPTIONS.provisionBulk,
        headers: IdempotencyHeader,
        body: BulkBody,
        response: {
          200: BulkResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH_ERRORS,
          409: Detail.describe('The same Idempotency-Key is still running'),
          422: Detail.describe('`items` missing, empty or longer than 500'),
          429: BackOff,
        },
      },
    },
    async (request) => {
      const ctx = { providerId: apiKeyOf(request).providerId, actor: actorOf(request), requestId: String(request.id) };
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
        description: PARTNER_DESCRIPTIONS.getProvisioningJob,
        params: JobParams,
        response: {
          200: JobResponse,
          ...AUTH_ERRORS,
          404: Detail.describe('No such job for this provider'),
          422: Detail.describe('job_id is not a UUID'),
        },
      },
    },
    async (request) => service.getJob(apiKeyOf(request).providerId, request.params.job_id),
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
        description: PARTNER_DESCRIPTIONS.confirmInstall,
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
      confirm.confirm(userOf(request), request.body.subscription_id, { actor: actorOf(request), requestId: String(request.id) }),
  );
};
