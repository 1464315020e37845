// The billing rule of a plan change, free of I/O: calendar in UTC, money in integer cents.
import { addMonths, daysInMonth, dayOfMonth, isoDate, monthStart, parseIsoDate } from '../../lib/dates.js';
import { divRoundHalfUp } from '../../lib/money.js';
import { billingDayFor, MIN_CORRECTION_CENTS, type BillingDaySettings } from '../invoices/index.js';

/**
 * What the billing records say about the current calendar month of a service-billed subscription:
 * - `invoiced`: the monthly invoice and its billing document both exist (a number can be quoted);
 * - `not_invoiced`: neither exists yet (case a: the monthly invoice will carry the new price);
 * - `missing_billing_document`: the invoice exists, its billing document does not (case b);
 * - `missing_invoice`: the billing document exists, the invoice record does not (case c).
 * `provider_billed` is a subscription this service never invoices (service_billed = false).
 */
export type BillingState = 'invoiced' | 'not_invoiced' | 'missing_billing_document' | 'missing_invoice' | 'provider_billed';

export type AdjustmentType = 'next_invoice_line' | 'credit' | 'none';

export interface CalendarPosition {
  /** The change day, YYYY-MM-DD (UTC). */
  today: string;
  /** The current calendar month, as its 1st. */
  month: string;
  dayOfMonth: number;
  daysInPeriod: number;
  /** Days of the month from the change day to the month's end, the change day included. */
  days: number;
}

export function calendarPosition(now: Date): CalendarPosition {
  const daysInPeriod = daysInMonth(now);
  const dom = now.getUTCDate();
  return { today: isoDate(now), month: monthStart(now), dayOfMonth: dom, daysInPeriod, days: daysInPeriod - dom + 1 };
}

/** The prorated price difference for the rest of the month, rounded half-up to cents. */
export function proratedDifferenceCents(
  oldPriceCents: number,
  newPriceCents: number,
  pos: Pick<CalendarPosition, 'days' | 'daysInPeriod'>,
): number {
  const cents = divRoundHalfUp((newPriceCents - oldPriceCents) * pos.days, pos.daysInPeriod);
  return cents === 0 ? 0 : cents; // never -0
}

export interface Adjustment {
  type: AdjustmentType;
  /** Signed cents this change settles now (upgrade positive, downgrade negative); 0 for `none`. */
  amountCents: number;
  /** This change's own prorated difference, before any carried correction. */
  ownCents: number;
  /** The carried corrections (sum) included in `amountCents`; 0 when none was pending. */
  carriedInCents: number;
  /** Signed cents to carry forward when the total stays under the minimum (`none`); else 0. */
  carryForwardCents: number;
  days: number;
  daysInPeriod: number;
}

/**
 * The one-time adjustment of an invoiced month. Pending carried corrections are part of the total
 * before the 0.50 test: a correction that runs settles everything carried so far; a total under
 * 0.50 is skipped again and this change's own part joins the carry.
 */
export function computeAdjustment(oldPriceCents: number, newPriceCents: number, pos: CalendarPosition, carriedCents: number): Adjustment {
  const ownCents = proratedDifferenceCents(oldPriceCents, newPriceCents, pos);
  const total = ownCents + carriedCents;
  const base = { ownCents, days: pos.days, daysInPeriod: pos.daysInPeriod };
  if (Math.abs(total) < MIN_CORRECTION_CENTS) {
    return { ...base, type: 'none', amountCents: 0, carriedInCents: 0, carryForwardCents: ownCents };
  }
  return {
    ...base,
    type: total > 0 ? 'next_invoice_line' : 'credit',
    amountCents: total,
    carriedInCents: carriedCents,
    carryForwardCents: 0,
  };
}

/** Deprecated `proration_factor`: days / days_in_period rounded to 4 places. */
export function prorationFactor(pos: Pick<CalendarPosition, 'days' | 'daysInPeriod'>): number {
  return Math.round((pos.days / pos.daysInPeriod) * 10_000) / 10_000;
}

/**
 * Deprecated `due_in_days`: when the adjustment reaches the customer. A `next_invoice_line` is due
 * with next month's invoice (days from the change day to that invoice's date); a `credit` is
 * credited at once (0); `none` settles nothing now (0).
 */
export function dueInDays(type: AdjustmentType, pos: CalendarPosition, sub: BillingDaySettings): number {
  if (type !== 'next_invoice_line') return 0;
  const next = addMonths(pos.month, 1);
  const invoiceDate = dayOfMonth(next, billingDayFor(next, sub));
  return Math.round((parseIsoDate(invoiceDate).getTime() - parseIsoDate(pos.today).getTime()) / 86_400_000);
}
