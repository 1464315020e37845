import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { platformAdmin } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { Detail } from './errors.schemas.js';
import { ADMIN_TAG, ProviderParam } from './admin-providers.routes.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Integrations = z
  .object({
    provider_id: z.uuid(),
    card_processor: z.object({
      processor: z
        .enum(['stripe', 'simulator'])
        .nullable()
        .describe('The card processor this server runs (one for every provider); null: none'),
      account: z.string().nullable().describe('The Stripe connected account (acct_…) card payments go to; null: not connected'),
      usable: z.boolean().describe('True when an account is set and this server has a card processor'),
    }),
    sms: z.object({
      enabled: z.boolean().describe('SMS verification codes are on (else channel sms answers 503 dependency_unconfigured)'),
      gateway: z
        .enum(['twilio', 'simulator'])
        .nullable()
        .describe('How codes are sent: the stored Twilio credentials, or outside production the simulator'),
      account_sid: z.string().nullable().describe('The Twilio account SID (AC…); the auth token is never answered'),
      from: z.string().nullable().describe('The sender: an E.164 number or a Messaging Service SID (MG…)'),
    }),
  })
  .describe("A provider's card-processor connection and SMS gateway (never a secret)");

const NOTE_422 = Detail.describe('A field in the wrong form (`<field>: <reason>`), or a provider reference longer than 100 characters');

/** /api/v1/admin/providers/{provider}/integrations, /card-processor, /sms-gateway (registered in internalSurface). */
export const adminIntegrationRoutes: FastifyPluginAsyncZod = async (app) => {
  const { providerAdmin, integrations } = app.services;
  const auth = platformAdmin();
  const write = { onRequest: auth, config: { rateLimit: limit('internal.write') } };
  const read = { onRequest: auth, config: { rateLimit: limit('internal.read') } };
  const idOf = async (ref: string) => (await providerAdmin.resolve(ref)).id;

  app.get(
    '/admin/providers/:provider/integrations',
    {
      ...read,
      schema: {
        operationId: 'adminShowProviderIntegrations',
        tags: [ADMIN_TAG],
        summary: "Show a provider's card processor and SMS gateway",
        description: PARTNER_DESCRIPTIONS.adminShowProviderIntegrations,
        params: ProviderParam,
        response: { 200: Integrations, 404: Detail, 422: NOTE_422 },
      },
    },
    async (request) => integrations.showIntegrations(await idOf(request.params.provider)),
  );

  app.put(
    '/admin/providers/:provider/card-processor',
    {
      ...write,
      schema: {
        operationId: 'adminSetCardProcessor',
        tags: [ADMIN_TAG],
        summary: "Connect a provider's card processor",
        description: PARTNER_DESCRIPTIONS.adminSetCardProcessor,
        params: ProviderParam,
        body: z.object({ account: z.string().max(255).describe('The Stripe connected account id, acct_…') }),
        response: { 200: Integrations, 404: Detail, 422: NOTE_422 },
      },
    },
    async (request) => integrations.setCardProcessor(await idOf(request.params.provider), { account: request.body.account }),
  );

  app.delete(
    '/admin/providers/:provider/card-processor',
    {
      ...write,
      schema: {
        operationId: 'adminClearCardProcessor',
        tags: [ADMIN_TAG],
        summary: "Disconnect a provider's card processor",
        description: PARTNER_DESCRIPTIONS.adminClearCardProcessor,
        params: ProviderParam,
        response: { 200: Integrations, 404: Detail, 422: NOTE_422 },
      },
    },
    async (request) => integrations.clearCardProcessor(await idOf(request.params.provider)),
  );

  app.put(
    '/admin/providers/:provider/sms-gateway',
    {
      ...write,
      schema: {
        operationId: 'adminSetSmsGateway',
        tags: [ADMIN_TAG],
        summary: "Set a provider's SMS gateway (Twilio)",
        description: PARTNER_DESCRIPTIONS.adminSetSmsGateway,
        params: ProviderParam,
        body: z.object({
          account_sid: z.string().max(64).describe('The Twilio account SID: AC followed by 32 hex digits'),
          auth_token: z.string().max(128).describe('The Twilio auth token (16 to 128 letters and digits); write-only'),
          from: z.string().max(64).describe('The sender: an E.164 number (+4930123456) or a Messaging Service SID (MG…)'),
        }),
        response: { 200: Integrations, 404: Detail, 422: NOTE_422 },
      },
    },
    async (request) =>
      integrations.setSmsGateway(await idOf(request.params.provider), {
        accountSid: request.body.account_sid,
        authToken: request.body.auth_token,
        from: request.body.from,
      }),
  );

  app.delete(
    '/admin/providers/:provider/sms-gateway',
    {
      ...write,
      schema: {
        operationId: 'adminClearSmsGateway',
        tags: [ADMIN_TAG],
        summary: "Remove a provider's SMS gateway",
        description: PARTNER_DESCRIPTIONS.adminClearSmsGateway,
        params: ProviderParam,
        response: { 200: Integrations, 404: Detail, 422: NOTE_422 },
      },
    },
    async (request) => integrations.clearSmsGateway(await idOf(request.params.provider)),
  );
};
