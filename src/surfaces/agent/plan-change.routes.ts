import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf } from '../../plugins/auth.js';
import {
  ADJUSTMENT_TYPES,
  AgentApplyResponse,
  AgentPreviewResponse,
  QUOTE_RULE,
  agentApplyBody,
  agentPreviewBody,
  agentTarget,
  requireConfirmed,
} from '../../modules/plan-change/plan-change.schemas.js';
import { CustomerParams, IdempotencyHeaders, SECURITY_VERIFIED, describeRoute, err, verifiedErrors } from './common.schemas.js';
import { requireOwnedCustomer, requireOwnedCustomerUnlessValid, requireVerifiedSession, verifiedRead } from './verified-session.js';

const subscriptionId = z
  .uuid()
  .describe("The subscription to change (one of the customer's subscriptions, from GET /agent/customers/{customerId})");
const planVersionId = z.uuid().describe('The plan version to change to (an active plan version of your provider)');

const REFUSALS =
  '409 codes, each also answered by the apply call: `plan_change_limit` (the customer already changed plan today, UTC; the next ' +
  'change is possible from tomorrow; only a platform administrator can override), `subscription_not_active` (only ACTIVE ' +
  'subscriptions change plan), `same_plan` (already on this plan version), `plan_not_available` (the plan version is inactive ' +
  'or in another currency).';

const QUOTE_RULES =
  `${QUOTE_RULE} ${ADJUSTMENT_TYPES} ` +
  '`one_time_adjustment` is null with a `note` (HTTP 200) when (a) the month is not invoiced yet: the monthly invoice will reflect ' +
  "the new price; (b) the month's invoice exists but its billing document is missing, or (c) the billing document exists but the " +
  'invoice is missing: (b) and (c) are operator-escalation states, open a ticket and do not quote a number; or the subscription is ' +
  'billed by the provider: no invoice line or credit note is ever issued.';

const QUOTE_TOKEN =
  '`quote_token` is the signed quote of this preview: it binds your provider, the customer, the subscription, the current and the ' +
  'new plan version, both monthly prices, the billing state, the one-time adjustment and the day (UTC), and holds 15 minutes. ' +
  'Send it back with the apply call to apply exactly what the customer heard: the change applies only if all of it still holds.';

const refusals = err(REFUSALS);
const notFound = err(
  "customer_not_found: no such customer for your provider; not_found: the subscription is not this customer's, or the plan version is unknown or of another provider",
);

const PreviewBody = z.object({ subscription_id: subscriptionId, plan_version_id: planVersionId });

export const agentPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.planChange;

  // The preview is read with the ownership check and the session, in one statement.
  const previewRead = verifiedRead(async (request, owner) => {
    const body = request.body as z.infer<typeof PreviewBody>; // a preHandler: validated by then
    const found = await service.readOwnedPreview(agentTarget(owner.providerId, owner.customerId, body), owner.tokenHash);
    return found && { session: found.session, answer: found.preview };
  });

  app.post(
    '/customers/:customerId/plan-change/preview',
    {
      // another provider's (or an unknown) customer is 404 before the body is validated
      preValidation: [requireOwnedCustomerUnlessValid],
      preHandler: [previewRead.hook],
      config: { rateLimit: limit('agent.read') },
      schema: {
        operationId: 'previewPlanChange',
        tags: ['change'],
        summary: 'Quote a plan change for the rest of the current month (read-only)',
        description: describeRoute(
          'Step 4, before asking the customer to confirm: quotes changing `subscription_id` to `plan_version_id` today. Nothing is ' +
            `applied or written. Tell the customer the new monthly price and the one-time adjustment (or the note), then call POST ` +
            `/agent/customers/{customerId}/plan-change with confirm: true once they agree. ${QUOTE_RULES} ${REFUSALS} ` +
            `${QUOTE_TOKEN} ` +
            '`proration_factor` and `one_time_adjustment.due_in_days` are deprecated and removed in the next release: read days and days_in_period.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        body: PreviewBody,
        response: { 200: AgentPreviewResponse, ...verifiedErrors, 404: notFound, 409: refusals },
      },
    },
    async (request) => {
      const p = previewRead.answerOf(request)();
      const refusal = service.refusalOf(p);
      if (refusal) throw refusal;
      return agentPreviewBody({ ...p, quote: p.quote!, quoteToken: p.quoteToken! });
    },
  );

  app.post(
    '/customers/:customerId/plan-change',
    {
      preValidation: [requireOwnedCustomer],
      preHandler: [requireVerifiedSession, idempotent],
      config: { rateLimit: limit('agent.write') },
      schema: {
        operationId: 'applyPlanChange',
        tags: ['change'],
        summary: 'Apply a plan change now, after the customer confirmed the previewed cost',
        description: describeRoute(
          'Applies the change immediately (a real, billing-affecting change; no sandbox). Send `confirm: true` only after ' +
            'the customer heard the preview and agreed; without it the answer is 400 confirmation_required and nothing changes. ' +
            'The adjustment is computed again at apply time with the same rules as the preview. Once per customer per UTC calendar ' +
            `day. ${REFUSALS} An audit entry is written in the same transaction as the change. Send an Idempotency-Key to make a ` +
            'retry after a network error safe (same key and body within 24 h replays the first answer). ' +
            'With `quote_token` (from the preview) the call applies exactly the quoted change, or changes nothing and answers 409 ' +
            'quote_changed (the price, the billing state or the day moved: preview again and ask the customer again), 401 quote_expired ' +
            '(older than 15 minutes: preview again) or 401 quote_invalid (altered, or issued for another customer, subscription or plan). ' +
            "Without it the change applies at today's computed price, as before. The customer's contract email then receives a " +
            'change-confirmation mail with a rollback link (24 hours, single use) that restores the previous plan; the change itself ' +
            'applies immediately and does not wait for the mail.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        headers: IdempotencyHeaders,
        body: z.object({
          subscription_id: subscriptionId,
          plan_version_id: planVersionId,
          confirm: z
            .boolean()
            .nullish()
            .describe('Must be true: the customer confirmed the previewed cost. Missing, null or false answers 400 confirmation_required'),
          quote_token: z
            .string()
            .min(1)
            .max(4096)
            .optional()
            .describe(
              'Optional: the `quote_token` of the preview the customer agreed to (valid 15 minutes). With it, the exact quoted change applies or nothing does (409 quote_changed, 401 quote_expired, 401 quote_invalid)',
            ),
        }),
        response: {
          200: AgentApplyResponse,
          ...verifiedErrors,
          401: err(
            'verification_required (no X-Verified-Session) or session_invalid (unknown, malformed or expired session): verify the caller again; quote_expired: the quote_token is older than 15 minutes (preview again, confirm the new quote with the customer); quote_invalid: the quote_token was altered or issued for another customer, subscription or plan version (preview again)',
          ),
          400: err(
            'confirmation_required: confirm was not true (ask the customer, then send confirm: true); validation_error: the request failed its schema (`details` names each field); bad_request: malformed Idempotency-Key',
          ),
          404: notFound,
          409: err(
            `${REFUSALS} Also idempotency_in_progress: a request with this Idempotency-Key is still running; quote_changed: the price, the billing state or the day moved since the quote_token's preview, nothing was applied (preview again and confirm the new quote with the customer).`,
          ),
          422: err('idempotency_key_reused: this Idempotency-Key was used with another body'),
        },
      },
    },
    async (request) => {
      requireConfirmed(request.body.confirm);
      const r = await service.apply({
        ...agentTarget(request.apiKey!.providerId, request.agentCustomer!.id, request.body),
        quoteToken: request.body.quote_token,
        actor: actorOf(request),
        requestId: String(request.id),
      });
      return agentApplyBody(r);
    },
  );
};
