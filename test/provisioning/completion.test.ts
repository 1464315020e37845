import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createLocation, createProvider, createUser } from '../helpers/factories.js';
import { createSession, createWorld, installJobOf, portJobsOf, subscriber, subscriptionRow, webhookTypes, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

const complete = (body: Record<string, unknown>, headers: Record<string, string> = w.whs, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/external-checkout/complete`, headers, payload: body });
const anonymous = (body: Record<string, unknown>, headers: Record<string, string> = w.whs) =>
  t.app.inject({ method: 'POST', url: '/external-checkout/anonymous-complete', headers, payload: body });
const session = (o: Partial<Parameters<typeof createSession>[1]> = {}) =>
  createSession(t, { providerId: w.provider.id, planVersionId: w.plan.id, ...o });
const sessionRow = (id: string) => t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('session-based complete', () => {
  it('a first-line session with a port: 201 route provision, the session is completed and linked, origin checkout_session, provider-billed; on both mounts', async () => {
    for (const [i, prefix] of ['', '/api/v1'].entries()) {
      const s = await session({
        buildingId: w.first.id,
        unitId: w.first.units[i]!.id,
        locationId: w.ports[i]!.id,
        mac: 'AA:BB:CC:DD:EE:0' + i,
        partnerReference: `ref-${i}`,
      });
      const r = await complete({ session_id: s.id, subscriber: subscriber() }, w.whs, prefix);
      expect(r.statusCode).toBe(201);
      expect(r.json()).toEqual({
        route: 'provision',
        job_id: expect.any(String),
        subscription_id: expect.any(String),
        subscriber_id: expect.any(String),
        message: expect.any(String),
      });
      const id = r.json().subscription_id;
      expect(await sessionRow(s.id)).toMatchObject({ status: 'completed', subscription_id: id, completed_at: t.clock.now() });
      expect(await subscriptionRow(t, id)).toMatchObject({
        status: 'ACTIVE',
        origin: 'checkout_session',
        checkout_session_id: s.id,
        service_billed: false,
        location_id: w.ports[i]!.id,
        unit_id: w.first.units[i]!.id,
        plan_version_id: w.plan.id,
        mac_address: 'AA:BB:CC:DD:EE:0' + i,
      });
      const hooks = await webhookTypes(t, id);
      expect(hooks.map((h) => h.event_type)).toEqual(['subscription.activated']);
      expect((hooks[0]!.payload as { data: Record<string, unknown> }).data).toMatchObject({
        checkout_session_id: s.id,
        partner_reference: `ref-${i}`,
        job_id: r.json().job_id,
      });
    }
  });

  it('the session wins: payload location_hash, unit_id, plan_version_id and mac_address that disagree, and delivery_mode, are ignored', async () => {
    const s = await session({ buildingId: w.first.id, unitId: w.first.units[2]!.id, locationId: w.ports[2]!.id, mac: null });
    const r = await complete({
      session_id: s.id,
      subscriber: subscriber(),
      location_hash: w.ports[3]!.locationHash,
      unit_id: w.second.units[0]!.id,
      plan_version_id: w.plan2.id,
      mac_address: '11:22:33:44:55:66',
      delivery_mode: 'home_drop',
    });
    expect(r.statusCode).toBe(201);
    expect(r.json().route).toBe('provision');
    expect(await subscriptionRow(t, r.json().subscription_id)).toMatchObject({
      location_id: w.ports[2]!.id,
      plan_version_id: w.plan.id,
      mac_address: null,
    });
    expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', w.ports[3]!.id).execute()).toEqual([]);
  });

  it('a first-line session with only building and suite (no port) takes the install path', async () => {
    const s = await session({ buildingId: w.first.id, unitId: w.first.units[5]!.id });
    const r = await complete({ session_id: s.id, subscriber: subscriber() });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'install', job_id: null });
    expect(await subscriptionRow(t, r.json().subscription_id)).toMatchObject({ status: 'PENDING_INSTALL', location_id: null });
    expect(await installJobOf(t, r.json().subscription_id)).toMatchObject({ kind: 'technician_visit', status: 'CREATED' });
    expect((await webhookTypes(t, r.json().subscription_id)).map((h) => h.event_type)).toEqual(['subscription.pending_install']);
  });

  it('a second-line session with a location but a non-first-line building never provisions the switch: install path', async () => {
    const loc = await createLocation(t.db, w.provider.id, w.second.id, w.second.units[1]!.id);
    const s = await session({ buildingId: w.second.id, unitId: w.second.units[1]!.id, locationId: loc.id });
    const r = await complete({ session_id: s.id, subscriber: subscriber() });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'install', job_id: null });
    expect(await installJobOf(t, r.json().subscription_id)).toMatchObject({ kind: 'cpe_shipment' });
    expect(await portJobsOf(t, r.json().subscription_id)).toEqual([]);
  });

  it('a session with neither a port nor a unit answers 422 and stays open', async () => {
    for (const b of [w.third, w.first]) {
      const s = await session({ buildingId: b.id });
      const r = await complete({ session_id: s.id, subscriber: subscriber() });
      expect(r.statusCode).toBe(422);
      expect((await sessionRow(s.id)).status).toBe('redirected');
    }
  });

  it('a completed session replays {subscription_id, subscriber_id, message} with 200 and no job_id, creating nothing', async () => {
    const s = await session({ buildingId: w.first.id, unitId: w.first.units[4]!.id, locationId: w.ports[4]!.id });
    const first = await complete({ session_id: s.id, subscriber: subscriber() });
    const again = await complete({ session_id: s.id, subscriber: subscriber() });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      subscription_id: first.json().subscription_id,
      subscriber_id: first.json().subscriber_id,
      message: 'Session already completed (idempotent replay)',
    });
    expect(await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', s.id).execute()).toHaveLength(1);
    expect(await portJobsOf(t, first.json().subscription_id)).toHaveLength(1);
  });

  it('a pending session within its 2 hours completes; past them it answers 410 (nested detail) and is marked expired, even before the secret is checked', async () => {
    const fresh = await session({ status: 'pending', buildingId: w.third.id, unitId: w.third.units[4]!.id });
    expect((await complete({ session_id: fresh.id, subscriber: subscriber() })).statusCode).toBe(201);
    const old = await session({
      status: 'pending',
      buildingId: w.third.id,
      unitId: w.third.units[5]!.id,
      createdAt: new Date(t.clock.now().getTime() - 2 * 3_600_000),
    });
    const r = await complete({ session_id: old.id, subscriber: subscriber() }, {});
    expect(r.statusCode).toBe(410);
    expect(r.json()).toEqual({ detail: { code: 'session_expired', detail: 'Session expired' } });
    expect((await sessionRow(old.id)).status).toBe('expired');
    const again = await complete({ session_id: old.id, subscriber: subscriber() });
    expect(again.statusCode).toBe(410);
    expect(await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', old.id).execute()).toEqual([]);
  });

  it('a cancelled session answers 410 `Session cancelled`', async () => {
    const s = await session({ status: 'cancelled', buildingId: w.third.id, unitId: w.third.units[3]!.id });
    const r = await complete({ session_id: s.id, subscriber: subscriber() });
    expect(r.statusCode).toBe(410);
    expect(r.json().detail).toMatchObject({ detail: 'Session cancelled' });
  });

  it("the secret must be the session provider's: missing 401, wrong 403; another provider's session answers 404 exactly like an unknown one", async () => {
    const s = await session({ buildingId: w.third.id, unitId: w.third.units[2]!.id });
    const other = await createProvider(t.db);
    expect((await complete({ session_id: s.id, subscriber: subscriber() }, {})).statusCode).toBe(401);
    expect(
      (await complete({ session_id: s.id, subscriber: subscriber() }, { 'x-webhook-secret': 'whs_aaaaaaaa_' + 'x'.repeat(40) })).statusCode,
    ).toBe(403);
    const foreign = await complete({ session_id: s.id, subscriber: subscriber() }, { 'x-webhook-secret': other.webhookSecret });
    expect(foreign.statusCode).toBe(404);
    expect((await sessionRow(s.id)).status).toBe('redirected');
    const unknown = await complete({ session_id: '00000000-0000-4000-8000-000000000000', subscriber: subscriber() });
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json()).toEqual(unknown.json());
  });

  it("a session linked to a subscriber account links the new subscriber to that login when the subscriber is that login's person (same email, any case); another email gets its own login", async () => {
    const u = await createUser(t.db, { role: 'subscriber' });
    const s = await session({ buildingId: w.second.id, unitId: w.second.units[2]!.id, userId: u.id });
    const r = await complete({ session_id: s.id, subscriber: subscriber(u.email.toUpperCase()) });
    expect(r.statusCode).toBe(201);
    const sub = await t.db.selectFrom('subscribers').select('user_id').where('id', '=', r.json().subscriber_id).executeTakeFirstOrThrow();
    expect(sub.user_id).toBe(u.id);

    const passedOn = await session({ buildingId: w.second.id, unitId: w.second.units[3]!.id, userId: u.id });
    const buyer = subscriber();
    const other = await complete({ session_id: passedOn.id, subscriber: buyer });
    expect(other.statusCode).toBe(201);
    const buyerLogin = await t.db.selectFrom('users').select(['id', 'email']).where('email', '=', buyer.email).executeTakeFirstOrThrow();
    const buyerRow = await t.db
      .selectFrom('subscribers')
      .select('user_id')
      .where('id', '=', other.json().subscriber_id)
      .executeTakeFirstOrThrow();
    expect(buyerRow.user_id).toBe(buyerLogin.id);
    expect(buyerLogin.id).not.toBe(u.id);
  });
});

describe('explicit-fields complete (legacy)', () => {
  it('direct (default with location_hash) on a first-line port provisions; a repeat answers 200 without job_id', async () => {
    const loc = await createLocation(t.db, w.provider.id, w.first.id, null);
    const body = { plan_version_id: w.plan.id, location_hash: loc.locationHash, subscriber: subscriber() };
    const r = await complete(body);
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'provision', job_id: expect.any(String) });
    expect((await subscriptionRow(t, r.json().subscription_id)).origin).toBe('explicit');
    const again = await complete(body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      subscription_id: r.json().subscription_id,
      subscriber_id: r.json().subscriber_id,
      message: 'Subscription already exists (idempotent replay)',
    });
  });

  it('direct on a building that is not first-line is refused with 422; home_drop with a unit takes the install path', async () => {
    const loc = await createLocation(t.db, w.provider.id, w.third.id, w.third.units[0]!.id);
    const mismatch = await complete({
      plan_version_id: w.plan.id,
      delivery_mode: 'direct',
      location_hash: loc.locationHash,
      subscriber: subscriber(),
    });
    expect(mismatch.statusCode).toBe(422);
    const home = await complete({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.unclassified.units[0]!.id,
      subscriber: subscriber(),
    });
    expect(home.statusCode).toBe(201);
    expect(home.json()).toMatchObject({ route: 'install', job_id: null });
  });

  it('without session_id, plan_version_id is required (422)', async () => {
    const r = await complete({ unit_id: w.unclassified.units[1]!.id, subscriber: subscriber() });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^plan_version_id: /);
  });
});

describe('anonymous-complete', () => {
  it('is idempotent on external_subscription_id: 201 idempotent_replay false, then 200 with the same subscription and idempotent_replay true', async () => {
    const s = await session({ buildingId: w.unclassified.id, unitId: w.unclassified.units[2]!.id });
    const ext = `ext-${Date.now()}`;
    const a = await anonymous({ session_id: s.id, external_subscription_id: ext, subscriber: subscriber() });
    expect(a.statusCode).toBe(201);
    expect(a.json()).toMatchObject({ route: 'install', job_id: null, idempotent_replay: false });
    expect(await subscriptionRow(t, a.json().subscription_id)).toMatchObject({
      origin: 'anonymous',
      external_subscription_id: ext,
      checkout_session_id: s.id,
    });
    const b = await anonymous({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.unclassified.units[3]!.id,
      external_subscription_id: ext,
      subscriber: subscriber(),
    });
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual({
      subscription_id: a.json().subscription_id,
      subscriber_id: a.json().subscriber_id,
      message: expect.any(String),
      idempotent_replay: true,
    });
    expect(await t.db.selectFrom('subscriptions').select('id').where('unit_id', '=', w.unclassified.units[3]!.id).execute()).toEqual([]);
  });

  it('an already completed session_id replays the existing subscription with idempotent_replay true', async () => {
    const s = await session({ buildingId: w.unclassified.id, unitId: w.unclassified.units[4]!.id });
    const a = await complete({ session_id: s.id, subscriber: subscriber() });
    const b = await anonymous({ session_id: s.id, subscriber: subscriber() });
    expect(b.statusCode).toBe(200);
    expect(b.json()).toMatchObject({ subscription_id: a.json().subscription_id, idempotent_replay: true });
    expect(b.json()).not.toHaveProperty('job_id');
  });

  it('takes the same X-Webhook-Secret as complete', async () => {
    const r = await anonymous(
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.unclassified.units[5]!.id, subscriber: subscriber() },
      {},
    );
    expect(r.statusCode).toBe(401);
    const ok = await anonymous(
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.unclassified.units[5]!.id, subscriber: subscriber() },
      w.whs,
    );
    expect(ok.statusCode).toBe(201);
    expect(ok.json().idempotent_replay).toBe(false);
  });
});
