import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { partnerApiKey } from '../../plugins/auth.js';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf } from '../../modules/audit/audit.repository.js';
import { createPlanChangeService } from '../../modules/plan-change/plan-change.service.js';
import { PartnerChangeResponse, PartnerPreviewResponse, partnerPreviewBody } from '../../modules/plan-change/plan-change.schemas.js';

const Detail = z.object({ detail: z.string() }).describe('Error');
const RateLimited = z
  .object({ statusCode: z.literal(429), error: z.string(), message: z.string() })
  .describe('Rate limit exceeded (120 per minute per key, shared by both plan-change routes); back off for Retry-After seconds');
const Params = z.object({ id: z.uuid().describe('Subscription id (of the key\'s provider)') });

const AUTH_ERRORS = {
  401: Detail.describe('X-API-Key missing: `Not authenticated`'),
  403: Detail.describe('Wrong key or disabled account (`Invalid credentials`), or the key lacks the provisioning:write scope'),
};

export const partnerPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = createPlanChangeService(app.deps);

  app.get('/subscriptions/:id/change-plan/preview', {
    onRequest: partnerApiKey('provisioning:write'),
    config: { rateLimit: limit('provisioning.write') },
    schema: {
      operationId: 'previewSubscriptionPlanChange',
      tags: ['subscriptions'],
      summary: 'Check whether a plan change is possible now, and what it costs',
      description:
        'Read-only eligibility check and quote for changing an own subscription to `plan_version_id` today; writes nothing. ' +
        '`eligible` is true when POST /subscriptions/{id}/change-plan would apply; otherwise `reasons` lists every stable reason ' +
        '(`not_active`, `already_changed_today`, `same_plan`, `plan_not_available`) and the change answers 409. ' +
        'The quote covers the rest of the current UTC calendar month: (new - old monthly price) x days / days_in_period, ' +
        'days = days_in_period - day_of_month + 1, rounded half-up to cents. An upgrade adds a labelled line to the next monthly ' +
        'invoice (`next_invoice_line`); a downgrade issues a credit note now (`credit`); a total under 0.50 is skipped and carried ' +
        'into the next correction (`none`, amount 0.00). No number is quoted (null with `note`) when the month is not invoiced yet, ' +
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
  }, async (request) => {
    const p = await service.preview({ providerId: request.apiKey!.providerId, subscriptionId: request.params.id, planVersionId: request.query.plan_version_id });
    return partnerPreviewBody(p);
  });

  app.post('/subscriptions/:id/change-plan', {
    onRequest: partnerApiKey('provisioning:write'),
    preHandler: idempotent,
    config: { rateLimit: limit('provisioning.write') },
    schema: {
      operationId: 'changeSubscriptionPlan',
      tags: ['subscriptions'],
      summary: 'Change the plan of an ACTIVE subscription, effective today',
      description:
        'Changes an own ACTIVE subscription to another active plan version of the same provider, immediately (no scheduled option). ' +
        'Once per subscriber per UTC calendar day: a second change the same day answers 409; the next change is possible from the ' +
        'next day. The one-time adjustment is the one GET .../change-plan/preview quotes: for a service-billed, invoiced month an ' +
        'upgrade becomes a line on the next monthly invoice and a downgrade a credit note issued now; when the provider bills the ' +
        'subscription no invoice line or credit note is issued. The webhook `subscription.plan_changed` is sent. ' +
        '`bandwidth_updated: false` means the change applied and the port needs operator confirmation (or the switch answers later; ' +
        'the service retries by itself): not a reason to retry. Send an `Idempotency-Key` header to make a retry after a network ' +
        'error safe (same key and body within 24 h replays the first answer).',
      security: [{ apiKey: [] }],
      params: Params,
      headers: z.looseObject({ 'idempotency-key': z.string().max(255).optional().describe('Optional; replays the first answer for 24 h') }),
      body: z.object({ plan_version_id: z.uuid().describe('The plan version to change to (same provider, active)') }),
      response: {
        200: PartnerChangeResponse,
        400: Detail.describe('Malformed Idempotency-Key'),
        ...AUTH_ERRORS,
        404: Detail.describe('Subscription or plan version not found for this provider'),
        409: Detail.describe('Not ACTIVE, already changed today (UTC), already on this plan, plan version not available, or the same Idempotency-Key still running'),
        422: Detail.describe('Invalid id or body, or an Idempotency-Key reused with another body'),
        429: RateLimited,
      },
    },
  }, async (request) => {
    const r = await service.apply({
      providerId: request.apiKey!.providerId,
      subscriptionId: request.params.id,
      planVersionId: request.body.plan_version_id,
      source: 'partner',
      actor: actorOf(request),
      requestId: String(request.id),
    });
    return { subscription_id: r.subscriptionId, plan_version_id: r.newPlan.id, bandwidth_updated: r.bandwidthUpdated, effective_date: r.effectiveDate };
  });
};
