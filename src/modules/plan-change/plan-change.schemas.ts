// The response shapes of both surfaces, built from one service result.
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import type { PlanVersionRow } from './plan-change.repository.js';
import { isEscalation, type ApplyResult, type PlanChangeTarget, type PreviewResult, type Quote } from './plan-change.service.js';

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
      // Deprecated: always sent, but optional in the document, so examples and new clients leave it out.
      .meta({ deprecated: true })
      .optional(),
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
    .meta({ deprecated: true })
    .optional(),
  note: z.string().optional().describe('Present when one_time_adjustment is null (why, and what to tell the customer) or its type is none'),
  escalation_required: z
    .boolean()
    .describe(
      'true in the operator-escalation states (b) and (c): no amount was computed, no quote_token is issued and the apply answers 409 ' +
        'billing_escalation. Do not quote a price: open a ticket for the billing team (the create-ticket operation).',
    ),
  quote_token: z
    .string()
    .nullable()
    .describe(
      'The signed quote (valid 15 minutes): send it as `quote_token` with POST .../plan-change so that exactly this change applies, or nothing does ' +
        '(409 quote_changed when the price, the billing state or the day moved). Opaque: do not parse it. null when escalation_required is true.',
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
  charge_summary: z
    .string()
    .describe('What was charged or credited by this change and the new monthly price, in words to tell the customer'),
  quote_matched: z
    .boolean()
    .nullable()
    .describe(
      'true: a quote_token was sent and the change applied exactly as quoted. null: no quote_token was sent, so the change applied at ' +
        'the price computed now (the one in one_time_adjustment and charge_summary), which may differ from an earlier preview.',
    ),
});

export function agentPreviewBody(p: PreviewResult & { quote: Quote; quoteToken: string | null }) {
  return {
    subscription_id: p.subscriptionId,
    current_plan: planView(p.currentPlan),
    new_plan: planView(p.newPlan),
    effective_date: p.effectiveDate,
    one_time_adjustment: agentAdjustment(p.quote),
    proration_factor: p.quote.prorationFactor,
    ...(p.quote.note ? { note: p.quote.note } : {}),
    escalation_required: isEscalation(p.quote),
    quote_token: p.quoteToken,
  };
}

/** What an applied change charged or credited, in words (the apply's `charge_summary`). */
function chargeSummary(r: ApplyResult): string {
  const q = r.quote;
  const price = `The new monthly price is ${formatCents(r.newPlan.monthly_price_cents)} ${r.newPlan.currency} from ${r.effectiveDate}.`;
  const amount = q.adjustment ? `${formatCents(Math.abs(q.adjustment.amountCents))} ${q.currency}` : '';
  switch (q.adjustment?.type ?? q.billingState) {
    case 'next_invoice_line':
      return `Nothing was charged today: ${amount} for the rest of this month will be a line on the next monthly invoice. ${price}`;
    case 'credit':
      return `A credit of ${amount} for the rest of this month was issued now and is applied to the next invoice. ${price}`;
    case 'none':
      return `Nothing was charged or credited: the correction is under 0.50 and carried into the next one. ${price}`;
    case 'not_invoiced':
      return `Nothing was charged or credited now: this month's invoice, not yet issued, will reflect the new price. ${price}`;
    case 'provider_billed':
      return `Nothing was charged or credited here: the provider bills this subscription. ${price}`;
    default:
      return `No amount was computed (this month's billing records are incomplete): the billing team settles this month. ${price}`;
  }
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

/** The apply's answer, the same from the /agent route and its MCP tool (`quoteSent`: a quote_token came with it). */
export function agentApplyBody(r: ApplyResult, quoteSent: boolean) {
  return {
    subscription_id: r.subscriptionId,
    plan_change_id: r.planChangeId,
    effective_date: r.effectiveDate,
    current_plan: planView(r.currentPlan),
    new_plan: planView(r.newPlan),
    one_time_adjustment: agentAdjustment(r.quote),
    ...(r.quote.note ? { note: r.quote.note } : {}),
    charge_summary: chargeSummary(r),
    // An apply with a token that did not match was refused (409 quote_changed): one that answers matched.
    quote_matched: quoteSent ? true : null,
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

/** The MCP apply tool applies only a quoted price. */
export function requireQuoteToken(token: unknown) {
  if (typeof token !== 'string' || token.length === 0) {
    throw new AppError(
      400,
      'quote_required',
      'apply_plan_change needs the quote_token of the preview the customer agreed to: preview, tell the customer the price, then apply with it',
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
