// Provider-initiated provisioning on a port in two statements: one read (provisioning_explicit_snapshot)
// for plan, port/unit, subscriber, idempotency and occupancy; one statement, without a transaction,
// for a new subscriber with its login, the subscription, its audit entry, the port job and the
// activation webhook. The answers, their order and the rows written are those of the step-by-step
// path in a transaction (which still serves races, the install route and the completion flows).
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { customerNumber, newId } from '../../src/lib/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { recordStatements } from '../helpers/statements.js';
import { usingPostgres } from '../helpers/db.js';
import { executeTogether } from '../../src/db/together.js';
import * as repo from '../../src/modules/subscribers/new-subscriber.repository.js';
import { createProvisioningService } from '../../src/modules/provisioning/provisioning.service.js';
import { createBuilding, createLocation, createPlanVersion, createUser } from '../helpers/factories.js';
import { createWorld, portJobsOf, subscriber, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

const provision = (body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/provisioning/provider-initiated', headers: w.hdr, payload: body });

/** Counts the statements the app sends through Kysely (BEGIN/COMMIT are the driver's, not counted). */
function countStatements() {
  const r = recordStatements(t.db);
  restore = r.stop;
  return r.seen;
}
let restore: (() => void) | null = null;
afterEach(() => {
  restore?.();
  restore = null;
});

/** Statements of this module: not the job queue's or the webhook outbox's inserts, not the API-key lookup (cached). */
const own = (seen: string[]) => seen.filter((s) => !/^insert into "(jobs|webhook_deliveries)"/i.test(s) && !/from "api_keys"/.test(s));

describe('provider-initiated: statements per request', () => {
  it('a new subscriber on a first-line port: two statements (the read; subscriber, login, subscription, audit, port job and webhook together), no transaction; rows as before', async () => {
    const transactions = vi.spyOn(t.db, 'transaction');
    const seen = countStatements();
    const email = `Hot-${newId().slice(0, 8)}@Example.test`;
    const r = await provision({
      plan_version_id: w.plan.id,
      location_hash: w.ports[0]!.locationHash,
      subscriber: { email, first_name: ' Ada ', last_name: 'Lovelace', phone: '030 1234567' },
    });
    restore!();
    const began = transactions.mock.calls.length;
    transactions.mockRestore();
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'provision', job_id: expect.any(String) });
    expect(own(seen)).toHaveLength(2);
    expect(own(seen)[0]).toMatch(/provisioning_explicit_snapshot/);
    expect(own(seen)[1]).toMatch(
      /^WITH w0 AS \(insert into "users" .*on conflict do nothing\), w1 AS \(insert into "subscribers" .*insert into "subscriptions" .*insert into "audit_entries" .*insert into "jobs" .*insert into "webhook_deliveries" .*insert into "jobs"/,
    );
    expect(began).toBe(0);
    const sub = await t.db.selectFrom('subscribers').selectAll().where('id', '=', r.json().subscriber_id).executeTakeFirstOrThrow();
    expect(sub).toMatchObject({
      provider_id: w.provider.id,
      email,
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '030 1234567',
      phone_e164: '+49301234567',
    });
    expect(sub.customer_number).toMatch(/^[A-Z]{4}-\d{4}$/);
    const user = await t.db.selectFrom('users').selectAll().where('id', '=', sub.user_id!).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ role: 'subscriber', password_hash: null, email, first_name: 'Ada' });
    const subscription = await t.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('id', '=', r.json().subscription_id)
      .executeTakeFirstOrThrow();
    expect(subscription).toMatchObject({
      status: 'ACTIVE',
      origin: 'provider_initiated',
      service_billed: false,
      location_id: w.ports[0]!.id,
      unit_id: w.first.units[0]!.id,
      subscriber_id: sub.id,
    });
    const audit = await t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', r.json().subscription_id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'subscription.create.provider_initiated',
      entity_type: 'subscription',
      actor_type: 'api_key',
      actor: w.provider.keyPrefix,
      provider_id: w.provider.id,
    });
    expect(typeof audit[0]!.after === 'string' ? JSON.parse(audit[0]!.after) : audit[0]!.after).toMatchObject({
      status: 'ACTIVE',
      route: 'provision',
      subscriber_created: true,
      location_id: w.ports[0]!.id,
    });
    expect(await portJobsOf(t, r.json().subscription_id)).toHaveLength(1);
  });

  it('a known subscriber: two statements, no transaction, the subscriber reused as it is (names kept), audit says subscriber_created false', async () => {
    const email = `known-${newId().slice(0, 8)}@example.test`;
    const first = await provision({
      plan_version_id: w.plan.id,
      location_hash: w.ports[1]!.locationHash,
      subscriber: { email, first_name: 'Grace', last_name: 'Hopper' },
    });
    expect(first.statusCode).toBe(201);
    const transactions = vi.spyOn(t.db, 'transaction');
    const seen = countStatements();
    const r = await provision({
      plan_version_id: w.plan.id,
      location_hash: w.ports[2]!.locationHash,
      subscriber: { email: email.toUpperCase(), first_name: 'Other', last_name: 'Name' },
    });
    restore!();
    const began = transactions.mock.calls.length;
    transactions.mockRestore();
    expect(r.statusCode).toBe(201);
    expect(r.json().subscriber_id).toBe(first.json().subscriber_id);
    expect(own(seen)).toHaveLength(2);
    expect(own(seen)[1]).toMatch(/^WITH w0 AS \(insert into "subscriptions" /);
    expect(began).toBe(0);
    expect(
      (await t.db.selectFrom('subscribers').select('first_name').where('id', '=', r.json().subscriber_id).executeTakeFirstOrThrow())
        .first_name,
    ).toBe('Grace');
    const audit = await t.db
      .selectFrom('audit_entries')
      .select('after')
      .where('entity_id', '=', r.json().subscription_id)
      .executeTakeFirstOrThrow();
    expect(typeof audit.after === 'string' ? JSON.parse(audit.after) : audit.after).toMatchObject({ subscriber_created: false });
  });

  it('a replay and a 409 are answered from the one read (no writes)', async () => {
    const body = { plan_version_id: w.plan.id, location_hash: w.ports[3]!.locationHash, subscriber: subscriber() };
    expect((await provision(body)).statusCode).toBe(201);
    const seen = countStatements();
    const replay = await provision(body);
    const taken = await provision({ ...body, subscriber: subscriber() });
    restore!();
    expect(replay.statusCode).toBe(200);
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ detail: 'Unit already has a pending or active subscription' });
    expect(seen.filter((s) => /^(insert|update|delete|with)/i.test(s))).toEqual([]);
  });
});

describe('provider-initiated: the new-subscriber statement and its logins', () => {
  it("an existing subscriber login of the email (another provider's customer) is linked, not duplicated", async () => {
    const email = `login-${newId().slice(0, 8)}@example.test`;
    const login = await createUser(t.db, { email, role: 'subscriber', password: null });
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[0]!.id,
      subscriber: { email: email.toUpperCase(), first_name: 'L', last_name: 'M' },
    });
    expect(r.statusCode).toBe(201);
    const sub = await t.db.selectFrom('subscribers').select('user_id').where('id', '=', r.json().subscriber_id).executeTakeFirstOrThrow();
    expect(sub.user_id).toBe(login.id);
    const users = await t.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .execute();
    expect(users).toHaveLength(1);
  });

  it('a staff account with the email is never linked: the subscriber has no login', async () => {
    const email = `staff-${newId().slice(0, 8)}@example.test`;
    await createUser(t.db, { email, role: 'service_provider', providerId: w.provider.id, spRole: 'support', password: null });
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[1]!.id,
      subscriber: { email, first_name: 'S', last_name: 'T' },
    });
    expect(r.statusCode).toBe(201);
    const sub = await t.db.selectFrom('subscribers').select('user_id').where('id', '=', r.json().subscriber_id).executeTakeFirstOrThrow();
    expect(sub.user_id).toBeNull();
  });

  it('a customer-number collision makes the statement insert nothing, so that the step-by-step loop draws another number', async () => {
    const taken = customerNumber();
    await t.db
      .insertInto('subscribers')
      .values({
        id: newId(),
        provider_id: w.provider.id,
        customer_number: taken,
        first_name: 'X',
        last_name: 'Y',
        email: `taken-${newId()}@example.test`,
      })
      .execute();
    const { insertNewSubscriber } = await import('../../src/modules/subscribers/new-subscriber.repository.js');
    const outcome = await t.db.transaction().execute((trx) =>
      insertNewSubscriber(trx, {
        id: newId(),
        providerId: w.provider.id,
        customerNumber: taken,
        firstName: 'N',
        lastName: 'C',
        email: `collide-${newId().slice(0, 8)}@example.test`,
        phone: null,
        phoneE164: null,
        at: new Date(),
      }),
    );
    expect(outcome).toEqual({ inserted: false, loginSeen: true });
  });
});

describe('provider-initiated: when the one statement cannot insert the subscriber', () => {
  const svc = () => createProvisioningService(t.deps);
  const ctx = () => ({ providerId: ww.provider.id, actor: { actorType: 'system' as const, actor: 'test' } });
  let ww: World;
  beforeAll(async () => {
    ww = await createWorld(t);
  });
  const usersOf = (email: string) =>
    t.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(email)`, '=', email.toLowerCase())
      .execute();

  it('the email was taken after the read: nothing of the statement is written, the transaction path reuses the subscriber', async () => {
    const email = `taken-late-${newId().slice(0, 8)}@example.test`;
    // The read said "absent"; the subscriber exists by the time the statement runs.
    const existing = await t.db
      .insertInto('subscribers')
      .values({
        id: newId(),
        provider_id: ww.provider.id,
        customer_number: customerNumber(),
        first_name: 'Late',
        last_name: 'Comer',
        email,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const usersBefore = (await usersOf(email)).length;
    const s = svc();
    const resolved = await s.resolveExplicit(ww.provider.id, {
      plan_version_id: ww.plan.id,
      location_hash: ww.ports[0]!.locationHash,
      subscriber: subscriber(email),
    });
    const transactions = vi.spyOn(t.db, 'transaction');
    const r = await s.createSubscription(
      ctx(),
      resolved,
      { origin: 'provider_initiated', subscriber: subscriber(email), macAddress: null, moveInDate: null },
      { subscriber: null },
    );
    const began = transactions.mock.calls.length;
    transactions.mockRestore();
    expect(began).toBe(1); // the fallback
    expect(r).toMatchObject({ route: 'provision', subscriber_id: existing.id });
    expect(
      await t.db.selectFrom('subscribers').select('id').where('provider_id', '=', ww.provider.id).where('email', '=', email).execute(),
    ).toHaveLength(1);
    // One login at most (the careful path may create the one the subscriber lacked): the failed statement's went with it.
    expect((await usersOf(email)).length).toBeLessThanOrEqual(usersBefore + 1);
    const subs = await t.db
      .selectFrom('subscriptions')
      .select(['id', 'subscriber_id'])
      .where('location_id', '=', ww.ports[0]!.id)
      .execute();
    expect(subs).toEqual([{ id: r.subscription_id, subscriber_id: existing.id }]);
    const audit = await t.db.selectFrom('audit_entries').select('after').where('entity_id', '=', r.subscription_id).execute();
    expect(audit).toHaveLength(1);
    expect(typeof audit[0]!.after === 'string' ? JSON.parse(audit[0]!.after) : audit[0]!.after).toMatchObject({
      subscriber_created: false,
    });
    expect(await portJobsOf(t, r.subscription_id)).toHaveLength(1);
  });

  it('a taken customer number fails the statement with a conflict the service recognises, and writes nothing', async () => {
    const taken = customerNumber();
    await t.db
      .insertInto('subscribers')
      .values({
        id: newId(),
        provider_id: ww.provider.id,
        customer_number: taken,
        first_name: 'X',
        last_name: 'Y',
        email: `num-${newId()}@example.test`,
      })
      .execute();
    const email = `collide-${newId().slice(0, 8)}@example.test`;
    const id = newId();
    const err = await executeTogether(
      t.db,
      repo.newSubscriberWrites(t.db, {
        id,
        userId: newId(),
        providerId: ww.provider.id,
        customerNumber: taken,
        firstName: 'N',
        lastName: 'C',
        email,
        phone: null,
        phoneE164: null,
        at: new Date(),
      }),
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(repo.isNewSubscriberConflict(err)).toBe(true);
    expect(await usersOf(email)).toEqual([]);
    expect(await t.db.selectFrom('subscribers').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it.skipIf(!usingPostgres())(
    'a login committed while the statement waited on it: the statement writes nothing, the transaction path links that login (real Postgres)',
    async () => {
      const email = `race-login-${newId().slice(0, 8)}@example.test`;
      const loginId = newId();
      const s = svc();
      const resolved = await s.resolveExplicit(ww.provider.id, {
        plan_version_id: ww.plan.id,
        location_hash: ww.ports[1]!.locationHash,
        subscriber: subscriber(email),
      });
      const transactions = vi.spyOn(t.db, 'transaction');
      let r;
      let began: number;
      try {
        r = await t.db.connection().execute(async (conn) => {
          await sql`BEGIN`.execute(conn);
          await sql`INSERT INTO users (id, email, role, first_name, last_name) VALUES (${loginId}, ${email}, 'subscriber', 'Race', 'Login')`.execute(
            conn,
          );
          const pending = s.createSubscription(
            ctx(),
            resolved,
            { origin: 'provider_initiated', subscriber: subscriber(email), macAddress: null, moveInDate: null },
            { subscriber: null },
          );
          // Commit only once the statement waits on the login's unique index (its snapshot predates the login).
          for (let i = 0; i < 500; i++) {
            const waiting = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE 'WITH w0 AS (insert into "users"%'`.execute(t.db);
            if (waiting.rows[0]!.n > 0) break;
            await new Promise((res) => setTimeout(res, 10));
          }
          await sql`COMMIT`.execute(conn);
          return pending;
        });
      } finally {
        began = transactions.mock.calls.length;
        transactions.mockRestore();
      }
      expect(began).toBe(1); // the fallback
      const sub = await t.db
        .selectFrom('subscribers')
        .select(['id', 'user_id'])
        .where('id', '=', r.subscriber_id)
        .executeTakeFirstOrThrow();
      expect(sub.user_id).toBe(loginId);
      expect(await usersOf(email)).toEqual([{ id: loginId }]);
      expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', ww.ports[1]!.id).execute()).toEqual([
        { id: r.subscription_id },
      ]);
    },
  );
});

describe('provider-initiated: the read keeps the documented answer order', () => {
  it('unknown plan wins over a missing port or unit; a retired plan is 422; then delivery mode, port, unit', async () => {
    const unknown = await provision({ plan_version_id: newId(), subscriber: subscriber() });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail).toBe('plan_version_id: unknown plan version for this provider');
    const retired = await createPlanVersion(t.db, w.provider.id);
    await t.db.updateTable('plan_versions').set({ active: false }).where('id', '=', retired.id).execute();
    const r2 = await provision({ plan_version_id: retired.id, location_hash: w.ports[4]!.locationHash, subscriber: subscriber() });
    expect(r2.json()).toEqual({ detail: 'plan_version_id: this plan version is no longer orderable' });
    expect((await provision({ plan_version_id: w.plan.id, subscriber: subscriber() })).json().detail).toMatch(
      /^location_hash: required for delivery_mode direct \(the default\)/,
    );
    expect(
      (
        await provision({ plan_version_id: w.plan.id, delivery_mode: 'direct', unit_id: w.first.units[4]!.id, subscriber: subscriber() })
      ).json().detail,
    ).toBe('location_hash: required for delivery_mode direct');
    expect(
      (
        await provision({
          plan_version_id: w.plan.id,
          delivery_mode: 'home_drop',
          location_hash: w.ports[4]!.locationHash,
          subscriber: subscriber(),
        })
      ).json().detail,
    ).toBe('unit_id: required for delivery_mode home_drop');
    expect(
      (await provision({ plan_version_id: w.plan.id, location_hash: 'loc_does_not_exist', subscriber: subscriber() })).json().detail,
    ).toBe('location_hash: unknown location for this provider');
    expect(
      (await provision({ plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: newId(), subscriber: subscriber() })).json()
        .detail,
    ).toBe('unit_id: unknown unit for this provider');
  });

  it("another provider's port, unit and plan are unknown; a building out of coverage is 422", async () => {
    const other = await createWorld(t);
    expect(
      (await provision({ plan_version_id: other.plan.id, location_hash: w.ports[5]!.locationHash, subscriber: subscriber() })).json()
        .detail,
    ).toBe('plan_version_id: unknown plan version for this provider');
    expect(
      (await provision({ plan_version_id: w.plan.id, location_hash: other.ports[0]!.locationHash, subscriber: subscriber() })).json()
        .detail,
    ).toBe('location_hash: unknown location for this provider');
    expect(
      (
        await provision({
          plan_version_id: w.plan.id,
          delivery_mode: 'home_drop',
          unit_id: other.second.units[0]!.id,
          subscriber: subscriber(),
        })
      ).json().detail,
    ).toBe('unit_id: unknown unit for this provider');
    const out = await createBuilding(t.db, w.provider.id, { lineType: 'first_line', units: ['9Z'] });
    await t.db.updateTable('buildings').set({ in_coverage: false }).where('id', '=', out.id).execute();
    const port = await createLocation(t.db, w.provider.id, out.id, out.units[0]!.id);
    const r = await provision({ plan_version_id: w.plan.id, location_hash: port.locationHash, subscriber: subscriber() });
    expect(r.statusCode).toBe(422);
    expect(r.json()).toEqual({ detail: 'The building is not in coverage' });
    expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', port.id).execute()).toEqual([]);
  });
});
