import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RateLimited } from '../../plugins/route-contract.js';
import { actorOf, bearer, partnerApiKey, apiKeyOf } from '../../plugins/auth.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { type ApplyResult } from '../../modules/plan-change/index.js';
import { PartnerChangeResponse, PartnerPreviewResponse, partnerPreviewBody } from '../../modules/plan-change/index.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Detail = z.object({ detail: z.string() }).describe('Error');
const SharedRateLimited = RateLimited.describe(
  'Rate limit exceeded (120 per minute per key, shared by both plan-change routes); back off for Retry-After seconds',
);
// Strict: an unknown field (an `override_reason`, say: overrides are the platform administrator's) answers 422.
const PartnerChangeBody = z.strictObject({ plan_version_id: z.uuid().describe('The plan version to change to (same provider, active)') });
const Params = z.object({ id: z.uuid().describe("Subscription id (of the key's provider)") });

const AUTH_ERRORS = {
  401: Detail.describe('X-API-Key missing: `Not authenticated`'),
  403: Detail.describe('Wrong key or disabled account (`Invalid credentials`), or the key lacks the provisioning:write scope'),
};

/**
 * The partner document writes these paths as /partner/subscriptions/{id}/change-plan (its table) and as
 * beginning with /subscriptions/ relative to the partner base (its note): both are answered, on both
 * mounts, by the same handlers. The OpenAPI lists the /partner/ paths; the alias is hidden and named there.
 */
export const partnerPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const base of ['/partner/subscriptions', '/subscriptions'] as const) await app.register(planChangeAt(base));
};

const planChangeAt =
  (base: '/partner/subscriptions' | '/subscriptions'): FastifyPluginAsyncZod =>
  async (app) => {
    const service = app.services.planChange;
    const alias = base === '/subscriptions';
    // The alias: hidden from the document, its operationId kept unique.
    const named = (operationId: string) => (alias ? { operationId: `${operationId}Alias`, hide: true } : { operationId });

    // The paths the partner document gives (2026-09-17); under /api/v1 too, like every partner router.
    app.get(
      `${base}/:id/change-plan/preview`,
      {
        onRequest: partnerApiKey('provisioning:write'),
        config: { rateLimit: limit('provisioning.write') },
        schema: {
          ...named('previewSubscriptionPlanChange'),
          tags: ['subscriptions'],
          summary: 'Check whether a plan change is possible now, and what it costs',
          description: PARTNER_DESCRIPTIONS.previewSubscriptionPlanChange,
          params: Params,
          querystring: z.object({ plan_version_id: z.uuid().describe('The plan version to change to (same provider)') }),
          response: {
            200: PartnerPreviewResponse,
            ...AUTH_ERRORS,
            404: Detail.describe('Subscription or plan version not found for this provider'),
            422: Detail.describe('Invalid id or missing plan_version_id'),
            429: SharedRateLimited,
          },
        },
      },
      async (request) => {
        const p = await service.preview({
          providerId: apiKeyOf(request).providerId,
          subscriptionId: request.params.id,
          planVersionId: request.query.plan_version_id,
          source: 'partner',
        });
        return partnerPreviewBody(p);
      },
    );

    app.post(
      `${base}/:id/change-plan`,
      {
        onRequest: partnerApiKey('provisioning:write'),
        preHandler: idempotent,
        config: { rateLimit: limit('provisioning.write'), aliasOf: '/partner/subscriptions/:id/change-plan' },
        schema: {
          ...named('changeSubscriptionPlan'),
          tags: ['subscriptions'],
          summary: 'Change the plan of an ACTIVE subscription, effective today',
          description: PARTNER_DESCRIPTIONS.changeSubscriptionPlan,
          params: Params,
          headers: idempotencyKeyHeader('Optional; replays the first answer for 24 h'),
          body: PartnerChangeBody,
          response: {
            200: PartnerChangeResponse,
            400: Detail.describe('Malformed Idempotency-Key'),
            ...AUTH_ERRORS,
            404: Detail.describe('Subscription or plan version not found for this provider'),
            409: Detail.describe(
              'Not ACTIVE, this subscription already changed plan today (UTC), already on this plan, plan version not available, or the same Idempotency-Key still running',
            ),
            422: Detail.describe('Invalid id or body, or an Idempotency-Key reused with another body'),
            429: SharedRateLimited,
          },
        },
      },
      async (request) => {
        const r = await service.apply({
          providerId: apiKeyOf(request).providerId,
          subscriptionId: request.params.id,
          planVersionId: request.body.plan_version_id,
          source: 'partner',
          actor: actorOf(request),
          requestId: String(request.id),
        });
        return changeBody(r);
      },
    );
  };

const changeBody = (r: ApplyResult) => ({
  subscription_id: r.subscriptionId,
  plan_version_id: r.newPlan.id,
  bandwidth_updated: r.bandwidthUpdated,
  effective_date: r.effectiveDate,
});

/**
 * The platform administrator's override of the one-change-per-day rule (agent document, rule 7):
 * internal API (dashboard JWT of a platform_admin), /api/v1 only, any provider's subscription, with a
 * reason kept on the plan change and in the audit entry. Every other refusal still applies.
 */
export const adminPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.planChange;

  app.post(
    '/admin/subscriptions/:id/change-plan',
    {
      onRequest: bearer(['platform_admin']),
      preHandler: idempotent,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'overrideSubscriptionPlanChange',
        tags: ['subscriptions'],
        summary: 'Platform administrator: change a plan despite the once-per-day limit, with a reason',
        description: PARTNER_DESCRIPTIONS.overrideSubscriptionPlanChange,
        params: Params,
        headers: idempotencyKeyHeader('Optional; replays the first answer for 24 h'),
        body: z.strictObject({
          plan_version_id: z.uuid().describe('The plan version to change to (same provider as the subscription, active)'),
          override_reason: z
            .string()
            .trim()
            .min(5)
            .max(500)
            .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
            .describe('Why the limit is overridden (5 to 500 characters), for the audit trail'),
        }),
        response: {
          200: PartnerChangeResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          401: Detail.describe('No Bearer token: `Not authenticated`'),
          403: Detail.describe(
            'Invalid or expired token (`Invalid credentials`), or not a platform administrator (`Not permitted for this account`)',
          ),
          404: Detail.describe("Subscription or plan version not found (the plan version must belong to the subscription's provider)"),
          409: Detail.describe('Not ACTIVE, already on this plan, plan version not available, or the same Idempotency-Key still running'),
          422: Detail.describe(
            'Invalid id or body (override_reason missing or too short, an unknown field), or an Idempotency-Key reused with another body',
          ),
        },
      },
    },
    async (request) =>
      changeBody(
        await service.apply({
          source: 'admin',
          providerId: null,
          overrideReason: request.body.override_reason,
          subscriptionId: request.params.id,
          planVersionId: request.body.plan_version_id,
          actor: actorOf(request),
          requestId: String(request.id),
        }),
      ),
  );
};
