import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, bearer, partnerApiKey } from '../../plugins/auth.js';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { type ApplyResult } from '../../modules/plan-change/plan-change.service.js';
import {
  ADJUSTMENT_TYPES,
  PartnerChangeResponse,
  PartnerPreviewResponse,
  QUOTE_RULE,
  partnerPreviewBody,
} from '../../modules/plan-change/plan-change.schemas.js';

const Detail = z.object({ detail: z.string() }).describe('Error');
const RateLimited = z
  .object({ statusCode: z.literal(429), error: z.string(), message: z.string() })
  .describe('Rate limit exceeded (120 per minute per key, shared by both plan-change routes); back off for Retry-After seconds');
// Strict: an unknown field (an `override_reason`, say: overrides are the platform administrator's) answers 422.
const PartnerChangeBody = z.strictObject({ plan_version_id: z.uuid().describe('The plan version to change to (same provider, active)') });
const Params = z.object({ id: z.uuid().describe("Subscription id (of the key's provider)") });

const AUTH_ERRORS = {
  401: Detail.describe('X-API-Key missing: `Not authenticated`'),
  403: Detail.describe('Wrong key or disabled account (`Invalid credentials`), or the key lacks the provisioning:write scope'),
};

export const partnerPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.planChange;

  // The paths the partner document gives (2026-09-17); under /api/v1 too, like every partner router.
  app.get(
    '/partner/subscriptions/:id/change-plan/preview',
    {
      onRequest: partnerApiKey('provisioning:write'),
      config: { rateLimit: limit('provisioning.write') },
      schema: {
        operationId: 'previewSubscriptionPlanChange',
        tags: ['subscriptions'],
        summary: 'Check whether a plan change is possible now, and what it costs',
        description:
          'Read-only eligibility check and quote for changing an own subscription to `plan_version_id` today; writes nothing. ' +
          '`eligible` is true when POST /partner/subscriptions/{id}/change-plan would apply; otherwise `reasons` lists every stable reason ' +
          '(`not_active`, `already_changed_today`, `same_plan`, `plan_not_available`) and the change answers 409. ' +
          `${QUOTE_RULE} ${ADJUSTMENT_TYPES} ` +
          'No number is quoted (null with `note`) when the month is not invoiced yet, ' +
          'when its invoice or billing document is missing (operator escalation), or when the provider bills the subscription itself. ' +
          'A subscription or plan version of another provider answers 404.',
        security: [{ apiKey: [] }],
        params: Params,
        querystring: z.object({ plan_version_id: z.uuid().describe('The plan version to change to (same provider)') }),
        response: {
          200: PartnerPreviewResponse,
          ...AUTH_ERRORS,
          404: Detail.describe('Subscription or plan version not found for this provider'),
          422: Detail.describe('Invalid id or missing plan_version_id'),
          429: RateLimited,
        },
      },
    },
    async (request) => {
      const p = await service.preview({
        providerId: request.apiKey!.providerId,
        subscriptionId: request.params.id,
        planVersionId: request.query.plan_version_id,
        source: 'partner',
      });
      return partnerPreviewBody(p);
    },
  );

  app.post(
    '/partner/subscriptions/:id/change-plan',
    {
      onRequest: partnerApiKey('provisioning:write'),
      preHandler: idempotent,
      config: { rateLimit: limit('provisioning.write') },
      schema: {
        operationId: 'changeSubscriptionPlan',
        tags: ['subscriptions'],
        summary: 'Change the plan of an ACTIVE subscription, effective today',
        description:
          'Changes an own ACTIVE subscription to another active plan version of the same provider, immediately (no scheduled option). ' +
          'Once per subscription per UTC calendar day (a change made through the support agent counts too): a second change of the ' +
          'same subscription the same day answers 409, the next change is possible from the next day; another subscription of the ' +
          'same subscriber can change the same day. Only a platform administrator can override the limit. The one-time adjustment is the one GET .../change-plan/preview quotes: for a service-billed, invoiced month an ' +
          'upgrade becomes a line on the next monthly invoice and a downgrade a credit note issued now; when the provider bills the ' +
          'subscription no invoice line or credit note is issued. The webhook `subscription.plan_changed` is sent. ' +
          '`bandwidth_updated: false` means the change applied and the port needs operator confirmation (or the switch answers later; ' +
          'the service retries by itself): not a reason to retry. Send an `Idempotency-Key` header to make a retry after a network ' +
          'error safe (same key and body within 24 h replays the first answer).',
        security: [{ apiKey: [] }],
        params: Params,
        headers: z.looseObject({
          'idempotency-key': z.string().max(255).optional().describe('Optional; replays the first answer for 24 h'),
        }),
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
          429: RateLimited,
        },
      },
    },
    async (request) => {
      const r = await service.apply({
        providerId: request.apiKey!.providerId,
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
        description:
          'Dashboard JWT of a platform administrator only (provider staff and subscribers answer 403). Changes the plan of an ACTIVE ' +
          'subscription of any provider exactly like POST /partner/subscriptions/{id}/change-plan (same adjustment, webhook ' +
          '`subscription.plan_changed` with source `admin`, bandwidth), except that a change already made today (UTC) by the partner, ' +
          'the support agent or another override does not refuse it. `override_reason` is required and kept on the plan change and in ' +
          "the audit entry (`subscription.plan_change_override`). The change counts for the partner's and the agent's limits that " +
          'day. Not ACTIVE, already on this plan or a plan version not available still answer 409.',
        params: Params,
        headers: z.looseObject({
          'idempotency-key': z.string().max(255).optional().describe('Optional; replays the first answer for 24 h'),
        }),
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
