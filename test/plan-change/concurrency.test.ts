import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { newId } from '../../src/lib/ids.js';
import { createCustomer, createVerifiedSession, createWorld, type World } from './fixtures.js';

// Races are only real on Postgres (the embedded database has one connection and runs the same
// requests one after another); on both, the daily limits hold: one partner change per subscription,
// one agent change per customer.

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
});
afterAll(() => t.close());

const partnerChange = (subscriptionId: string, planVersionId: string) =>
  t.app.inject({
    method: 'POST',
    url: `/partner/subscriptions/${subscriptionId}/change-plan`,
    headers: { 'x-api-key': w.provider.apiKey },
    payload: { plan_version_id: planVersionId },
  });

const agentChange = (customerId: string, session: string, subscriptionId: string, planVersionId: string) =>
  t.app.inject({
    method: 'POST',
    url: `/agent/customers/${customerId}/plan-change`,
    headers: { 'x-api-key': w.provider.apiKey, 'x-verified-session': session },
    payload: { subscription_id: subscriptionId, plan_version_id: planVersionId, confirm: true },
  });

async function rowsOf(subscriptionIds: string[]) {
  const count = async (
    table: 'plan_changes' | 'pending_adjustments' | 'credit_notes' | 'audit_entries' | 'webhook_deliveries' | 'jobs',
  ) => {
    const col = table === 'audit_entries' ? 'entity_id' : 'subscription_id';
    const r = await t.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(col, 'in', subscriptionIds)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  };
  const bandwidthJobs = await t.db
    .selectFrom('jobs')
    .select('id')
    .where('kind', '=', 'plan_change.update_bandwidth')
    .where('subscription_id', 'in', subscriptionIds)
    .execute();
  return {
    plan_changes: await count('plan_changes'),
    adjustments: (await count('pending_adjustments')) + (await count('credit_notes')),
    audit: await count('audit_entries'),
    webhooks: await count('webhook_deliveries'),
    bandwidth_jobs: bandwidthJobs.length,
  };
}

describe('plan change: concurrent applies, the daily limits hold', () => {
  it('ten parallel partner requests on one subscription: one 200, nine 409, and one of everything written', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const targets = Array.from({ length: 10 }, (_, i) => (i % 2 ? w.plans.basic.id : w.plans.faster.id));
    const answers = await Promise.all(targets.map((p) => partnerChange(c.subscriptionId, p)));
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const r of refused) expect(r.json().detail).toMatch(/already changed plan today/);
    const winner = ok[0]!.json().plan_version_id;
    const sub = await t.db
      .selectFrom('subscriptions')
      .select('plan_version_id')
      .where('id', '=', c.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.plan_version_id).toBe(winner);
    expect(await rowsOf([c.subscriptionId])).toEqual({ plan_changes: 1, adjustments: 1, audit: 1, webhooks: 1, bandwidth_jobs: 1 });
  });

  it('parallel agent requests on three subscriptions of one customer: exactly one changes', async () => {
    const a = await createCustomer(t.db, w, { records: 'invoiced' });
    const subs = [a.subscriptionId];
    for (let i = 0; i < 2; i++)
      subs.push((await createCustomer(t.db, w, { records: 'invoiced', subscriberId: a.subscriberId })).subscriptionId);
    const session = await createVerifiedSession(t.db, w.provider.id, a.subscriberId, t.clock.now());
    const answers = await Promise.all(
      subs.map((s, i) => agentChange(a.subscriberId, session, s, i % 2 ? w.plans.basic.id : w.plans.faster.id)),
    );
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    const refused = answers.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.json().error.code).toBe('plan_change_limit');
    const plans = await t.db.selectFrom('subscriptions').select(['id', 'plan_version_id']).where('id', 'in', subs).execute();
    expect(plans.filter((s) => s.plan_version_id !== w.plans.fast.id)).toHaveLength(1);
    expect(await rowsOf(subs)).toEqual({ plan_changes: 1, adjustments: 1, audit: 1, webhooks: 1, bandwidth_jobs: 1 });
  });

  it('parallel partner requests on three subscriptions of one customer, two on each: each subscription changes exactly once', async () => {
    const a = await createCustomer(t.db, w, { records: 'invoiced' });
    const subs = [a.subscriptionId];
    for (let i = 0; i < 2; i++)
      subs.push((await createCustomer(t.db, w, { records: 'invoiced', subscriberId: a.subscriberId })).subscriptionId);
    const answers = await Promise.all(subs.flatMap((s) => [partnerChange(s, w.plans.faster.id), partnerChange(s, w.plans.basic.id)]));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(3);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(3);
    const plans = await t.db.selectFrom('subscriptions').select(['id', 'plan_version_id']).where('id', 'in', subs).execute();
    expect(plans.filter((s) => s.plan_version_id !== w.plans.fast.id)).toHaveLength(3);
    expect(await rowsOf(subs)).toEqual({ plan_changes: 3, adjustments: 3, audit: 3, webhooks: 3, bandwidth_jobs: 3 });
  });
});

// Deterministic proof that the agent's unique index (subscriber, day; in the baseline), not the
// pre-check, settles the race: a second connection holds an uncommitted agent change of another line
// of the customer while the request runs; the request passes the pre-check, waits on the unique
// index, and gets the violation. (Two changes of one subscription already queue on its row lock; the
// per-subscription index backs that up.)
if (usingPostgres()) {
  describe('plan change on real Postgres: the unique violation answers 409 and rolls everything back', () => {
    it('an agent change committed by another transaction while this one waits on the index answers 409 plan_change_limit, nothing half-written', async () => {
      const a = await createCustomer(t.db, w, { records: 'invoiced' });
      const b = await createCustomer(t.db, w, { records: 'invoiced', subscriberId: a.subscriberId });
      const session = await createVerifiedSession(t.db, w.provider.id, a.subscriberId, t.clock.now());
      const other = new pg.Client({ connectionString: t.testDb.url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query(
          `INSERT INTO plan_changes (id, provider_id, subscriber_id, subscription_id, from_plan_version_id, to_plan_version_id, change_date, source)
           VALUES ($1, $2, $3, $4, $5, $6, '2026-11-16', 'agent')`,
          [newId(), w.provider.id, a.subscriberId, b.subscriptionId, w.plans.fast.id, w.plans.faster.id],
        );
        const pending = agentChange(a.subscriberId, session, a.subscriptionId, w.plans.faster.id);
        // Wait until the request is blocked on the unique index behind the open transaction.
        let waiting = 0;
        for (let i = 0; i < 200 && waiting === 0; i++) {
          await new Promise((r) => setTimeout(r, 25));
          const r = await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(t.db);
          waiting = Number(r.rows[0]!.n);
        }
        expect(waiting).toBe(1);
        await other.query('COMMIT');
        const r = await pending;
        expect(r.statusCode).toBe(409);
        expect(r.json().error).toMatchObject({
          code: 'plan_change_limit',
          message: expect.stringMatching(
            /^This customer already changed plan today \(UTC calendar day\); the next change is possible from tomorrow \(/,
          ),
          next_change_at: expect.any(String),
        });
      } finally {
        await other.end();
      }
      const sub = await t.db
        .selectFrom('subscriptions')
        .select('plan_version_id')
        .where('id', '=', a.subscriptionId)
        .executeTakeFirstOrThrow();
      expect(sub.plan_version_id).toBe(w.plans.fast.id);
      expect(await rowsOf([a.subscriptionId])).toEqual({ plan_changes: 0, adjustments: 0, audit: 0, webhooks: 0, bandwidth_jobs: 0 });
    });
  });
}
