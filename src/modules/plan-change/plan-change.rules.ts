// The plan-change rules that decide a preview or an apply, free of I/O: the service feeds them
// from one snapshot (preview) or from reads under row locks (apply), so both decide alike.
import { formatCents } from '../../lib/money.js';
import type { PlanVersionRow, SubscriptionRow } from './plan-change.repository.js';
import { computeAdjustment, dueInDays, prorationFactor, type BillingState, type CalendarPosition } from './plan-change.quote.js';
import type { Quote } from './plan-change.types.js';

/** Why a plan change is not possible now; stable strings (partner preview `reasons`). */
export type Reason = 'not_active' | 'already_changed_today' | 'same_plan' | 'plan_not_available';
const REASON_ORDER: Reason[] = ['not_active', 'already_changed_today', 'same_plan', 'plan_not_available'];

const NOTES = {
  not_invoiced:
    'The current month has not been invoiced yet: the monthly invoice will reflect the new price. Nothing is charged or credited now.',
  missing_billing_document:
    'An invoice exists for the current month but its billing document is missing. This is an operator-escalation state, not an amount to quote: open a ticket for the billing team.',
  missing_invoice:
    'The billing document for the current month exists but the invoice record is missing. This is an operator-escalation state, not an amount to quote: open a ticket for the billing team.',
  provider_billed:
    'This subscription is billed by the provider, not by this service: no invoice line or credit note is issued. Only the recurring price changes.',
} as const satisfies Record<Exclude<BillingState, 'invoiced'>, string>;

const noneNote = (ownCents: number, currency: string) =>
  `The correction for the rest of the month (${formatCents(ownCents)} ${currency}, including any carried amount) is under 0.50: ` +
  'nothing is charged or credited now; it is carried into the next correction that runs.';

type Sub = NonNullable<SubscriptionRow>;

/** The reasons that forbid the change, in their fixed order (empty: the change is possible). */
export function reasonsFor(sub: Sub, currentPlan: PlanVersionRow, newPlan: PlanVersionRow, changedToday: boolean): Reason[] {
  const reasons = new Set<Reason>();
  if (sub.status !== 'ACTIVE') reasons.add('not_active');
  if (changedToday) reasons.add('already_changed_today');
  if (sub.plan_version_id === newPlan.id) reasons.add('same_plan');
  if (!newPlan.active || newPlan.currency !== currentPlan.currency) reasons.add('plan_not_available');
  return REASON_ORDER.filter((r) => reasons.has(r));
}

/** The month's billing state from whether its monthly invoice and billing document exist. */
export function billingStateOf(sub: Sub, records: { invoice: boolean; document: boolean }): BillingState {
  if (!sub.service_billed) return 'provider_billed';
  if (records.invoice && records.document) return 'invoiced';
  if (records.invoice) return 'missing_billing_document';
  if (records.document) return 'missing_invoice';
  return 'not_invoiced';
}

/** The quote of a change in a billing state, with the pending carried corrections (used only when invoiced). */
export function quoteOf(
  sub: Sub,
  currentPlan: PlanVersionRow,
  newPlan: PlanVersionRow,
  pos: CalendarPosition,
  state: BillingState,
  carried: { id: string; amount_cents: number }[],
): Quote {
  const currency = currentPlan.currency;
  if (state !== 'invoiced') {
    return { billingState: state, adjustment: null, carriedIds: [], note: NOTES[state], dueInDays: null, prorationFactor: null, currency };
  }
  const carriedCents = carried.reduce((s, r) => s + r.amount_cents, 0);
  const adjustment = computeAdjustment(currentPlan.monthly_price_cents, newPlan.monthly_price_cents, pos, carriedCents);
  return {
    billingState: state,
    adjustment,
    carriedIds: adjustment.type === 'none' ? [] : carried.map((r) => r.id),
    note: adjustment.type === 'none' ? noneNote(adjustment.ownCents + carriedCents, currency) : null,
    dueInDays: dueInDays(adjustment.type, pos, sub),
    prorationFactor: prorationFactor(pos),
    currency,
  };
}
