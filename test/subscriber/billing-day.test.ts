import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { resetAllFaults, simulatorsOf } from '../../src/adapters/index.js';
import { customer, insertInvoice } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(() => t.clock.set(DEFAULT_NOW));
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

const patch = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'PATCH', url: '/subscriber/me/billing-day', headers, payload: payload as object });
const subRow = (id: string) =>
  t.db
    .selectFrom('subscriptions')
    .select(['billing_day', 'billing_day_effective_from', 'previous_billing_day'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const sendDate = (id: string) => simulatorsOf(t.deps.adapters).billingSystem.getNextInvoiceSendDate(id);

async function moneyRows(subscriptionId: string) {
  const [inv, cn, pa] = await Promise.all([
    t.db.selectFrom('invoices').select('id').where('subscription_id', '=', subscriptionId).execute(),
    t.db.selectFrom('credit_notes').select('id').where('subscription_id', '=', subscriptionId).execute(),
    t.db.selectFrom('pending_adjustments').select('id').where('subscription_id', '=', subscriptionId).execute(),
  ]);
  return { invoices: inv.length, creditNotes: cn.length, adjustments: pa.length };
}

describe('PATCH /subscriber/me/billing-day', () => {
  it('current month already invoiced: the new day applies from next month; calendar-month period unchanged, no invoice, credit note or correction results', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    const before = await moneyRows(c.subscription.id);
    const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 7 });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscription.id,
      billing_day: 7,
      effective_period: '2026-12-01',
      next_send_date: '2026-12-07',
    });
    expect(await subRow(c.subscription.id)).toEqual({ billing_day: 7, billing_day_effective_from: '2026-12-01', previous_billing_day: 1 });
    expect(await moneyRows(c.subscription.id)).toEqual(before);
    expect(await sendDate(c.subscription.id)).toBe('2026-12-07');
  });

  it('not yet invoiced and the chosen day is today or already passed: 409, nothing saved', async () => {
    t.clock.set('2026-11-05T10:00:00Z');
    const c = await customer(t);
    await t.db.updateTable('subscriptions').set({ billing_day: 8 }).where('id', '=', c.subscription.id).execute();
    for (const day of [5, 3, 1]) {
      const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: day });
      expect(r.statusCode, String(day)).toBe(409);
      expect(r.json().detail).toMatch(/not invoiced yet.*today or has already passed/);
    }
    expect(await subRow(c.subscription.id)).toEqual({ billing_day: 8, billing_day_effective_from: null, previous_billing_day: null });
    expect(await sendDate(c.subscription.id)).toBeNull();
  });

  it('not yet invoiced and the chosen day still ahead: applies to the current month', async () => {
    t.clock.set('2026-11-05T10:00:00Z');
    const c = await customer(t);
    await t.db.updateTable('subscriptions').set({ billing_day: 8 }).where('id', '=', c.subscription.id).execute();
    const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 6 });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscription.id,
      billing_day: 6,
      effective_period: '2026-11-01',
      next_send_date: '2026-11-06',
    });
    expect(await subRow(c.subscription.id)).toEqual({ billing_day: 6, billing_day_effective_from: '2026-11-01', previous_billing_day: 8 });
    expect(await moneyRows(c.subscription.id)).toEqual({ invoices: 0, creditNotes: 0, adjustments: 0 });
    expect(await sendDate(c.subscription.id)).toBe('2026-11-06');
  });

  it('answers 422 for billing_day outside 1 to 10 or not an integer, and defaults to 1 when omitted', async () => {
    const c = await customer(t);
    for (const billing_day of [0, 11, -1, 2.5, '3', null]) {
      const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day });
      expect(r.statusCode, String(billing_day)).toBe(422);
      expect(r.json().detail).toMatch(/^billing_day: /);
    }
    expect((await patch(c.headers, { subscription_id: 'nope', billing_day: 2 })).statusCode).toBe(422);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    await t.db.updateTable('subscriptions').set({ billing_day: 4 }).where('id', '=', c.subscription.id).execute();
    const d = await patch(c.headers, { subscription_id: c.subscription.id });
    expect(d.statusCode).toBe(200);
    expect(d.json().billing_day).toBe(1);
  });

  it("answers 404 for a subscription that is not the caller's (another subscriber's, or unknown)", async () => {
    const c = await customer(t);
    const other = await customer(t, { provider: c.provider });
    for (const id of [other.subscription.id, '00000000-0000-4000-8000-000000000000']) {
      const r = await patch(c.headers, { subscription_id: id, billing_day: 5 });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Subscription not found' });
    }
    expect((await subRow(other.subscription.id)).billing_day).toBe(1);
  });

  it('answers 502 when the next invoice cannot be rescheduled, with the new day still saved; repeating the request is safe', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    t.deps.adapters.billingSystem.faults.set('unreachable');
    const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 9 });
    expect(r.statusCode).toBe(502);
    expect(r.json().detail).toMatch(/billing day was saved.*retry|same request again/i);
    expect(await subRow(c.subscription.id)).toEqual({ billing_day: 9, billing_day_effective_from: '2026-12-01', previous_billing_day: 1 });
    expect(await sendDate(c.subscription.id)).toBeNull();
    t.deps.adapters.billingSystem.faults.reset();
    const again = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 9 });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      subscription_id: c.subscription.id,
      billing_day: 9,
      effective_period: '2026-12-01',
      next_send_date: '2026-12-09',
    });
    expect(await subRow(c.subscription.id)).toEqual({ billing_day: 9, billing_day_effective_from: '2026-12-01', previous_billing_day: 1 });
    expect(await sendDate(c.subscription.id)).toBe('2026-12-09');
  });

  it('a provider-billed subscription has no recurring invoice: next_send_date null, nothing to reschedule (the billing system is not called)', async () => {
    const c = await customer(t, { serviceBilled: false });
    t.deps.adapters.billingSystem.faults.set('unreachable');
    const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 3 });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ subscription_id: c.subscription.id, billing_day: 3, effective_period: '2026-12-01', next_send_date: null });
  });

  it('a subscription not installed yet (PENDING_INSTALL) takes the day from next month, without a send date; a cancelled one answers 409', async () => {
    t.clock.set('2026-11-02T10:00:00Z');
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    const r = await patch(c.headers, { subscription_id: c.subscription.id, billing_day: 2 });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ effective_period: '2026-12-01', next_send_date: null });
    const x = await customer(t, { status: 'CANCELLED' });
    const rc = await patch(x.headers, { subscription_id: x.subscription.id, billing_day: 5 });
    expect(rc.statusCode).toBe(409);
  });
});
