import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { platformAdmin } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { ProviderCreateInput, ProviderSettingsInput, ProviderView, WebhookInput } from '../../modules/providers/index.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

export const ADMIN_TAG = 'Platform administration';
export const ProviderParam = z.object({
  provider: z.string().min(1).max(100).describe("The provider's id or slug"),
});

const StaffSummary = z.object({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  sp_role: z.string().nullable(),
  status: z.enum(['invited', 'active']),
  created_at: z.string(),
});

/** /api/v1/admin/providers: the operator's providers and their settings (registered in internalSurface). */
export const adminProviderRoutes: FastifyPluginAsyncZod = async (app) => {
  const providers = app.services.providerAdmin;
  const auth = platformAdmin();
  const write = { onRequest: auth, config: { rateLimit: limit('internal.write') } };
  const read = { onRequest: auth, config: { rateLimit: limit('internal.read') } };

  app.post(
    '/admin/providers',
    {
      ...write,
      schema: {
        operationId: 'adminCreateProvider',
        tags: [ADMIN_TAG],
        summary: 'Create a provider',
        description: PARTNER_DESCRIPTIONS.adminCreateProvider,
        body: ProviderCreateInput,
        response: {
          201: z.object({
            provider: ProviderView,
            checkout_secret: z.string().describe('X-Webhook-Secret for the checkout routes: shown once, stored as its SHA-256'),
            signing_secret: z.string().describe("Verifies the webhooks' signatures: shown once"),
          }),
          409: Detail.describe('A provider with this slug exists'),
          422: Detail,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await providers.create(request.body)),
  );

  app.get(
    '/admin/providers',
    {
      ...read,
      schema: {
        operationId: 'adminListProviders',
        tags: [ADMIN_TAG],
        summary: 'List providers',
        description: PARTNER_DESCRIPTIONS.adminListProviders,
        response: { 200: z.array(ProviderView) },
      },
    },
    async () => providers.list(),
  );

  app.get(
    '/admin/providers/:provider',
    {
      ...read,
      schema: {
        operationId: 'adminShowProvider',
        tags: [ADMIN_TAG],
        summary: 'Show a provider',
        description: PARTNER_DESCRIPTIONS.adminShowProvider,
        params: ProviderParam,
        response: { 200: ProviderView, 404: Detail, 422: Detail },
      },
    },
    async (request) => providers.show(request.params.provider),
  );

  app.patch(
    '/admin/providers/:provider',
    {
      ...write,
      schema: {
        operationId: 'adminUpdateProvider',
        tags: [ADMIN_TAG],
        summary: "Change a provider's settings",
        description: PARTNER_DESCRIPTIONS.adminUpdateProvider,
        params: ProviderParam,
        body: ProviderSettingsInput,
        response: { 200: ProviderView, 404: Detail, 422: Detail },
      },
    },
    async (request) => providers.updateSettings(request.params.provider, request.body),
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/admin/providers/:provider/${action}`,
      {
        ...write,
        schema: {
          operationId: disabled ? 'adminDisableProvider' : 'adminEnableProvider',
          tags: [ADMIN_TAG],
          summary: disabled ? 'Disable a provider' : 'Enable a provider',
          description: PARTNER_DESCRIPTIONS[disabled ? 'adminDisableProvider' : 'adminEnableProvider'],
          params: ProviderParam,
          response: { 200: ProviderView, 404: Detail, 422: Detail },
        },
      },
      async (request) => providers.setDisabled(request.params.provider, disabled),
    );
  }

  app.put(
    '/admin/providers/:provider/webhook',
    {
      ...write,
      schema: {
        operationId: 'adminSetProviderWebhook',
        tags: [ADMIN_TAG],
        summary: "Set a provider's webhook URL",
        description: PARTNER_DESCRIPTIONS.adminSetProviderWebhook,
        params: ProviderParam,
        body: WebhookInput,
        response: {
          200: z.object({
            provider: ProviderView,
            signing_secret: z.string().nullable().describe('The new signing secret (shown once), or null when kept'),
            released_deliveries: z.number().int(),
          }),
          404: Detail,
          422: Detail,
        },
      },
    },
    async (request) => providers.setWebhook(request.params.provider, request.body),
  );

  app.post(
    '/admin/providers/:provider/checkout-secret/rotate',
    {
      ...write,
      schema: {
        operationId: 'adminRotateCheckoutSecret',
        tags: [ADMIN_TAG],
        summary: "Rotate a provider's checkout secret",
        description: PARTNER_DESCRIPTIONS.adminRotateCheckoutSecret,
        params: ProviderParam,
        response: { 200: z.object({ provider: ProviderView, checkout_secret: z.string() }), 404: Detail, 422: Detail },
      },
    },
    async (request) => providers.rotateCheckoutSecret(request.params.provider),
  );

  app.post(
    '/admin/providers/:provider/admins',
    {
      ...write,
      schema: {
        operationId: 'adminInviteProviderAdmin',
        tags: [ADMIN_TAG],
        summary: "Invite a provider's admin (sp_admin)",
        description: PARTNER_DESCRIPTIONS.adminInviteProviderAdmin,
        params: ProviderParam,
        body: z.object({
          email: emailAddress().max(254),
          first_name: z.string().trim().min(1).max(100).nullish(),
          last_name: z.string().trim().min(1).max(100).nullish(),
        }),
        response: { 201: StaffSummary, 404: Detail, 409: Detail.describe('The email has a login already'), 422: Detail },
      },
    },
    async (request, reply) => {
      const p = await providers.resolve(request.params.provider);
      return reply.code(201).send(await app.services.staff.inviteProviderAdmin(p.id, request.body));
    },
  );
};
