// The response shapes of both surfaces, built from one service result.
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import type { PlanVersionRow } from './plan-change.repository.js';
import type { ApplyResult, PlanChangeTarget, PreviewResult, Quote } from './plan-change.service.js';

const Money = z.string().regex(/^\d+\.\d{2}$/);

const PlanView = z
  .object({
    plan_version_id: z.uuid().describe('The plan version id'),
    name: z.string().describe('Plan name as shown to the customer'),
    monthly_price: Money.describe('Recurring monthly price, decimal string with two places').meta({ examples: ['39.99'] }),
    currency: z.string().length(3).describe('ISO 4217 currency of monthly_price'),
  })
  .describe('A plan version');

/** The quote rule, the one text every description of the one-time adjustment uses. */
export const QUOTE_RULE =
  'The one-time adjustment covers the rest of the current UTC calendar month: (new - old monthly price) x days / days_in_period, ' +
  'days = days_in_period - day_of_month + 1 (the change day is billed at the new price), rounded half-up to cents, ' +
  'plus any correction carried from an earlier change.';

/** What each adjustment type means. */
export const ADJUSTMENT_TYPES =
  '`next_invoice_line`: upgrade, nothing charged today, a labelled line on the next monthly invoice. `credit`: downgrade, a credit ' +
  'note issued now and applied to the next invoice. `none`: the correction is under 0.50, skipped (amount 0.00) and carried into ' +
  'the next correction that runs (a pending carried amount is included before the 0.50 test).';

const adjustmentFields = {
  type: z.enum(['next_invoice_line', 'credit', 'none']).describe(ADJUSTMENT_TYPES),
  amount: Money.describe('Unsigned amount of the line or credit; "0.00" when type is none').meta({ examples: ['5.00'] }),
  currency: z.string().length(3).describe('ISO 4217 currency of amount'),
  days: z
    .number()
    .int()
    .describe(
      'Days of the current calendar month the adjustment covers: days_in_period - day_of_month + 1 (the change day is billed at the new price)',
    ),
  days_in_period: z.number().int().describe('Days in the current calendar month (UTC)'),
};

export const AgentAdjustment = z
  .object({
    ...adjustmentFields,
    due_in_days: z
      .number()
      .int()
      .describe(
        'DEPRECATED, removed in the next release: read type, days and days_in_period. next_invoice_line: days from the change day to the next monthly invoice date; credit and none: 0 (nothing is due later).',
      )
      .meta({ deprecated: true }),
  })
  .describe(QUOTE_RULE);

export const PartnerAdjustment = z.object(adjustmentFields).describe(QUOTE_RULE);

const planView = (p: PlanVersionRow) => ({
  plan_version_id: p.id,
  name: p.name,
  monthly_price: formatCents(p.monthly_price_cents),
  currency: p.currency,
});

function adjustmentBase(q: Quote) {
  const a = q.adjustment!;
  return { type: a.type, amount: formatCents(Math.abs(a.amountCents)), currency: q.currency, days: a.days, days_in_period: a.daysInPeriod };
}

const agentAdjustment = (q: Quote): z.infer<typeof AgentAdjustment> | null =>
  q.adjustment ? { ...adjustmentBase(q), due_in_days: q.dueInDays ?? 0 } : null;

const partnerAdjustment = (q: Quote | null): z.infer<typeof PartnerAdjustment> | null => (q?.adjustment ? adjustmentBase(q) : null);

// /agent ---------------------------------------------------------------------------------------

const ADJUSTMENT_NULL =
  'null (HTTP 200, with `note`) when no number is quoted: (a) the current month is not invoiced yet, so the monthly invoice will reflect the new price; ' +
  '(b) an invoice exists for the month but its billing document is missing, or (c) the billing document exists but the invoice record is missing: ' +
  '(b) and (c) are operator-escalation states (open a ticket, do not quote an amount); or the subscription is billed by the provider (no invoice line or credit note is ever issued).';

export const AgentPreviewResponse = z.object({
  subscription_id: z.uuid(),
  current_plan: PlanView.describe('The plan in force now'),
  new_plan: PlanView.describe('The plan after the change'),
  effective_date: z.iso.date().describe('The change applies today (UTC calendar day); it is billed at the new price from this day'),
  one_time_adjustment: AgentAdjustment.nullable().describe(ADJUSTMENT_NULL),
  proration_factor: z
    .number()
    .nullable()
    .describe(
      'DEPRECATED, removed in the next release: read one_time_adjustment.days and days_in_period. days / days_in_period rounded to 4 places; null when one_time_adjustment is null.',
    )
    .meta({ deprecated: true }),
  note: z.string().optional().describe('Present when one_time_adjustment is null (why, and what to tell the customer) or its type is none'),
  quote_token: z
    .string()
    .describe(
      'The signed quote (valid 15 minutes): send it as `quote_token` with POST .../plan-change so that exactly this change applies, or nothing does ' +
        '(409 quote_changed when the price, the billing state or the day moved). Opaque: do not parse it.',
    ),
});

export const AgentApplyResponse = z.object({
  subscription_id: z.uuid(),
  plan_change_id: z.uuid().describe('Id of the recorded plan change'),
  effective_date: z.iso.date().describe('The day the change took effect (today, UTC)'),
  current_plan: PlanView.describe('The plan before the change'),
  new_plan: PlanView.describe('The plan now in force'),
  one_time_adjustment: AgentAdjustment.nullable().describe(ADJUSTMENT_NULL),
  note: z.string().optional().describe('Present when one_time_adjustment is null or its type is none'),
});

export function agentPreviewBody(p: PreviewResult & { quote: Quote; quoteToken: string }) {
  return {
    subscription_id: p.subscriptionId,
    current_plan: planView(p.currentPlan),
    new_plan: planView(p.newPlan),
    effective_date: p.effectiveDate,
    one_time_adjustment: agentAdjustment(p.quote),
    proration_factor: p.quote.prorationFactor,
    ...(p.quote.note ? { note: p.quote.note } : {}),
    quote_token: p.quoteToken,
  };
}

/** The ids of an /agent plan-change body (preview or apply), as its schema validated them. */
export interface AgentPlanChangeIds {
  subscription_id: string;
  plan_version_id: string;
}

/** The change an /agent call (HTTP or MCP) names: the body's ids for the verified customer. */
export const agentTarget = (
  providerId: string,
  customerId: string,
  body: AgentPlanChangeIds,
): PlanChangeTarget & { customerId: string; source: 'agent' } => ({
  providerId,
  customerId,
  subscriptionId: body.subscription_id,
  planVersionId: body.plan_version_id,
  source: 'agent',
});

/** The apply's answer, the same from the /agent route and its MCP tool. */
export function agentApplyBody(r: ApplyResult) {
  return {
    subscription_id: r.subscriptionId,
    plan_change_id: r.planChangeId,
    effective_date: r.effectiveDate,
    current_plan: planView(r.currentPlan),
    new_plan: planView(r.newPlan),
    one_time_adjustment: agentAdjustment(r.quote),
    ...(r.quote.note ? { note: r.quote.note } : {}),
  };
}

/** The /agent apply (route and MCP tool) applies only what the customer confirmed. */
export function requireConfirmed(confirm: unknown) {
  if (confirm !== true) {
    throw new AppError(
      400,
      'confirmation_required',
      'The customer must confirm the previewed cost: send confirm: true to apply the plan change',
    );
  }
}

// partner --------------------------------------------------------------------------------------

export const PartnerPreviewResponse = z.object({
  eligible: z.boolean().describe('true when POST /partner/subscriptions/{id}/change-plan with this plan_version_id would apply now'),
  reasons: z
    .array(z.enum(['not_active', 'already_changed_today', 'same_plan', 'plan_not_available']))
    .describe(
      'Why not eligible (empty when eligible). `not_active`: the subscription is not ACTIVE. `already_changed_today`: this subscription already changed plan this UTC calendar day (through the partner API, the support agent or a platform administrator); possible again from tomorrow. `same_plan`: already on this plan version. `plan_not_available`: the plan version is inactive or priced in another currency.',
    ),
  current_plan: PlanView.describe('The plan in force now'),
  new_plan: PlanView.describe('The plan asked about'),
  one_time_adjustment: PartnerAdjustment.nullable().describe(
    'null when not eligible, or (with `note`) when no number is quoted: the month is not invoiced yet (the monthly invoice reflects the new price), ' +
      "an operator-escalation state of the month's billing records, or a subscription billed by the provider (no invoice line or credit note is issued)",
  ),
  note: z.string().nullable().describe('Why one_time_adjustment is null or none; null otherwise'),
});

export const PartnerChangeResponse = z.object({
  subscription_id: z.uuid(),
  plan_version_id: z.uuid().describe('The plan version now in force'),
  bandwidth_updated: z
    .boolean()
    .describe(
      'true: the switch applied the new bandwidth. false: the change applied and the port needs operator confirmation (or the switch did not answer in time and a retry runs in the background); not a reason to retry the request',
    ),
  effective_date: z.iso.date().describe('The day the change took effect (today, UTC)'),
});

export function partnerPreviewBody(p: PreviewResult) {
  return {
    eligible: p.reasons.length === 0,
    reasons: p.reasons,
    current_plan: planView(p.currentPlan),
    new_plan: planView(p.newPlan),
    one_time_adjustment: partnerAdjustment(p.quote),
    note: p.quote?.note ?? null,
  };
}
