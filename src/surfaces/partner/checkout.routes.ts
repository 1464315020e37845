import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unprocessable } from '../../lib/errors.js';
import { sessionNotFoundError } from '../../modules/checkout/index.js';
import { isUuid } from '../../lib/ids.js';
import { bearer, webhookSecret, WEBHOOK_SECRET, webhookProviderOf } from '../../plugins/auth.js';
import { checksCredential } from '../../plugins/route-contract.js';
import { limit } from '../../plugins/rate-limit.js';
import {
  CreateSessionBody,
  CreateSessionResponse,
  GoneDetail,
  PatchSessionBody,
  SessionIdParams,
  SessionStatusResponse,
  SessionView,
} from '../../modules/checkout/index.js';
import { ReadableDetail as Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const PATCHABLE = new Set(['plan_version_id', 'partner_reference']);

export const checkoutRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.checkout;
  const secret = webhookSecret();

  /** TTL gate (410, before auth), then X-Webhook-Secret of the session's own provider. */
  const sessionAccess = checksCredential(async (request: FastifyRequest, reply: FastifyReply) => {
    const id = (request.params as { session_id?: string }).session_id;
    const owner = id && isUuid(id) ? await service.gate(id) : null;
    await secret(request, reply);
    // Another provider's valid secret learns nothing: the session answers like an unknown id.
    if (owner && owner.providerId !== webhookProviderOf(request).providerId) throw sessionNotFoundError();
  }, WEBHOOK_SECRET);

  /** PATCH accepts exactly two fields: name the first other one (after auth, so no field oracle). */
  async function patchWhitelist(request: FastifyRequest) {
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    const extra = Object.keys(body).find((k) => !PATCHABLE.has(k));
    if (extra) throw unprocessable(`${extra}: not patchable; only plan_version_id and partner_reference can be changed`);
  }

  app.post(
    '/external-checkout/sessions',
    {
      onRequest: bearer(['subscriber'], { optional: true }),
      config: { rateLimit: limit('checkout.public') },
      schema: {
        operationId: 'createCheckoutSession',
        tags: ['checkout'],
        summary: 'Create an external checkout session (marketplace only)',
        description: PARTNER_DESCRIPTIONS.createCheckoutSession,
        body: CreateSessionBody,
        response: { 201: CreateSessionResponse, 403: Detail, 422: Detail, 503: Detail },
      },
    },
    async (request, reply) => {
      const r = await service.create(request.body, request.user?.userId ?? null);
      return reply.code(201).send(r);
    },
  );

  app.get(
    '/external-checkout/sessions/:session_id',
    {
      preValidation: sessionAccess,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'getCheckoutSession',
        tags: ['checkout'],
        summary: "Read a checkout session (the provider's checkout page)",
        description: PARTNER_DESCRIPTIONS.getCheckoutSession,
        params: SessionIdParams,
        response: { 200: SessionView, 401: Detail, 403: Detail, 404: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.read(request.params.session_id, webhookProviderOf(request).providerId),
  );

  app.patch(
    '/external-checkout/sessions/:session_id',
    {
      preValidation: [sessionAccess, patchWhitelist],
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'patchCheckoutSession',
        tags: ['checkout'],
        summary: 'Upsell: swap the plan or attach your reference',
        description: PARTNER_DESCRIPTIONS.patchCheckoutSession,
        params: SessionIdParams,
        body: PatchSessionBody,
        response: { 200: SessionView, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.patch(request.params.session_id, webhookProviderOf(request).providerId, request.body),
  );

  app.post(
    '/external-checkout/sessions/:session_id/cancel',
    {
      preValidation: sessionAccess,
      config: { rateLimit: limit('checkout.partner') },
      schema: {
        operationId: 'cancelCheckoutSession',
        tags: ['checkout'],
        summary: 'Cancel a checkout session (the buyer cancelled, or the marketplace abandons it)',
        description: PARTNER_DESCRIPTIONS.cancelCheckoutSession,
        params: SessionIdParams,
        response: { 200: SessionStatusResponse, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.cancel(request.params.session_id, webhookProviderOf(request).providerId),
  );
};
