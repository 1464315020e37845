// The money side of a cancellation, free of I/O. ended_at is exclusive (the first day without
// service); the calendar month quoted is the month of the end date.
import { addDays, monthStart, parseIsoDate, isoDate } from '../../lib/dates.js';
import { formatCents } from '../../lib/money.js';
import {
  billingDateFor,
  type BillingDaySettings,
  dayOf,
  dayRangeLabel,
  daysIn,
  lastDayOf,
  monthLabel,
  prorate,
} from '../invoices/index.js';

export interface QuoteLine {
  kind: 'unused_days_credit' | 'final_month' | 'pending_adjustment';
  description: string;
  amount_cents: number;
}

export interface QuoteInput extends BillingDaySettings {
  status: string;
  service_billed: boolean;
  plan_name: string;
  monthly_price_cents: number;
  activated_at: Date | null;
}

/**
 * - provider-billed: no lines, month_invoiced null;
 * - the end month already invoiced: a credit for the unused days (end date to month end), issued
 *   as an open credit note when the cancellation is made;
 * - not yet invoiced: the final month's invoice bills the used days (month start to the day before
 *   the end date) on the month's billing day;
 * - pending plan-change lines are billed on that final invoice (or a closing invoice).
 * A subscription not yet in service (PENDING_INSTALL) has no subscription money lines.
 */
export function cancellationLines(
  sub: QuoteInput,
  endDate: string,
  monthInvoiced: boolean,
  pending: { kind: string; amount_cents: number; description: string }[],
): { month: string; monthInvoiced: boolean | null; lines: QuoteLine[] } {
  const month = monthStart(parseIsoDate(endDate));
  if (!sub.service_billed) return { month, monthInvoiced: null, lines: [] };
  const lines: QuoteLine[] = [];
  const dim = daysIn(month);
  const inService = sub.status === 'ACTIVE' || sub.status === 'SUSPENDED';
  if (inService) {
    if (monthInvoiced) {
      const unused = dim - dayOf(endDate) + 1;
      const credit = prorate(sub.monthly_price_cents, unused, dim);
      if (credit > 0)
        lines.push({
          kind: 'unused_days_credit',
          description: `Credit for unused days, ${dayRangeLabel(endDate, lastDayOf(month))}`,
          amount_cents: -credit,
        });
    } else {
      const used = dayOf(endDate) - 1;
      const startsLater = sub.activated_at !== null && isoDate(sub.activated_at) > billingDateFor(month, sub);
      if (used > 0 && !startsLater) {
        lines.push({
          kind: 'final_month',
          description: `${sub.plan_name}, ${dayRangeLabel(month, addDays(endDate, -1))} (pro rata, on the invoice of ${monthLabel(month)})`,
          amount_cents: prorate(sub.monthly_price_cents, used, dim),
        });
      }
    }
  }
  for (const p of pending) {
    if (p.kind === 'upgrade_line') lines.push({ kind: 'pending_adjustment', description: p.description, amount_cents: p.amount_cents });
  }
  return { month, monthInvoiced, lines };
}

export const presentLine = (l: QuoteLine, currency: string) => ({
  kind: l.kind,
  description: l.description,
  amount: formatCents(l.amount_cents),
  currency,
});
