import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  calendarPosition,
  computeAdjustment,
  dueInDays,
  prorationFactor,
  proratedDifferenceCents,
} from '../../src/modules/plan-change/plan-change.quote.js';

const at = (iso: string) => calendarPosition(new Date(iso));

describe('plan-change quote: days count the change day, in the UTC calendar month', () => {
  it('day 16 of a 30-day month covers 15 days', () => {
    expect(at('2026-11-16T10:00:00Z')).toEqual({ today: '2026-11-16', month: '2026-11-01', dayOfMonth: 16, daysInPeriod: 30, days: 15 });
  });

  it('the first day covers the whole month and the last day covers one day', () => {
    expect(at('2027-02-01T00:00:00Z')).toMatchObject({ daysInPeriod: 28, days: 28 });
    expect(at('2028-02-29T23:59:59Z')).toMatchObject({ daysInPeriod: 29, days: 1 });
    expect(at('2026-12-31T12:00:00Z')).toMatchObject({ daysInPeriod: 31, days: 1 });
  });

  it('uses the UTC day, not the local one, around midnight', () => {
    expect(at('2026-11-30T23:30:00-02:00')).toMatchObject({ today: '2026-12-01', month: '2026-12-01', days: 31 });
  });
});

describe('plan-change quote: adjustment = (new - old) x days / days_in_period, rounded half-up to cents', () => {
  it('+10.00 on day 16 of a 30-day month is 5.00', () => {
    expect(proratedDifferenceCents(3999, 4999, at('2026-11-16T10:00:00Z'))).toBe(500);
  });

  it('a half cent rounds up (away from zero), for an upgrade and a downgrade alike', () => {
    // 10.01 x 15 / 30 = 5.005
    expect(proratedDifferenceCents(3999, 5000, at('2026-11-16T10:00:00Z'))).toBe(501);
    expect(proratedDifferenceCents(5000, 3999, at('2026-11-16T10:00:00Z'))).toBe(-501);
  });

  it('below a half cent rounds down: 10.00 x 9 / 28 = 3.2142... is 3.21', () => {
    expect(proratedDifferenceCents(2000, 3000, at('2027-02-20T08:00:00Z'))).toBe(321);
  });

  it('is exact in integer cents for any prices and day (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 28, max: 31 }),
        (o, n, d, dip) => {
          fc.pre(d <= dip);
          const pos = { days: dip - d + 1, daysInPeriod: dip };
          const cents = proratedDifferenceCents(o, n, pos);
          const exact = ((n - o) * pos.days) / dip;
          expect(Number.isInteger(cents)).toBe(true);
          expect(Math.abs(cents - exact)).toBeLessThanOrEqual(0.5);
          expect(proratedDifferenceCents(n, o, pos)).toBe(0 - cents);
          expect(Object.is(cents, -0)).toBe(false);
        },
      ),
    );
  });
});

describe('plan-change quote: type by sign, none under 0.50 with the carried correction included', () => {
  const pos = at('2026-11-16T10:00:00Z');

  it('an upgrade is a next_invoice_line, a downgrade a credit', () => {
    expect(computeAdjustment(3999, 4999, pos, 0)).toMatchObject({ type: 'next_invoice_line', amountCents: 500, carryForwardCents: 0 });
    expect(computeAdjustment(4999, 3999, pos, 0)).toMatchObject({ type: 'credit', amountCents: -500, carryForwardCents: 0 });
  });

  it('under 0.50 is none with amount 0 and the own part carried forward; exactly 0.50 is settled', () => {
    expect(computeAdjustment(3999, 4097, pos, 0)).toMatchObject({ type: 'none', amountCents: 0, ownCents: 49, carryForwardCents: 49 });
    expect(computeAdjustment(3999, 4099, pos, 0)).toMatchObject({ type: 'next_invoice_line', amountCents: 50 });
    expect(computeAdjustment(4099, 3999, pos, 0)).toMatchObject({ type: 'credit', amountCents: -50 });
  });

  it('a pending carried amount counts before the 0.50 test and is settled with the change', () => {
    // own +0.20, carried +0.45: 0.65 is settled as a line
    expect(computeAdjustment(3999, 4039, pos, 45)).toMatchObject({
      type: 'next_invoice_line',
      amountCents: 65,
      ownCents: 20,
      carriedInCents: 45,
    });
    // own -1.00, carried +0.45: -0.55 is a credit
    expect(computeAdjustment(4199, 3999, pos, 45)).toMatchObject({ type: 'credit', amountCents: -55, carriedInCents: 45 });
    // own -0.40, carried +0.45: 0.05 stays under the minimum; only the own part joins the carry
    expect(computeAdjustment(4079, 3999, pos, 45)).toMatchObject({
      type: 'none',
      amountCents: 0,
      carryForwardCents: -40,
      carriedInCents: 0,
    });
  });
});

describe('plan-change quote: deprecated fields', () => {
  it('proration_factor is days / days_in_period rounded to 4 places', () => {
    expect(prorationFactor({ days: 15, daysInPeriod: 30 })).toBe(0.5);
    expect(prorationFactor({ days: 9, daysInPeriod: 28 })).toBe(0.3214);
    expect(prorationFactor({ days: 2, daysInPeriod: 3 })).toBe(0.6667);
  });

  it("due_in_days counts to next month's invoice date for a line, 0 for a credit or none", () => {
    const pos = at('2026-11-16T10:00:00Z');
    const sub = { billing_day: 1, billing_day_effective_from: null, previous_billing_day: null };
    expect(dueInDays('next_invoice_line', pos, sub)).toBe(15); // 2026-12-01
    expect(dueInDays('next_invoice_line', pos, { ...sub, billing_day: 5 })).toBe(19); // 2026-12-05
    expect(dueInDays('next_invoice_line', pos, { billing_day: 5, billing_day_effective_from: '2027-01-01', previous_billing_day: 3 })).toBe(
      17,
    );
    expect(dueInDays('credit', pos, sub)).toBe(0);
    expect(dueInDays('none', pos, sub)).toBe(0);
  });
});
