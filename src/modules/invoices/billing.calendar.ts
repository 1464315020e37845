// Calendar rules of service billing, free of I/O: the billing period is the calendar month (UTC),
// the billing day (1..10) only decides when in the month the invoice is sent and collected.
import { addDays, addMonths, dayOfMonth, daysInMonth, parseIsoDate } from '../../lib/dates.js';
import { divRoundHalfUp } from '../../lib/money.js';

export interface BillingDaySettings {
  billing_day: number;
  billing_day_effective_from: string | null;
  previous_billing_day: number | null;
}

/** The billing day that applies to `month` (its 1st): a change applies from its effective month on. */
export function billingDayFor(month: string, sub: BillingDaySettings): number {
  if (sub.billing_day_effective_from && month < sub.billing_day_effective_from) return sub.previous_billing_day ?? sub.billing_day;
  return sub.billing_day;
}

/** The date the invoice of `month` is sent on. */
export function billingDateFor(month: string, sub: BillingDaySettings): string {
  return dayOfMonth(month, billingDayFor(month, sub));
}

export const nextMonth = (month: string): string => addMonths(month, 1);

export function daysIn(month: string): number {
  return daysInMonth(parseIsoDate(month));
}

/** Day of month (1..31) of a YYYY-MM-DD date. */
export const dayOf = (date: string): number => Number(date.slice(8, 10));

/** Price for `days` of a month of `daysInPeriod` days, rounded half-up to cents. */
export function prorate(monthlyCents: number, days: number, daysInPeriod: number): number {
  return divRoundHalfUp(monthlyCents * days, daysInPeriod);
}

const SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "November 2026" */
export function monthLabel(month: string): string {
  return `${LONG[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;
}

/** "16–30 Nov 2026" for the days from `first` to `last` (inclusive) of one month. */
export function dayRangeLabel(first: string, last: string): string {
  return `${dayOf(first)}–${dayOf(last)} ${SHORT[Number(first.slice(5, 7)) - 1]} ${first.slice(0, 4)}`;
}

/** The last day of the month that starts at `month`. */
export const lastDayOf = (month: string): string => addDays(nextMonth(month), -1);

/** Invoices are due this many days after their invoice date. */
export const PAYMENT_TERM_DAYS = 14;
