import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { platformAdmin } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { ApiKeyView, FEATURE_VALUES, IssuedApiKey, IssueKeyInput, RotateKeyInput } from '../../modules/auth/index.js';
import { PlanCreateInput, PlanVersionInput, PlanView } from '../../modules/plans/index.js';
import { Detail } from './errors.schemas.js';
import { ADMIN_TAG, ProviderParam } from './admin-providers.routes.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const KeyParam = z.object({ key_id: z.uuid() });

/** /api/v1/admin: a provider's API keys and plans (registered in internalSurface). */
export const adminCatalogueRoutes: FastifyPluginAsyncZod = async (app) => {
  const { providerAdmin, apiKeys, plans } = app.services;
  const auth = platformAdmin();
  const write = { onRequest: auth, config: { rateLimit: limit('internal.write') } };
  const read = { onRequest: auth, config: { rateLimit: limit('internal.read') } };

  app.post(
    '/admin/providers/:provider/api-keys',
    {
      ...write,
      schema: {
        operationId: 'adminIssueApiKey',
        tags: [ADMIN_TAG],
        summary: 'Issue an API key',
        description: PARTNER_DESCRIPTIONS.adminIssueApiKey,
        params: ProviderParam,
        body: IssueKeyInput,
        response: { 201: IssuedApiKey, 404: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      const p = await providerAdmin.resolve(request.params.provider);
      return reply.code(201).send(await apiKeys.issue(p.id, request.body));
    },
  );

  app.get(
    '/admin/providers/:provider/api-keys',
    {
      ...read,
      schema: {
        operationId: 'adminListApiKeys',
        tags: [ADMIN_TAG],
        summary: "List a provider's API keys",
        description: PARTNER_DESCRIPTIONS.adminListApiKeys,
        params: ProviderParam,
        response: { 200: z.array(ApiKeyView), 404: Detail, 422: Detail },
      },
    },
    async (request) => apiKeys.list((await providerAdmin.resolve(request.params.provider)).id),
  );

  app.post(
    '/admin/api-keys/:key_id/rotate',
    {
      ...write,
      schema: {
        operationId: 'adminRotateApiKey',
        tags: [ADMIN_TAG],
        summary: 'Rotate an API key',
        description: PARTNER_DESCRIPTIONS.adminRotateApiKey,
        params: KeyParam,
        body: RotateKeyInput,
        response: { 200: z.object({ key: IssuedApiKey, previous: ApiKeyView }), 404: Detail, 409: Detail, 422: Detail },
      },
    },
    async (request) => apiKeys.rotate(request.params.key_id, { overlapHours: request.body.overlap_hours }),
  );

  app.post(
    '/admin/api-keys/:key_id/revoke',
    {
      ...write,
      schema: {
        operationId: 'adminRevokeApiKey',
        tags: [ADMIN_TAG],
        summary: 'Revoke an API key',
        description: PARTNER_DESCRIPTIONS.adminRevokeApiKey,
        params: KeyParam,
        response: { 200: ApiKeyView, 404: Detail, 422: Detail },
      },
    },
    async (request) => apiKeys.revoke(request.params.key_id),
  );

  app.put(
    '/admin/api-keys/:key_id/scopes',
    {
      ...write,
      schema: {
        operationId: 'adminSetApiKeyScopes',
        tags: [ADMIN_TAG],
        summary: "Set an API key's scopes",
        description: PARTNER_DESCRIPTIONS.adminSetApiKeyScopes,
        params: KeyParam,
        body: z.object({ features: z.array(z.enum(FEATURE_VALUES)).max(3) }),
        response: { 200: ApiKeyView, 404: Detail, 422: Detail },
      },
    },
    async (request) => apiKeys.setFeatures(request.params.key_id, request.body.features),
  );

  app.post(
    '/admin/providers/:provider/plans',
    {
      ...write,
      schema: {
        operationId: 'adminCreatePlan',
        tags: [ADMIN_TAG],
        summary: 'Create a plan',
        description: PARTNER_DESCRIPTIONS.adminCreatePlan,
        params: ProviderParam,
        body: PlanCreateInput,
        response: { 201: PlanView, 404: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      const p = await providerAdmin.resolve(request.params.provider);
      return reply.code(201).send(await plans.create(p, request.body));
    },
  );

  app.get(
    '/admin/providers/:provider/plans',
    {
      ...read,
      schema: {
        operationId: 'adminListPlans',
        tags: [ADMIN_TAG],
        summary: "List a provider's plans",
        description: PARTNER_DESCRIPTIONS.adminListPlans,
        params: ProviderParam,
        response: { 200: z.array(PlanView), 404: Detail, 422: Detail },
      },
    },
    async (request) => plans.list((await providerAdmin.resolve(request.params.provider)).id),
  );

  app.post(
    '/admin/plans/:plan_id/versions',
    {
      ...write,
      schema: {
        operationId: 'adminAddPlanVersion',
        tags: [ADMIN_TAG],
        summary: 'Add a plan version',
        description: PARTNER_DESCRIPTIONS.adminAddPlanVersion,
        params: z.object({ plan_id: z.uuid() }),
        body: PlanVersionInput,
        response: { 201: PlanView, 404: Detail, 422: Detail },
      },
    },
    async (request, reply) => reply.code(201).send(await plans.addVersion(request.params.plan_id, request.body)),
  );

  app.patch(
    '/admin/plan-versions/:plan_version_id',
    {
      ...write,
      schema: {
        operationId: 'adminSetPlanVersionActive',
        tags: [ADMIN_TAG],
        summary: 'Put a plan version on sale or take it off',
        description: PARTNER_DESCRIPTIONS.adminSetPlanVersionActive,
        params: z.object({ plan_version_id: z.uuid() }),
        body: z.object({ active: z.boolean() }),
        response: { 200: PlanView, 404: Detail, 422: Detail },
      },
    },
    async (request) => plans.setVersionActive(request.params.plan_version_id, request.body.active),
  );
};
