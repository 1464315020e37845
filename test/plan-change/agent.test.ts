import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createSubscriber } from '../helpers/factories.js';
import { recordStatements } from '../helpers/statements.js';
import { sha256 } from '../../src/lib/crypto.js';
import { ownedPreviewSnapshot } from '../../src/modules/plan-change/plan-change.repository.js';
import { createCustomer, createVerifiedSession, createWorld, setMonthRecords, writeCounts, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let other: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
  other = await createWorld(t.db);
});
afterAll(() => t.close());
afterEach(() => t.clock.set('2026-11-16T10:00:00.000Z'));

/** A customer with a verified session, ready for the two plan-change calls. */
async function verifiedCustomer(world: World = w, o: Parameters<typeof createCustomer>[2] = {}) {
  const c = await createCustomer(t.db, world, o);
  const session = await createVerifiedSession(t.db, world.provider.id, c.subscriberId, t.clock.now(), 30 * 24 * 3600_000);
  return { ...c, session };
}
type Customer = Awaited<ReturnType<typeof verifiedCustomer>>;

const call = (
  path: 'plan-change/preview' | 'plan-change',
  c: Pick<Customer, 'subscriberId' | 'session'>,
  body: Record<string, unknown>,
  o: { key?: string | null; headers?: Record<string, string>; session?: string | null } = {},
) =>
  t.app.inject({
    method: 'POST',
    url: `/agent/customers/${c.subscriberId}/${path}`,
    headers: {
      ...(o.key === null ? {} : { 'x-api-key': o.key ?? w.provider.apiKey }),
      ...(o.session === null ? {} : { 'x-verified-session': o.session ?? c.session }),
      ...o.headers,
    },
    payload: body,
  });
const preview = (c: Customer, planVersionId: string, o: Parameters<typeof call>[3] = {}) =>
  call('plan-change/preview', c, { subscription_id: c.subscriptionId, plan_version_id: planVersionId }, o);
const OMIT = Symbol('omit confirm');
const apply = (c: Customer, planVersionId: string, confirm: unknown = true, o: Parameters<typeof call>[3] = {}) =>
  call(
    'plan-change',
    c,
    { subscription_id: c.subscriptionId, plan_version_id: planVersionId, ...(confirm === OMIT ? {} : { confirm }) },
    o,
  );

const pendingOf = (subscriptionId: string) =>
  t.db.selectFrom('pending_adjustments').selectAll().where('subscription_id', '=', subscriptionId).orderBy('created_at').execute();
const changesOf = (subscriptionId: string) =>
  t.db.selectFrom('plan_changes').selectAll().where('subscription_id', '=', subscriptionId).orderBy('created_at').execute();
const plan = (p: { id: string; name: string; priceCents: number }) => ({
  plan_version_id: p.id,
  name: p.name,
  monthly_price: (p.priceCents / 100).toFixed(2),
  currency: 'EUR',
});

describe('agent plan-change preview: quote for the rest of the month, nothing written', () => {
  it('an upgrade of +10.00 on day 16 of a 30-day month quotes a 5.00 next_invoice_line, with the deprecated fields', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const before = await writeCounts(t.db);
    const r = await preview(c, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscriptionId,
      current_plan: plan(w.plans.fast),
      new_plan: plan(w.plans.faster),
      effective_date: '2026-11-16',
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00', currency: 'EUR', days: 15, days_in_period: 30, due_in_days: 15 },
      proration_factor: 0.5,
      escalation_required: false,
      quote_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(await writeCounts(t.db)).toEqual(before);
  });

  it('a downgrade quotes a credit now (due_in_days 0); a half cent rounds up', async () => {
    const pricey = await createPlanVersion(t.db, w.provider.id, { name: 'Pricey', priceCents: 5000 });
    const c = await verifiedCustomer(w, { records: 'invoiced', planVersionId: pricey.id });
    const r = await preview(c, w.plans.fast.id);
    expect(r.json().one_time_adjustment).toEqual({
      type: 'credit',
      amount: '5.01',
      currency: 'EUR',
      days: 15,
      days_in_period: 30,
      due_in_days: 0,
    });
    expect(r.json().proration_factor).toBe(0.5);
  });

  it('rounds on the calendar month: 10.00 x 9 / 28 on 20 February is 3.21, proration_factor 0.3214', async () => {
    t.clock.set('2027-02-20T09:00:00Z');
    const lo = await createPlanVersion(t.db, w.provider.id, { name: 'Lo', priceCents: 2000 });
    const hi = await createPlanVersion(t.db, w.provider.id, { name: 'Hi', priceCents: 3000 });
    const c = await verifiedCustomer(w, { records: 'invoiced', month: '2027-02-01', planVersionId: lo.id });
    const r = await preview(c, hi.id);
    expect(r.json()).toMatchObject({
      effective_date: '2027-02-20',
      one_time_adjustment: { type: 'next_invoice_line', amount: '3.21', days: 9, days_in_period: 28, due_in_days: 9 },
      proration_factor: 0.3214,
    });
  });

  it('answers one_time_adjustment null with a note in the three billing-record cases, and for a provider-billed subscription', async () => {
    const cases = [
      {
        records: 'not_invoiced' as const,
        note: /not been invoiced yet: the monthly invoice will reflect the new price/,
        escalation: false,
      },
      {
        records: 'missing_billing_document' as const,
        note: /invoice exists .* billing document is missing\. This is an operator-escalation state/,
        escalation: true,
      },
      {
        records: 'missing_invoice' as const,
        note: /billing document .* exists but the invoice record is missing\. This is an operator-escalation state/,
        escalation: true,
      },
    ];
    for (const k of cases) {
      const c = await verifiedCustomer(w, { records: k.records });
      const before = await writeCounts(t.db);
      const r = await preview(c, w.plans.faster.id);
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body).toMatchObject({ subscription_id: c.subscriptionId, one_time_adjustment: null, proration_factor: null });
      expect(body.note).toMatch(k.note);
      // An escalation state has no price to bind: no quote token (issue 31 §2).
      expect({ records: k.records, escalation: body.escalation_required, token: body.quote_token === null }).toEqual({
        records: k.records,
        escalation: k.escalation,
        token: k.escalation,
      });
      expect(await writeCounts(t.db)).toEqual(before);
    }
    const provider = await verifiedCustomer(w, { records: 'invoiced', serviceBilled: false });
    const r = await preview(provider, w.plans.faster.id);
    expect(r.json()).toMatchObject({ one_time_adjustment: null, proration_factor: null });
    expect(r.json().note).toMatch(/billed by the provider, not by this service: no invoice line or credit note is issued/);
  });

  it("a month invoiced in an earlier month does not count: only the current calendar month's records decide", async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced', month: '2026-10-01' });
    const r = await preview(c, w.plans.faster.id);
    expect(r.json().one_time_adjustment).toBeNull();
    expect(r.json().note).toMatch(/not been invoiced yet/);
  });
});

describe('agent plan-change: a correction under 0.50 is none and is carried into the next correction', () => {
  it('day 16: +0.90 x 15/30 = 0.45 is none (0.00) and carried; day 17: +0.10 x 14/30 = 0.05 plus 0.45 is a 0.50 line that settles the carry', async () => {
    const p4089 = await createPlanVersion(t.db, w.provider.id, { name: 'Fast Plus', priceCents: 4089 });
    const p4099 = await createPlanVersion(t.db, w.provider.id, { name: 'Fast Plus Plus', priceCents: 4099 });
    const c = await verifiedCustomer(w, { records: 'invoiced' });

    const q1 = await preview(c, p4089.id);
    expect(q1.json().one_time_adjustment).toEqual({
      type: 'none',
      amount: '0.00',
      currency: 'EUR',
      days: 15,
      days_in_period: 30,
      due_in_days: 0,
    });
    expect(q1.json().note).toMatch(/under 0\.50/);
    const a1 = await apply(c, p4089.id);
    expect(a1.statusCode).toBe(200);
    expect(a1.json().one_time_adjustment).toMatchObject({ type: 'none', amount: '0.00' });
    const [carry] = await pendingOf(c.subscriptionId);
    const [pc1] = await changesOf(c.subscriptionId);
    expect(carry).toMatchObject({
      kind: 'carried_correction',
      amount_cents: 45,
      status: 'pending',
      plan_change_id: pc1!.id,
      folded_into_plan_change_id: null,
    });
    expect(pc1).toMatchObject({ adjustment_type: 'none', adjustment_cents: 0 });
    expect(await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(0);

    t.clock.set('2026-11-17T08:00:00Z');
    const q2 = await preview(c, p4099.id);
    expect(q2.json().one_time_adjustment).toEqual({
      type: 'next_invoice_line',
      amount: '0.50',
      currency: 'EUR',
      days: 14,
      days_in_period: 30,
      due_in_days: 14,
    });
    const a2 = await apply(c, p4099.id);
    expect(a2.statusCode).toBe(200);
    const pcs = await changesOf(c.subscriptionId);
    expect(pcs[1]).toMatchObject({ adjustment_type: 'next_invoice_line', adjustment_cents: 50 });
    const rows = await pendingOf(c.subscriptionId);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.kind === 'carried_correction')).toMatchObject({
      status: 'applied',
      folded_into_plan_change_id: pcs[1]!.id,
      applied_invoice_id: null,
    });
    const line = rows.find((r) => r.kind === 'upgrade_line')!;
    expect(line).toMatchObject({ amount_cents: 50, status: 'pending', plan_change_id: pcs[1]!.id });
    expect(line.description).toContain('includes carried correction 0.45 EUR');
  });

  it("a carried amount that keeps the total under 0.50 stays pending and this change's own part joins it", async () => {
    const p4079 = await createPlanVersion(t.db, w.provider.id, { name: 'Fast 79', priceCents: 4079 });
    const p4039 = await createPlanVersion(t.db, w.provider.id, { name: 'Fast 39', priceCents: 4039 });
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    expect((await apply(c, p4079.id)).statusCode).toBe(200); // +0.80 x 15/30 = 0.40 carried
    t.clock.set('2026-11-18T08:00:00Z'); // 13 days: -0.40 x 13/30 = -0.17; total 0.23
    const r = await apply(c, p4039.id);
    expect(r.json().one_time_adjustment).toMatchObject({ type: 'none', amount: '0.00', days: 13 });
    const rows = await pendingOf(c.subscriptionId);
    expect(rows.map((x) => [x.kind, x.amount_cents, x.status])).toEqual([
      ['carried_correction', 40, 'pending'],
      ['carried_correction', -17, 'pending'],
    ]);
  });

  it('a downgrade settles every carried amount in its credit note: -2.64 + 0.40 - 0.67 = a 2.91 credit', async () => {
    const p4079 = await createPlanVersion(t.db, w.provider.id, { name: 'Fast 79b', priceCents: 4079 });
    const p3879 = await createPlanVersion(t.db, w.provider.id, { name: 'Slow 79', priceCents: 3879 });
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    await apply(c, p4079.id); // 0.40 carried
    t.clock.set('2026-11-21T08:00:00Z'); // 10 days: -2.00 x 10/30 = -0.67; with the carried 0.40, -0.27: none again
    expect((await apply(c, p3879.id)).json().one_time_adjustment.type).toBe('none');
    t.clock.set('2026-11-22T08:00:00Z'); // 9 days: -8.80 x 9/30 = -2.64; with both carried (0.40 - 0.67), -2.91
    const r = await apply(c, w.plans.basic.id);
    expect(r.json().one_time_adjustment).toMatchObject({ type: 'credit', amount: '2.91', days: 9 });
    const notes = await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ state: 'open', amount_cents: 291 });
    const rows = await pendingOf(c.subscriptionId);
    expect(rows.every((x) => x.status === 'applied')).toBe(true);
    expect(rows).toHaveLength(2);
  });
});

describe('agent plan-change apply: confirmation-gated, applied in one transaction', () => {
  it('without confirm: true answers 400 confirmation_required and writes nothing', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const before = await writeCounts(t.db);
    for (const confirm of [OMIT, false, null]) {
      const r = await apply(c, w.plans.faster.id, confirm);
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual({
        error: { code: 'confirmation_required', message: expect.stringContaining('confirm: true'), request_id: r.headers['x-request-id'] },
      });
    }
    expect(await writeCounts(t.db)).toEqual(before);
  });

  it('a malformed body answers 400 validation_error in the envelope, naming the field', async () => {
    const c = await verifiedCustomer(w);
    const r1 = await apply(c, w.plans.faster.id, 'yes');
    expect(r1.statusCode).toBe(400);
    expect(r1.json().error).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ field: 'confirm' })] });
    const r2 = await call('plan-change/preview', c, { subscription_id: 'nope', plan_version_id: w.plans.faster.id });
    expect(r2.statusCode).toBe(400);
    expect(r2.json().error).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ field: 'subscription_id' })] });
    const r3 = await call('plan-change', c, { subscription_id: c.subscriptionId, confirm: true });
    expect(r3.json().error.details).toEqual([expect.objectContaining({ field: 'plan_version_id' })]);
  });

  it('applies an upgrade: answer shape, subscription moved, upgrade line, audit entry by key prefix, webhook', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const r = await apply(c, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    const [pc] = await changesOf(c.subscriptionId);
    expect(r.json()).toEqual({
      subscription_id: c.subscriptionId,
      plan_change_id: pc!.id,
      effective_date: '2026-11-16',
      current_plan: plan(w.plans.fast),
      new_plan: plan(w.plans.faster),
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00', currency: 'EUR', days: 15, days_in_period: 30, due_in_days: 15 },
      charge_summary:
        'Nothing was charged today: 5.00 EUR for the rest of this month will be a line on the next monthly invoice. The new monthly price is 49.99 EUR from 2026-11-16.',
      quote_matched: null,
    });
    expect(pc).toMatchObject({ source: 'agent', actor: w.provider.keyPrefix, adjustment_type: 'next_invoice_line', adjustment_cents: 500 });
    const sub = await t.db
      .selectFrom('subscriptions')
      .select('plan_version_id')
      .where('id', '=', c.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.plan_version_id).toBe(w.plans.faster.id);
    expect(await pendingOf(c.subscriptionId)).toEqual([
      expect.objectContaining({ kind: 'upgrade_line', amount_cents: 500, status: 'pending' }),
    ]);
    const audit = await t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', c.subscriptionId).execute();
    expect(audit).toEqual([
      expect.objectContaining({
        actor_type: 'api_key',
        actor: w.provider.keyPrefix,
        action: 'subscription.plan_change',
        request_id: r.headers['x-request-id'],
      }),
    ]);
    expect(audit[0]!.before).toMatchObject({ plan_version_id: w.plans.fast.id });
    expect(audit[0]!.after).toMatchObject({
      plan_version_id: w.plans.faster.id,
      source: 'agent',
      billing_state: 'invoiced',
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00' },
    });
    const hooks = await t.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ event_type: 'subscription.plan_changed', provider_id: w.provider.id });
    expect(hooks[0]!.payload).toMatchObject({ data: { plan_change_id: pc!.id, source: 'agent', plan_version_id: w.plans.faster.id } });
  });

  it('applies a downgrade as an open credit note issued now', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const r = await apply(c, w.plans.basic.id);
    expect(r.json().one_time_adjustment).toEqual({
      type: 'credit',
      amount: '5.00',
      currency: 'EUR',
      days: 15,
      days_in_period: 30,
      due_in_days: 0,
    });
    const notes = await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(notes).toEqual([
      expect.objectContaining({ state: 'open', amount_cents: 500, currency: 'EUR', issued_at: new Date('2026-11-16T10:00:00Z') }),
    ]);
    expect(notes[0]!.reason).toContain('Fast → Basic');
  });

  it('an escalation state (no amount computed) answers 409 billing_escalation and writes nothing, unless acknowledge_escalation is sent', async () => {
    for (const records of ['missing_billing_document', 'missing_invoice'] as const) {
      const c = await verifiedCustomer(w, { records });
      const before = await writeCounts(t.db);
      const r = await apply(c, w.plans.faster.id);
      expect({ records, status: r.statusCode, code: r.json().error?.code }).toEqual({ records, status: 409, code: 'billing_escalation' });
      expect(r.json().error.message).toMatch(/Next step: .*open a ticket/);
      expect(await writeCounts(t.db)).toEqual(before);
      expect(await changesOf(c.subscriptionId)).toHaveLength(0);
      const ack = await call('plan-change', c, {
        subscription_id: c.subscriptionId,
        plan_version_id: w.plans.faster.id,
        confirm: true,
        acknowledge_escalation: true,
      });
      expect(ack.statusCode).toBe(200);
      expect(ack.json()).toMatchObject({ one_time_adjustment: null, quote_matched: null });
      expect(ack.json().charge_summary).toMatch(/^No amount was computed/);
      expect(await changesOf(c.subscriptionId)).toHaveLength(1);
    }
  });

  it('in the null cases the change applies with no adjustment row and the note', async () => {
    for (const records of ['not_invoiced', 'missing_billing_document', 'missing_invoice'] as const) {
      const c = await verifiedCustomer(w, { records });
      const r = await call('plan-change', c, {
        subscription_id: c.subscriptionId,
        plan_version_id: w.plans.faster.id,
        confirm: true,
        ...(records === 'not_invoiced' ? {} : { acknowledge_escalation: true }),
      });
      expect(r.statusCode).toBe(200);
      expect(r.json().one_time_adjustment).toBeNull();
      expect(r.json().note).toBeTruthy();
      expect(await pendingOf(c.subscriptionId)).toHaveLength(0);
      const [pc] = await changesOf(c.subscriptionId);
      expect(pc).toMatchObject({ adjustment_type: null, adjustment_cents: null });
      const [audit] = await t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', c.subscriptionId).execute();
      expect(audit!.after).toMatchObject({ billing_state: records, one_time_adjustment: null });
    }
  });

  it('a second change on the same UTC day answers 409 plan_change_limit (preview too); the next UTC day works', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    expect((await apply(c, w.plans.faster.id)).statusCode).toBe(200);
    const before = await writeCounts(t.db);
    const again = await apply(c, w.plans.basic.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'plan_change_limit' });
    const p = await preview(c, w.plans.basic.id);
    expect(p.statusCode).toBe(409);
    expect(p.json().error.code).toBe('plan_change_limit');
    expect(await writeCounts(t.db)).toEqual(before);

    t.clock.set('2026-11-17T00:00:00Z');
    const next = await apply(c, w.plans.basic.id);
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ effective_date: '2026-11-17', one_time_adjustment: { type: 'credit', amount: '9.33', days: 14 } });
  });

  it('the limit is per customer: after one line changed (by the agent or the partner), another line answers 409 plan_change_limit', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const second = {
      ...c,
      subscriptionId: (await createCustomer(t.db, w, { records: 'invoiced', subscriberId: c.subscriberId })).subscriptionId,
    };
    expect((await apply(c, w.plans.faster.id)).statusCode).toBe(200);
    const r = await apply(second, w.plans.faster.id);
    expect(r.statusCode).toBe(409);
    expect(r.json().error).toMatchObject({
      code: 'plan_change_limit',
      message: expect.stringMatching(/^This customer already changed plan today/),
    });
    expect((await preview(second, w.plans.faster.id)).json().error.code).toBe('plan_change_limit');
    expect(await changesOf(second.subscriptionId)).toHaveLength(0);

    // a partner change of one line counts for the customer as well
    const d = await verifiedCustomer(w, { records: 'invoiced' });
    const other = {
      ...d,
      subscriptionId: (await createCustomer(t.db, w, { records: 'invoiced', subscriberId: d.subscriberId })).subscriptionId,
    };
    const partner = await t.app.inject({
      method: 'POST',
      url: `/partner/subscriptions/${d.subscriptionId}/change-plan`,
      headers: { 'x-api-key': w.provider.apiKey },
      payload: { plan_version_id: w.plans.faster.id },
    });
    expect(partner.statusCode).toBe(200);
    expect((await apply(other, w.plans.faster.id)).statusCode).toBe(409);
    expect(await changesOf(other.subscriptionId)).toHaveLength(0);
  });

  it('refuses a subscription that is not ACTIVE (409 subscription_not_active) and the current plan (409 same_plan)', async () => {
    const s = await verifiedCustomer(w, { status: 'SUSPENDED' });
    const r1 = await apply(s, w.plans.faster.id);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error).toMatchObject({ code: 'subscription_not_active', message: expect.stringContaining('SUSPENDED') });
    expect((await preview(s, w.plans.faster.id)).json().error.code).toBe('subscription_not_active');
    const a = await verifiedCustomer(w);
    const r2 = await apply(a, w.plans.fast.id);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().error.code).toBe('same_plan');
    expect(await changesOf(s.subscriptionId)).toHaveLength(0);
    expect(await changesOf(a.subscriptionId)).toHaveLength(0);
  });

  it('replays an Idempotency-Key retry without a second change', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const headers = { 'idempotency-key': `agent-${c.subscriptionId}` };
    const first = await apply(c, w.plans.faster.id, true, { headers });
    const again = await apply(c, w.plans.faster.id, true, { headers });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await changesOf(c.subscriptionId)).toHaveLength(1);
  });
});

describe('agent plan-change: provider and customer scoping, verified session', () => {
  it("a customer of another provider answers 404 customer_not_found, even with that customer's session", async () => {
    const theirs = await verifiedCustomer(other, { records: 'invoiced' });
    for (const r of [await preview(theirs, other.plans.faster.id), await apply(theirs, other.plans.faster.id)]) {
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('customer_not_found');
    }
    expect(await changesOf(theirs.subscriptionId)).toHaveLength(0);
  });

  it("another provider's customer is 404 customer_not_found before the body is validated (no 400 oracle)", async () => {
    const theirs = await verifiedCustomer(other, { records: 'invoiced' });
    for (const path of ['plan-change/preview', 'plan-change'] as const) {
      const r = await call(path, theirs, { subscription_id: 'not-a-uuid' });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('customer_not_found');
      // Bodies that only the text rule refuses (U+0000 in an extra field), and a path id it refuses.
      const ids = { subscription_id: theirs.subscriptionId, plan_version_id: other.plans.faster.id };
      for (const [c, body] of [
        [theirs, { ...ids, note: 'x\u0000' }],
        [{ ...theirs, subscriberId: '%00' }, ids],
      ] as const) {
        const r2 = await call(path, c, body);
        expect({ path, status: r2.statusCode, code: r2.json().error.code }).toEqual({ path, status: 404, code: 'customer_not_found' });
      }
    }
  });

  it('a subscription of another customer, or a plan of another provider, answers 404 not_found', async () => {
    const me = await verifiedCustomer(w, { records: 'invoiced' });
    const neighbour = await createCustomer(t.db, w, { records: 'invoiced' });
    const r1 = await call('plan-change', me, {
      subscription_id: neighbour.subscriptionId,
      plan_version_id: w.plans.faster.id,
      confirm: true,
    });
    expect(r1.statusCode).toBe(404);
    expect(r1.json().error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/^Subscription not found\. Next step: take the id again/),
    });
    const r2 = await apply(me, other.plans.faster.id);
    expect(r2.statusCode).toBe(404);
    expect(r2.json().error).toMatchObject({ code: 'not_found', message: expect.stringMatching(/^Plan version not found\. Next step: /) });
    const r3 = await preview(me, '00000000-0000-4000-8000-000000000000');
    expect(r3.json().error.code).toBe('not_found');
    expect(await changesOf(me.subscriptionId)).toHaveLength(0);
    expect(await changesOf(neighbour.subscriptionId)).toHaveLength(0);
  });

  it('the preview judges customer, then session, then subscription: 404, 401 or 403 before anything of the subscription shows', async () => {
    const me = await verifiedCustomer(w, { records: 'invoiced' });
    const neighbour = await createCustomer(t.db, w, { records: 'invoiced' });
    const stranger = await createSubscriber(t.db, w.provider.id);
    const strangerSession = await createVerifiedSession(t.db, w.provider.id, stranger.id, t.clock.now());
    const body = { subscription_id: neighbour.subscriptionId, plan_version_id: w.plans.faster.id };
    const cases: [Parameters<typeof call>[1], Parameters<typeof call>[3], number, string][] = [
      [{ ...me, subscriberId: 'not-a-uuid' }, {}, 404, 'customer_not_found'],
      [{ ...me, subscriberId: '00000000-0000-4000-8000-000000000000' }, {}, 404, 'customer_not_found'],
      [me, { session: null }, 401, 'verification_required'],
      [me, { session: 'vs_unknown' }, 401, 'session_invalid'],
      [me, { session: strangerSession }, 403, 'session_customer_mismatch'],
      [me, {}, 404, 'not_found'],
    ];
    for (const [c, o, status, code] of cases) {
      const r = await call('plan-change/preview', c, body, o);
      expect({ status: r.statusCode, code: r.json().error.code }).toEqual({ status, code });
    }
  });

  it('needs the verified session of this customer and an agent key', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const stranger = await createSubscriber(t.db, w.provider.id);
    const strangerSession = await createVerifiedSession(t.db, w.provider.id, stranger.id, t.clock.now());
    const none = await apply(c, w.plans.faster.id, true, { session: null });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('verification_required');
    const mismatch = await preview(c, w.plans.faster.id, { session: strangerSession });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json().error.code).toBe('session_customer_mismatch');
    const noKey = await apply(c, w.plans.faster.id, true, { key: null });
    expect(noKey.statusCode).toBe(403);
    expect(noKey.json().error.code).toBe('invalid_api_key');
    const noAgent = await createWorld(t.db, { features: ['provisioning:write'] });
    const r = await apply(c, w.plans.faster.id, true, { key: noAgent.provider.apiKey });
    expect(r.statusCode).toBe(403);
    expect(r.json().error.code).toBe('feature_not_enabled');
    expect(await changesOf(c.subscriptionId)).toHaveLength(0);
  });
});

describe('agent plan-change preview: read-only', () => {
  it('reads ownership, the verified session and the snapshot in one statement, which writes nothing', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    await preview(c, w.plans.faster.id); // the API key is cached after its first lookup
    const rec = recordStatements(t.db);
    let r;
    try {
      r = await preview(c, w.plans.faster.id);
    } finally {
      rec.stop();
    }
    expect(r.statusCode).toBe(200);
    expect(r.json().one_time_adjustment.type).toBe('next_invoice_line');
    expect(rec.seen).toHaveLength(1);
    expect(rec.seen[0]!.trimStart()).toMatch(/^select /i);
  });

  it('the one read takes the snapshot only for a live session of this customer: a caller to be refused costs none', async () => {
    const me = await verifiedCustomer(w, { records: 'invoiced' });
    const stranger = await createSubscriber(t.db, w.provider.id);
    const strangerSession = await createVerifiedSession(t.db, w.provider.id, stranger.id, t.clock.now());
    const now = t.clock.now();
    const target = {
      providerId: w.provider.id,
      subscriptionId: me.subscriptionId,
      subscriberId: me.subscriberId,
      planVersionId: w.plans.faster.id,
      today: now.toISOString().slice(0, 10),
      month: `${now.toISOString().slice(0, 7)}-01`,
      perSubscription: false,
    };
    const read = (token: string | null, at = now) => ownedPreviewSnapshot(t.db, token ? sha256(token) : null, at, target);
    expect((await read(me.session))?.snapshot?.sub.id).toBe(me.subscriptionId);
    for (const [token, at] of [
      [null, now],
      ['vs_unknown', now],
      [strangerSession, now],
      [me.session, new Date(now.getTime() + 31 * 24 * 3600_000)], // expired by then
    ] as const) {
      const r = await read(token, at);
      expect(r).toBeDefined(); // the customer is the provider's
      expect(r!.snapshot).toBeUndefined();
    }
    expect(await ownedPreviewSnapshot(t.db, sha256(me.session), now, { ...target, providerId: other.provider.id })).toBeUndefined();
  });

  it("the snapshot is scoped to the customer: a neighbour's subscription is 404 not_found", async () => {
    const me = await verifiedCustomer(w, { records: 'invoiced' });
    const neighbour = await createCustomer(t.db, w, { records: 'invoiced' });
    const r = await call('plan-change/preview', me, { subscription_id: neighbour.subscriptionId, plan_version_id: w.plans.faster.id });
    expect(r.statusCode).toBe(404);
    expect(r.json().error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/^Subscription not found\. Next step: take the id again/),
    });
  });

  it('a body that is not two UUIDs answers 400 validation_error', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const r = await call('plan-change/preview', c, { subscription_id: c.subscriptionId, plan_version_id: 42 });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.code).toBe('validation_error');
  });
});

describe('agent plan-change: OpenAPI', () => {
  it('documents both operations and marks proration_factor and due_in_days deprecated', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/agent/openapi.json' })).json();
    const pv = spec.paths['/agent/customers/{customerId}/plan-change/preview'].post;
    const ap = spec.paths['/agent/customers/{customerId}/plan-change'].post;
    expect(pv.operationId).toBe('previewPlanChange');
    expect(ap.operationId).toBe('applyPlanChange');
    const body = JSON.stringify(pv.responses['200']);
    expect(body).toMatch(/"proration_factor":\{[^}]*"deprecated":true/);
    expect(body).toMatch(/"due_in_days":\{[^}]*"deprecated":true/);
    expect(Object.keys(ap.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '422', '429', '500']);
  });
});

// Keeps the month records helper honest for a customer created without them.
describe('fixtures', () => {
  it('setMonthRecords writes exactly the rows of its case', async () => {
    const c = await createCustomer(t.db, w);
    await setMonthRecords(t.db, w.provider.id, c.subscriberId, c.subscriptionId, '2026-11-01', 'missing_invoice');
    expect(await t.db.selectFrom('invoices').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(0);
    expect(await t.db.selectFrom('billing_documents').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(
      1,
    );
  });
});
