import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion } from '../helpers/factories.js';
import { resetAllFaults, simulatorsOf } from '../../src/adapters/index.js';
import { createCustomer, createVerifiedSession, createWorld, writeCounts, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let other: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
  other = await createWorld(t.db);
});
afterAll(() => t.close());
afterEach(() => {
  resetAllFaults(t.deps.adapters);
  t.clock.set('2026-11-16T10:00:00.000Z');
});

const change = (
  subscriptionId: string,
  planVersionId: unknown,
  o: { key?: string | null; prefix?: string; headers?: Record<string, string> } = {},
) =>
  t.app.inject({
    method: 'POST',
    url: `${o.prefix ?? ''}/partner/subscriptions/${subscriptionId}/change-plan`,
    headers: { ...(o.key === null ? {} : { 'x-api-key': o.key ?? w.provider.apiKey }), ...o.headers },
    payload: { plan_version_id: planVersionId },
  });

const preview = (subscriptionId: string, planVersionId: string, o: { key?: string; prefix?: string } = {}) =>
  t.app.inject({
    method: 'GET',
    url: `${o.prefix ?? ''}/partner/subscriptions/${subscriptionId}/change-plan/preview?plan_version_id=${planVersionId}`,
    headers: { 'x-api-key': o.key ?? w.provider.apiKey },
  });

const changesOf = (subscriptionId: string) =>
  t.db.selectFrom('plan_changes').selectAll().where('subscription_id', '=', subscriptionId).execute();
const planOf = async (subscriptionId: string) =>
  (await t.db.selectFrom('subscriptions').select('plan_version_id').where('id', '=', subscriptionId).executeTakeFirstOrThrow())
    .plan_version_id;

describe('partner change-plan: an upgrade in an invoiced month', () => {
  it('applies at once: 200 shape, plan moved, upgrade line pending (5.00 = +10.00 x 15/30), audit, webhook, bandwidth on the switch', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const r = await change(c.subscriptionId, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscriptionId,
      plan_version_id: w.plans.faster.id,
      bandwidth_updated: true,
      effective_date: '2026-11-16',
    });

    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
    const [pc] = await changesOf(c.subscriptionId);
    expect(pc).toMatchObject({
      subscriber_id: c.subscriberId,
      from_plan_version_id: w.plans.fast.id,
      to_plan_version_id: w.plans.faster.id,
      change_date: '2026-11-16',
      source: 'partner',
      adjustment_type: 'next_invoice_line',
      adjustment_cents: 500,
      bandwidth_status: 'applied',
      actor: w.provider.keyPrefix,
    });
    const lines = await t.db.selectFrom('pending_adjustments').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ kind: 'upgrade_line', amount_cents: 500, status: 'pending', plan_change_id: pc!.id });
    expect(lines[0]!.description).toContain('Fast → Faster');
    expect(await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(0);

    const audit = await t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', c.subscriptionId).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_type: 'api_key',
      actor: w.provider.keyPrefix,
      action: 'subscription.plan_change',
      entity_type: 'subscription',
      provider_id: w.provider.id,
    });
    expect(audit[0]!.before).toMatchObject({ plan_version_id: w.plans.fast.id, monthly_price: '39.99' });
    expect(audit[0]!.after).toMatchObject({
      plan_version_id: w.plans.faster.id,
      monthly_price: '49.99',
      source: 'partner',
      plan_change_id: pc!.id,
    });
    expect(audit[0]!.request_id).toBe(r.headers['x-request-id']);

    const hooks = await t.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.event_type).toBe('subscription.plan_changed');
    expect(hooks[0]!.payload).toMatchObject({
      type: 'subscription.plan_changed',
      provider_id: w.provider.id,
      data: {
        subscription_id: c.subscriptionId,
        subscriber_id: c.subscriberId,
        plan_change_id: pc!.id,
        effective_date: '2026-11-16',
        source: 'partner',
        previous_plan_version_id: w.plans.fast.id,
        plan_version_id: w.plans.faster.id,
        one_time_adjustment: { type: 'next_invoice_line', amount: '5.00', currency: 'EUR', days: 15, days_in_period: 30 },
      },
    });

    const port = await simulatorsOf(t.deps.adapters).switchController.getPort(c.locationId!);
    expect(port).toMatchObject({ download_mbps: 1000, upload_mbps: 200 });
  });

  it('is served identically under /api/v1', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const r = await change(c.subscriptionId, w.plans.basic.id, { prefix: '/api/v1' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ subscription_id: c.subscriptionId, plan_version_id: w.plans.basic.id });
    const p = await preview(c.subscriptionId, w.plans.fast.id, { prefix: '/api/v1' });
    expect(p.statusCode).toBe(200);
    expect(p.json()).toMatchObject({ eligible: false, reasons: ['already_changed_today'] });
  });
});

describe('partner change-plan: a downgrade issues a credit note now', () => {
  it('a half cent rounds up: -10.01 x 15/30 = 5.005 gives an open credit note of 5.01', async () => {
    const pricey = await createPlanVersion(t.db, w.provider.id, { name: 'Pricey', priceCents: 5000 });
    const c = await createCustomer(t.db, w, { records: 'invoiced', planVersionId: pricey.id });
    const p = await preview(c.subscriptionId, w.plans.fast.id);
    expect(p.json().one_time_adjustment).toEqual({ type: 'credit', amount: '5.01', currency: 'EUR', days: 15, days_in_period: 30 });
    const r = await change(c.subscriptionId, w.plans.fast.id);
    expect(r.statusCode).toBe(200);
    const notes = await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(notes).toHaveLength(1);
    const [pc] = await changesOf(c.subscriptionId);
    expect(notes[0]).toMatchObject({
      state: 'open',
      amount_cents: 501,
      currency: 'EUR',
      subscriber_id: c.subscriberId,
      plan_change_id: pc!.id,
      applied_invoice_id: null,
    });
    expect(notes[0]!.number).toMatch(/^CN-202611-[A-Z0-9]{8}$/);
    expect(pc).toMatchObject({ adjustment_type: 'credit', adjustment_cents: -501 });
    expect(await t.db.selectFrom('pending_adjustments').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(
      0,
    );
  });
});

describe('partner preview: eligibility and quote, writing nothing', () => {
  it('quotes an eligible upgrade and writes nothing (table counts before and after)', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const before = await writeCounts(t.db);
    const r = await preview(c.subscriptionId, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      eligible: true,
      reasons: [],
      current_plan: { plan_version_id: w.plans.fast.id, name: 'Fast', monthly_price: '39.99', currency: 'EUR' },
      new_plan: { plan_version_id: w.plans.faster.id, name: 'Faster', monthly_price: '49.99', currency: 'EUR' },
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00', currency: 'EUR', days: 15, days_in_period: 30 },
      note: null,
    });
    expect(await writeCounts(t.db)).toEqual(before);
  });

  it('lists every reason: not_active, same_plan, plan_not_available (inactive or other currency); the change answers 409', async () => {
    const suspended = await createCustomer(t.db, w, { status: 'SUSPENDED', records: 'invoiced' });
    const r1 = await preview(suspended.subscriptionId, w.plans.fast.id);
    expect(r1.statusCode).toBe(200);
    expect(r1.json()).toMatchObject({ eligible: false, reasons: ['not_active', 'same_plan'], one_time_adjustment: null, note: null });
    const c1 = await change(suspended.subscriptionId, w.plans.faster.id);
    expect(c1.statusCode).toBe(409);
    expect(c1.json()).toEqual({ detail: 'The subscription is SUSPENDED; only an ACTIVE subscription can change plan' });

    const active = await createCustomer(t.db, w);
    const same = await change(active.subscriptionId, w.plans.fast.id);
    expect(same.statusCode).toBe(409);
    expect(same.json().detail).toMatch(/already on this plan/);

    const retired = await createPlanVersion(t.db, w.provider.id, { name: 'Retired', priceCents: 1999 });
    await t.db.updateTable('plan_versions').set({ active: false }).where('id', '=', retired.id).execute();
    const chf = await createPlanVersion(t.db, w.provider.id, { name: 'Swiss', priceCents: 4999, currency: 'CHF' });
    for (const plan of [retired.id, chf.id]) {
      expect((await preview(active.subscriptionId, plan)).json()).toMatchObject({ eligible: false, reasons: ['plan_not_available'] });
      const r = await change(active.subscriptionId, plan);
      expect(r.statusCode).toBe(409);
      expect(r.json().detail).toMatch(/cannot be chosen/);
    }
    expect(await changesOf(active.subscriptionId)).toHaveLength(0);
    expect(await changesOf(suspended.subscriptionId)).toHaveLength(0);
  });
});

describe('partner change-plan: once per subscription per UTC calendar day', () => {
  it('a second change the same day answers 409 and writes nothing; the next UTC day works', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    t.clock.set('2026-11-16T00:00:05Z');
    expect((await change(c.subscriptionId, w.plans.faster.id)).statusCode).toBe(200);
    t.clock.set('2026-11-16T23:59:59Z');
    const before = await writeCounts(t.db);
    const second = await change(c.subscriptionId, w.plans.basic.id);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual({
      detail: 'This subscription already changed plan today (UTC calendar day); the next change is possible from tomorrow',
    });
    expect(await writeCounts(t.db)).toEqual(before);
    expect((await preview(c.subscriptionId, w.plans.basic.id)).json()).toMatchObject({
      eligible: false,
      reasons: ['already_changed_today'],
    });

    t.clock.set('2026-11-17T00:00:00Z');
    expect((await preview(c.subscriptionId, w.plans.basic.id)).json()).toMatchObject({ eligible: true, reasons: [] });
    const next = await change(c.subscriptionId, w.plans.basic.id);
    expect(next.statusCode).toBe(200);
    expect(next.json()).toMatchObject({ effective_date: '2026-11-17', plan_version_id: w.plans.basic.id });
    expect((await changesOf(c.subscriptionId)).map((p) => p.change_date).sort()).toEqual(['2026-11-16', '2026-11-17']);
  });

  it('counts per subscription: both lines of one subscriber change the same day (200, 200); the first line again answers 409', async () => {
    const a = await createCustomer(t.db, w, { records: 'invoiced' });
    const b = await createCustomer(t.db, w, { records: 'invoiced', subscriberId: a.subscriberId });
    expect((await change(a.subscriptionId, w.plans.faster.id)).statusCode).toBe(200);
    expect((await preview(b.subscriptionId, w.plans.faster.id)).json()).toMatchObject({ eligible: true, reasons: [] });
    const second = await change(b.subscriptionId, w.plans.faster.id);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toMatchObject({
      subscription_id: b.subscriptionId,
      plan_version_id: w.plans.faster.id,
      effective_date: '2026-11-16',
    });
    expect(await planOf(b.subscriptionId)).toBe(w.plans.faster.id);
    const again = await change(a.subscriptionId, w.plans.basic.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/^This subscription already changed plan today/);
    expect(await planOf(a.subscriptionId)).toBe(w.plans.faster.id);
    const rows = await t.db
      .selectFrom('plan_changes')
      .select(['subscription_id', 'source'])
      .where('subscriber_id', '=', a.subscriberId)
      .execute();
    expect(rows.map((r) => r.subscription_id).sort()).toEqual([a.subscriptionId, b.subscriptionId].sort());
  });

  it('a change made through the support agent counts for that subscription too (409 on the partner route)', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const session = await createVerifiedSession(t.db, w.provider.id, c.subscriberId, t.clock.now());
    const agent = await t.app.inject({
      method: 'POST',
      url: `/agent/customers/${c.subscriberId}/plan-change`,
      headers: { 'x-api-key': w.provider.apiKey, 'x-verified-session': session },
      payload: { subscription_id: c.subscriptionId, plan_version_id: w.plans.faster.id, confirm: true },
    });
    expect(agent.statusCode).toBe(200);
    const r = await change(c.subscriptionId, w.plans.basic.id);
    expect(r.statusCode).toBe(409);
    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
  });

  // The /subscriptions/... aliases answer again (issue 28 §3): test/plan-change/aliases.test.ts.
});

describe('partner change-plan: billing guards', () => {
  it('a provider-billed subscription (service_billed=false) changes plan with no invoice line and no credit note', async () => {
    const c = await createCustomer(t.db, w, { serviceBilled: false, records: 'invoiced' });
    const p = await preview(c.subscriptionId, w.plans.basic.id);
    expect(p.json()).toMatchObject({ eligible: true, one_time_adjustment: null });
    expect(p.json().note).toMatch(/billed by the provider/);
    const r = await change(c.subscriptionId, w.plans.basic.id);
    expect(r.statusCode).toBe(200);
    expect(await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(0);
    expect(await t.db.selectFrom('pending_adjustments').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(
      0,
    );
    expect((await changesOf(c.subscriptionId))[0]).toMatchObject({ adjustment_type: null, adjustment_cents: null });
  });

  it('the month not invoiced yet: no adjustment, the monthly invoice will reflect the new price', async () => {
    const c = await createCustomer(t.db, w, { records: 'not_invoiced' });
    const p = await preview(c.subscriptionId, w.plans.faster.id);
    expect(p.json()).toMatchObject({ eligible: true, one_time_adjustment: null });
    expect(p.json().note).toMatch(/monthly invoice will reflect the new price/);
    expect((await change(c.subscriptionId, w.plans.faster.id)).statusCode).toBe(200);
    expect(await t.db.selectFrom('pending_adjustments').selectAll().where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(
      0,
    );
  });
});

describe('partner change-plan: bandwidth_updated tells what the switch did', () => {
  it('false when the switch holds the change for operator confirmation; no retry follows', async () => {
    const c = await createCustomer(t.db, w);
    await t.db.updateTable('locations').set({ switch_id: 'legacy-07' }).where('id', '=', c.locationId!).execute();
    const r = await change(c.subscriptionId, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    expect(r.json().bandwidth_updated).toBe(false);
    const [pc] = await changesOf(c.subscriptionId);
    expect(pc!.bandwidth_status).toBe('awaiting_operator');
    t.clock.advance(5 * 60_000);
    await t.deps.jobs.drain();
    const job = await t.db
      .selectFrom('jobs')
      .selectAll()
      .where('dedupe_key', '=', `plan-change-bandwidth:${pc!.id}`)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(job.result).toEqual({ skipped: 'awaiting_operator' });
  });

  it('false when the switch is unreachable; the retry job sets it later with the same operation key', async () => {
    const c = await createCustomer(t.db, w);
    t.deps.adapters.switchController.faults.set('unreachable');
    const r = await change(c.subscriptionId, w.plans.faster.id);
    expect(r.statusCode).toBe(200);
    expect(r.json().bandwidth_updated).toBe(false);
    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
    const [pc] = await changesOf(c.subscriptionId);
    expect(pc!.bandwidth_status).toBe('pending');
    expect(await t.deps.jobs.drain()).toBeGreaterThanOrEqual(0); // the retry waits a minute
    expect((await changesOf(c.subscriptionId))[0]!.bandwidth_status).toBe('pending');

    resetAllFaults(t.deps.adapters);
    t.clock.advance(61_000);
    await t.deps.jobs.drain();
    expect((await changesOf(c.subscriptionId))[0]!.bandwidth_status).toBe('applied');
    expect(await simulatorsOf(t.deps.adapters).switchController.getPort(c.locationId!)).toMatchObject({
      download_mbps: 1000,
      upload_mbps: 200,
    });
  });

  it('a subscription without a switch port reports false and queues no switch job', async () => {
    const c = await createCustomer(t.db, w, { port: false });
    const r = await change(c.subscriptionId, w.plans.faster.id);
    expect(r.json().bandwidth_updated).toBe(false);
    expect((await changesOf(c.subscriptionId))[0]!.bandwidth_status).toBe('no_port');
    expect(
      await t.db
        .selectFrom('jobs')
        .selectAll()
        .where('subscription_id', '=', c.subscriptionId)
        .where('kind', '=', 'plan_change.update_bandwidth')
        .execute(),
    ).toHaveLength(0);
  });
});

describe('partner change-plan: provider scoping and credentials', () => {
  it('a subscription or plan version of another provider answers 404, and nothing changes', async () => {
    const mine = await createCustomer(t.db, w);
    const theirs = await createCustomer(t.db, other);
    const r1 = await change(theirs.subscriptionId, other.plans.faster.id);
    expect(r1.statusCode).toBe(404);
    expect(r1.json()).toEqual({ detail: 'Subscription not found' });
    const r2 = await change(mine.subscriptionId, other.plans.faster.id);
    expect(r2.statusCode).toBe(404);
    expect(r2.json()).toEqual({ detail: 'Plan version not found' });
    expect((await preview(theirs.subscriptionId, other.plans.faster.id)).statusCode).toBe(404);
    expect((await preview(mine.subscriptionId, '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect(await changesOf(mine.subscriptionId)).toHaveLength(0);
    expect(await changesOf(theirs.subscriptionId)).toHaveLength(0);
  });

  it('a key without provisioning:write answers 403; no key 401; a wrong key 403', async () => {
    const limited = await createWorld(t.db, { features: ['serviceability:read', 'agent_api_access'] });
    const c = await createCustomer(t.db, limited);
    const r = await change(c.subscriptionId, limited.plans.faster.id, { key: limited.provider.apiKey });
    expect(r.statusCode).toBe(403);
    expect(r.json()).toEqual({ detail: 'API key lacks the provisioning:write scope' });
    expect((await preview(c.subscriptionId, limited.plans.faster.id, { key: limited.provider.apiKey })).statusCode).toBe(403);
    const none = await change(c.subscriptionId, limited.plans.faster.id, { key: null });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: 'Not authenticated' });
    const wrong = await change(c.subscriptionId, limited.plans.faster.id, {
      key: `${limited.provider.apiKey.slice(0, 12)}${'x'.repeat(32)}`,
    });
    expect(wrong.statusCode).toBe(403);
    expect(await changesOf(c.subscriptionId)).toHaveLength(0);
  });

  it('bad input answers 422 naming the field', async () => {
    const c = await createCustomer(t.db, w);
    const r = await change(c.subscriptionId, 'not-a-uuid');
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^plan_version_id: /);
    const noBody = await t.app.inject({
      method: 'POST',
      url: `/partner/subscriptions/${c.subscriptionId}/change-plan`,
      headers: { 'x-api-key': w.provider.apiKey },
      payload: {},
    });
    expect(noBody.statusCode).toBe(422);
    // an override is the platform administrator's: a partner sending a reason is refused, not silently ignored
    const override = await t.app.inject({
      method: 'POST',
      url: `/partner/subscriptions/${c.subscriptionId}/change-plan`,
      headers: { 'x-api-key': w.provider.apiKey },
      payload: { plan_version_id: w.plans.faster.id, override_reason: 'please' },
    });
    expect(override.statusCode).toBe(422);
    expect(await changesOf(c.subscriptionId)).toHaveLength(0);
    const badId = await change('123', w.plans.faster.id);
    expect(badId.statusCode).toBe(422);
    expect(badId.json().detail).toMatch(/^id: /);
    const noQuery = await t.app.inject({
      method: 'GET',
      url: `/partner/subscriptions/${c.subscriptionId}/change-plan/preview`,
      headers: { 'x-api-key': w.provider.apiKey },
    });
    expect(noQuery.statusCode).toBe(422);
    expect(noQuery.json().detail).toMatch(/plan_version_id/);
  });
});

describe('partner change-plan: Idempotency-Key', () => {
  it('a retry with the same key replays the first answer without a second change', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const headers = { 'idempotency-key': `pc-${c.subscriptionId}` };
    const first = await change(c.subscriptionId, w.plans.faster.id, { headers });
    const again = await change(c.subscriptionId, w.plans.faster.id, { headers });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await changesOf(c.subscriptionId)).toHaveLength(1);
    const other = await change(c.subscriptionId, w.plans.basic.id, { headers });
    expect(other.statusCode).toBe(422);
  });
});
