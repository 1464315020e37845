import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unprocessable } from '../../lib/errors.js';
import { sessionNotFoundError } from '../../modules/checkout/checkout.sessions.js';
import { isUuid } from '../../lib/ids.js';
import { bearer, webhookSecret, WEBHOOK_SECRET } from '../../plugins/auth.js';
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
} from '../../modules/checkout/checkout.schemas.js';
import { Detail } from '../../modules/serviceability/serviceability.schemas.js';

const PATCHABLE = new Set(['plan_version_id', 'partner_reference']);

const TTL_NOTE =
  'A session never read for 2 hours after creation is expired: this is checked BEFORE authentication, so it answers 410 even ' +
  'without or with a wrong secret (and is marked expired on that call). Expired and cancelled sessions answer 410 with a nested ' +
  '`detail` object: `{detail: {code: "session_expired" | "session_cancelled", detail: "Session expired" | "Session cancelled"}}`. ';

export const checkoutRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.checkout;
  const secret = webhookSecret();

  /** TTL gate (410, before auth), then X-Webhook-Secret of the session's own provider. */
  const sessionAccess = checksCredential(async (request: FastifyRequest, reply: FastifyReply) => {
    const id = (request.params as { session_id?: string }).session_id;
    const owner = id && isUuid(id) ? await service.gate(id) : null;
    await secret(request, reply);
    // Another provider's valid secret learns nothing: the session answers like an unknown id.
    if (owner && owner.providerId !== request.webhookProvider!.providerId) throw sessionNotFoundError();
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
        description:
          'Called by the marketplace, never by partners. No authentication; an optional subscriber `Authorization: Bearer` links the ' +
          'session to that account (a present but invalid token answers 403). Name the place by `location_hash` (a port), `unit_id` ' +
          '(a suite) or `building_id` (at least one; they must agree and belong to the provider, the building in coverage), and an ' +
          'active `plan_version_id` of the provider; a reference that does not fit answers 422 naming the field. ' +
          "Answers 201 with `checkout_url`: the provider's external_checkout_url with `session_id` appended (`?` or `&`); in sandbox " +
          "the demo provider's URL is the server's fake payment page. 503 when the provider has no external_checkout_url. The session " +
          'expires 2 hours after creation unless the checkout page reads it first.',
        security: [{}, { bearer: [] }],
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
        description:
          "`X-Webhook-Secret` of the session's provider (another provider's secret answers 404, like an unknown id). Read it once, early, when the checkout " +
          'page renders: the first read moves the session from pending to redirected, after which it never expires. Embeds `plan` ' +
          '(with `store_product_id` to join your catalog), `units` with the building nested as `units.buildings` (every address field ' +
          'nullable) and `provider` with branding. ' +
          TTL_NOTE,
        security: [{ webhookSecret: [] }],
        params: SessionIdParams,
        response: { 200: SessionView, 401: Detail, 403: Detail, 404: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.read(request.params.session_id, request.webhookProvider!.providerId),
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
        description:
          "`X-Webhook-Secret` of the session's provider. Accepts only `plan_version_id` (another active plan version of the same " +
          'provider) and `partner_reference` (at most 200 characters; null clears it); any other field (unit_id, delivery_mode, ' +
          'service_provider_document_id, ...) answers 422, as does an empty body. Only pending and redirected sessions can be changed: ' +
          'a completed one answers 409. Answers 200 with the session in the GET shape (a PATCH is not a read: a pending session stays ' +
          'pending). ' +
          TTL_NOTE,
        security: [{ webhookSecret: [] }],
        params: SessionIdParams,
        body: PatchSessionBody,
        response: { 200: SessionView, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.patch(request.params.session_id, request.webhookProvider!.providerId, request.body),
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
        description:
          "`X-Webhook-Secret` of the session's provider (another provider's secret answers 404, like an unknown id). Call it when the " +
          'buyer cancels on your checkout page or the marketplace abandons a session it redirected. Moves a redirected session to ' +
          'cancelled and answers 200 `{session_id, status: "cancelled", subscription_status: null}`; from then on GET, PATCH, status ' +
          'and complete answer 410 `{detail: {code: "session_cancelled", detail: "Session cancelled"}}`, and so does a second cancel. ' +
          'A pending session (the checkout page never read it) answers 409: it expires on its own 2 hours after creation; a ' +
          'completed session answers 409. No body. ' +
          TTL_NOTE,
        security: [{ webhookSecret: [] }],
        params: SessionIdParams,
        response: { 200: SessionStatusResponse, 401: Detail, 403: Detail, 404: Detail, 409: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.cancel(request.params.session_id, request.webhookProvider!.providerId),
  );

  app.get(
    '/external-checkout/sessions/:session_id/status',
    {
      config: { rateLimit: limit('checkout.public') },
      schema: {
        operationId: 'getCheckoutSessionStatus',
        tags: ['checkout'],
        summary: "Poll a session's status (browser-safe)",
        description:
          'No authentication, safe from a browser. Answers the session status and `subscription_status` of the subscription created ' +
          'from it (null before completion; becomes ACTIVE, e.g. after an install is confirmed). Polling does not count as the ' +
          "checkout page's read. A pending session past its 2-hour TTL is marked expired by this call. Expired and cancelled sessions " +
          'answer 410 with the nested `detail` object.',
        params: SessionIdParams,
        response: { 200: SessionStatusResponse, 404: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.status(request.params.session_id),
  );
};
