import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf } from '../../modules/audit/audit.repository.js';
import { createPlanChangeService, type PreviewRead } from '../../modules/plan-change/plan-change.service.js';
import { AgentApplyResponse, AgentPreviewResponse, agentAdjustment, agentPreviewBody, planView } from '../../modules/plan-change/plan-change.schemas.js';
import { CustomerParams, IdempotencyHeaders, SECURITY_VERIFIED, describeRoute, err, verifiedErrors } from './common.schemas.js';
import { requireOwnedCustomer, requireOwnedCustomerWith, requireVerifiedSession } from './verified-session.js';

const subscriptionId = z.uuid().describe('The subscription to change (one of the customer\'s subscriptions, from GET /agent/customers/{customerId})');
const planVersionId = z.uuid().describe('The plan version to change to (an active plan version of your provider)');

const REFUSALS =
  '409 codes, each also answered by the apply call: `plan_change_limit` (the customer already changed plan today, UTC; the next ' +
  'change is possible from tomorrow; only a platform administrator can override), `subscription_not_active` (only ACTIVE ' +
  'subscriptions change plan), `same_plan` (already on this plan version), `plan_not_available` (the plan version is inactive ' +
  'or in another currency).';

const QUOTE_RULES =
  'The one-time adjustment covers the rest of the current UTC calendar month: (new - old monthly price) x days / days_in_period, ' +
  'days = days_in_period - day_of_month + 1 (the change day is billed at the new price), rounded half-up to cents. ' +
  '`next_invoice_line` (upgrade): nothing is charged today; a labelled line appears on the next monthly invoice. ' +
  '`credit` (downgrade): a credit note is issued now and applied to the next invoice. `none`: the correction is under 0.50, ' +
  'skipped (amount 0.00) and carried into the next correction that runs (a pending carried amount is included before the 0.50 test). ' +
  '`one_time_adjustment` is null with a `note` (HTTP 200) when (a) the month is not invoiced yet: the monthly invoice will reflect ' +
  'the new price; (b) the month\'s invoice exists but its billing document is missing, or (c) the billing document exists but the ' +
  'invoice is missing: (b) and (c) are operator-escalation states, open a ticket and do not quote a number; or the subscription is ' +
  'billed by the provider: no invoice line or credit note is ever issued.';

const refusals = err(REFUSALS);
const notFound = err('customer_not_found: no such customer for your provider; not_found: the subscription is not this customer\'s, or the plan version is unknown or of another provider');

export const agentPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = createPlanChangeService(app.deps);

  // The preview's snapshot travels with the ownership read (one round trip). It is read for the
  // body's ids as sent, before validation; the handler uses it only when the validated body names
  // the same ones (service.preview compares), and reads it itself otherwise.
  const ownedWithPreview = requireOwnedCustomerWith((request, { providerId, customerId }) => {
    const body = request.body as { subscription_id?: unknown; plan_version_id?: unknown } | null | undefined;
    const subscriptionId = body?.subscription_id;
    const planVersionId = body?.plan_version_id;
    if (typeof subscriptionId !== 'string' || typeof planVersionId !== 'string' || !isUuid(subscriptionId) || !isUuid(planVersionId)) return undefined;
    const read = service.previewRead({ providerId, customerId, subscriptionId, planVersionId, source: 'agent' });
    return { call: read.call, context: read };
  });

  app.post('/customers/:customerId/plan-change/preview', {
    // another provider's (or an unknown) customer is 404 before the body is validated
    preValidation: [ownedWithPreview],
    preHandler: [requireVerifiedSession],
    config: { rateLimit: limit('agent.read') },
    schema: {
      operationId: 'previewPlanChange',
      tags: ['change'],
      summary: 'Quote a plan change for the rest of the current month (read-only)',
      description: describeRoute(
        'Step 4, before asking the customer to confirm: quotes changing `subscription_id` to `plan_version_id` today. Nothing is ' +
          `applied or written. Tell the customer the new monthly price and the one-time adjustment (or the note), then call POST ` +
          `/agent/customers/{customerId}/plan-change with confirm: true once they agree. ${QUOTE_RULES} ${REFUSALS} ` +
          '`proration_factor` and `one_time_adjustment.due_in_days` are deprecated and removed in the next release: read days and days_in_period.',
        true,
      ),
      security: SECURITY_VERIFIED,
      params: CustomerParams,
      body: z.object({ subscription_id: subscriptionId, plan_version_id: planVersionId }),
      response: { 200: AgentPreviewResponse, ...verifiedErrors, 404: notFound, 409: refusals },
    },
  }, async (request) => {
    const attached = request.agentCustomer!.attached;
    const p = await service.preview({
      providerId: request.apiKey!.providerId,
      customerId: request.agentCustomer!.id,
      subscriptionId: request.body.subscription_id,
      planVersionId: request.body.plan_version_id,
      source: 'agent',
    }, attached && { read: attached.context as PreviewRead, row: attached.row });
    const refusal = service.refusalOf(p);
    if (refusal) throw refusal;
    return agentPreviewBody({ ...p, quote: p.quote! });
  });

  app.post('/customers/:customerId/plan-change', {
    preValidation: [requireOwnedCustomer],
    preHandler: [requireVerifiedSession, idempotent],
    config: { rateLimit: limit('agent.write') },
    schema: {
      operationId: 'applyPlanChange',
      tags: ['change'],
      summary: 'Apply a plan change now, after the customer confirmed the previewed cost',
      description: describeRoute(
        'Applies the change immediately (a real, billing-affecting change; no sandbox, no rollback). Send `confirm: true` only after ' +
          'the customer heard the preview and agreed; without it the answer is 400 confirmation_required and nothing changes. ' +
          'The adjustment is computed again at apply time with the same rules as the preview. Once per customer per UTC calendar ' +
          `day. ${REFUSALS} An audit entry is written in the same transaction as the change. Send an Idempotency-Key to make a ` +
          'retry after a network error safe (same key and body within 24 h replays the first answer).',
        true,
      ),
      security: SECURITY_VERIFIED,
      params: CustomerParams,
      headers: IdempotencyHeaders,
      body: z.object({
        subscription_id: subscriptionId,
        plan_version_id: planVersionId,
        confirm: z.boolean().nullish().describe('Must be true: the customer confirmed the previewed cost. Missing, null or false answers 400 confirmation_required'),
      }),
      response: {
        200: AgentApplyResponse,
        ...verifiedErrors,
        400: err('confirmation_required: confirm was not true (ask the customer, then send confirm: true); validation_error: the request failed its schema (`details` names each field); bad_request: malformed Idempotency-Key'),
        404: notFound,
        409: err(`${REFUSALS} Also idempotency_in_progress: a request with this Idempotency-Key is still running.`),
        422: err('idempotency_key_reused: this Idempotency-Key was used with another body'),
      },
    },
  }, async (request) => {
    if (request.body.confirm !== true) {
      throw new AppError(400, 'confirmation_required', 'The customer must confirm the previewed cost: send confirm: true to apply the plan change');
    }
    const r = await service.apply({
      providerId: request.apiKey!.providerId,
      customerId: request.agentCustomer!.id,
      subscriptionId: request.body.subscription_id,
      planVersionId: request.body.plan_version_id,
      source: 'agent',
      actor: actorOf(request),
      requestId: String(request.id),
    });
    return {
      subscription_id: r.subscriptionId,
      plan_change_id: r.planChangeId,
      effective_date: r.effectiveDate,
      current_plan: planView(r.currentPlan),
      new_plan: planView(r.newPlan),
      one_time_adjustment: agentAdjustment(r.quote),
      ...(r.quote.note ? { note: r.quote.note } : {}),
    };
  });
};
