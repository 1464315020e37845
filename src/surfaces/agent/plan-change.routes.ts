import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf, apiKeyOf } from '../../plugins/auth.js';
import {
  AgentApplyResponse,
  AgentPreviewResponse,
  agentApplyBody,
  agentPreviewBody,
  agentTarget,
  requireConfirmed,
  requireQuoteToken,
} from '../../modules/plan-change/index.js';
import { DEMO_FIXED_IDS } from '../../demo/fixed-ids.js';
import { PlanOptionsResponse } from '../../modules/plan-change/index.js';
import { CustomerParams, IdempotencyHeaders } from './common.schemas.js';
import { isToolCall } from './tool-call.js';
import {
  requireOwnedCustomer,
  requireOwnedCustomerUnlessValid,
  requireVerifiedSession,
  verifiedRead,
  agentCustomerOf,
} from './verified-session.js';

const subscriptionId = z
  .uuid()
  .describe("The subscription to change (one of the customer's subscriptions, from GET /agent/customers/{customerId})")
  .meta({ example: DEMO_FIXED_IDS.invoiced.subscription });
const planVersionId = z
  .uuid()
  .describe('The plan version to change to: a `plan_version_id` of GET /agent/customers/{customerId}/plan-options')
  .meta({ example: DEMO_FIXED_IDS.plans.faster });

const PreviewBody = z.object({ subscription_id: subscriptionId, plan_version_id: planVersionId });

const OptionsQuery = z.object({ subscription_id: subscriptionId });

export const agentPlanChangeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.planChange;

  app.get(
    '/customers/:customerId/plan-options',
    {
      preValidation: [requireOwnedCustomer],
      preHandler: [requireVerifiedSession],
      config: { rateLimit: limit('agent.read') },
      schema: {
        operationId: 'listPlanOptions',
        tags: ['change'],
        summary: 'Plans the subscription can change to (verified)',
        params: CustomerParams,
        querystring: OptionsQuery,
        response: {
          200: PlanOptionsResponse,
        },
      },
    },
    async (request) => service.options(apiKeyOf(request).providerId, agentCustomerOf(request).id, request.query.subscription_id),
  );

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
        params: CustomerParams,
        body: PreviewBody,
        response: { 200: AgentPreviewResponse },
      },
    },
    async (request) => {
      const p = previewRead.answerOf(request)();
      const refusal = await service.refusalOf(p);
      if (refusal) throw refusal;
      return agentPreviewBody({ ...p, quote: p.quote!, quoteToken: p.quoteToken });
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
              'The `quote_token` of the preview the customer agreed to (valid 15 minutes). With it, the exact quoted change applies or nothing does (409 quote_changed, 401 quote_expired, 401 quote_invalid). Always send it: without it the change applies at the price computed now, which may differ from what the customer heard (the MCP tool requires it)',
            ),
          acknowledge_escalation: z
            .boolean()
            .optional()
            .describe(
              'Only in an operator-escalation state (the preview said escalation_required: true, no quote_token): true applies the change although no amount was computed. Send it only when an operator told you to; otherwise the answer is 409 billing_escalation and you open a ticket',
            ),
        }),
        response: {
          200: AgentApplyResponse,
        },
      },
    },
    async (request) => {
      requireConfirmed(request.body.confirm);
      // The MCP tool applies only a quoted price (apply_plan_change requires quote_token).
      if (isToolCall()) requireQuoteToken(request.body.quote_token);
      const r = await service.apply({
        ...agentTarget(apiKeyOf(request).providerId, agentCustomerOf(request).id, request.body),
        quoteToken: request.body.quote_token,
        acknowledgeEscalation: request.body.acknowledge_escalation === true,
        actor: actorOf(request),
        requestId: String(request.id),
      });
      return agentApplyBody(r, request.body.quote_token !== undefined);
    },
  );
};
