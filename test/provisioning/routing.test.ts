import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';
import { createWorld, installJobOf, portJobsOf, subscriber, subscriptionRow, webhookTypes, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

const provision = (body: Record<string, unknown>, prefix = '', headers: Record<string, string> = w.hdr) =>
  t.app.inject({ method: 'POST', url: `${prefix}/provisioning/provider-initiated`, headers, payload: body });

describe('routing table: first-line with a port', () => {
  it('a first-line location with a switch port is ACTIVE at once with a queued port job, route provision, on both mounts', async () => {
    for (const [i, prefix] of ['', '/api/v1'].entries()) {
      const r = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[i]!.locationHash, subscriber: subscriber() }, prefix);
      expect(r.statusCode).toBe(201);
      const body = r.json();
      expect(body).toEqual({
        route: 'provision',
        job_id: expect.any(String),
        subscription_id: expect.any(String),
        subscriber_id: expect.any(String),
        message: expect.any(String),
      });
      const sub = await subscriptionRow(t, body.subscription_id);
      expect(sub).toMatchObject({
        status: 'ACTIVE',
        location_id: w.ports[i]!.id,
        unit_id: w.first.units[i]!.id,
        building_id: w.first.id,
        origin: 'provider_initiated',
        service_billed: false,
      });
      expect(sub.activated_at).toEqual(t.clock.now());
      const jobs = await portJobsOf(t, body.subscription_id);
      expect(jobs.map((j) => [j.id, j.status, j.payload])).toEqual([
        [body.job_id, 'queued', { subscription_id: body.subscription_id, reason: 'activate' }],
      ]);
      expect(await installJobOf(t, body.subscription_id)).toBeUndefined();
      // subscription.activated is written in the creating transaction; nothing else yet.
      expect((await webhookTypes(t, body.subscription_id)).map((d) => d.event_type)).toEqual(['subscription.activated']);
      expect(await t.db.selectFrom('invoices').select('id').where('subscription_id', '=', body.subscription_id).execute()).toEqual([]);
    }
  });
});

describe('routing table: install path', () => {
  it('first-line with only a unit (no port) takes the install path: PENDING_INSTALL, technician visit, job_id null', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.first.units[5]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'install', job_id: null });
    const id = r.json().subscription_id;
    expect(await subscriptionRow(t, id)).toMatchObject({
      status: 'PENDING_INSTALL',
      unit_id: w.first.units[5]!.id,
      location_id: null,
      activated_at: null,
    });
    expect(await installJobOf(t, id)).toMatchObject({ kind: 'technician_visit', status: 'CREATED', unit_id: w.first.units[5]!.id });
    expect(await portJobsOf(t, id)).toEqual([]);
    expect((await webhookTypes(t, id)).map((d) => d.event_type)).toEqual(['subscription.pending_install']);
  });

  it('a second-line building ships a CPE (cpe_shipment, no booking link)', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[0]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'install', job_id: null });
    const id = r.json().subscription_id;
    expect(await installJobOf(t, id)).toMatchObject({ kind: 'cpe_shipment', status: 'CREATED', booking_invite_sent_at: null });
    expect(
      await t.db
        .selectFrom('link_tokens')
        .select('id')
        .where('purpose', '=', 'booking')
        .where('subscriber_id', '=', r.json().subscriber_id)
        .execute(),
    ).toEqual([]);
    expect((await webhookTypes(t, id)).map((d) => d.event_type)).toEqual(['subscription.pending_install']);
  });

  it('a third-line building raises a technician visit and mails a booking link at once (no move-in date)', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.third.units[0]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    const { subscription_id: id, subscriber_id: sid } = r.json();
    expect(await installJobOf(t, id)).toMatchObject({
      kind: 'technician_visit',
      status: 'BOOKING_SENT',
      booking_invite_sent_at: t.clock.now(),
    });
    expect(await t.db.selectFrom('link_tokens').select('purpose').where('subscriber_id', '=', sid).execute()).toEqual([
      { purpose: 'booking' },
    ]);
    const mails = await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'mail.send').execute();
    expect(
      mails.some(
        (m) =>
          (m.payload as { tag?: string; text?: string }).tag === 'installation_booking' &&
          String((m.payload as { text: string }).text).includes('http://api.test/booking/'),
      ),
    ).toBe(true);
  });

  it('an unclassified (NULL line type) building takes the install path with a technician visit', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.unclassified.units[0]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ route: 'install', job_id: null });
    expect(await installJobOf(t, r.json().subscription_id)).toMatchObject({ kind: 'technician_visit', status: 'CREATED' });
  });
});

describe('routing table: fail closed (422)', () => {
  it('neither a port nor a unit answers 422 and writes nothing', async () => {
    const before = await t.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const r = await provision({ plan_version_id: w.plan.id, subscriber: subscriber() });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/location_hash|unit_id/);
    const after = await t.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
  });

  it('delivery_mode direct on a building that is not first-line is a mismatch: 422', async () => {
    const loc = await createLocation(t.db, w.provider.id, w.second.id, w.second.units[5]!.id);
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'direct',
      location_hash: loc.locationHash,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/first-line/);
    expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', loc.id).execute()).toEqual([]);
  });

  it('delivery_mode direct on a first-line location without a switch port: 422', async () => {
    const b = await createBuilding(t.db, w.provider.id, { lineType: 'first_line', units: ['X'] });
    const loc = await createLocation(t.db, w.provider.id, b.id, b.units[0]!.id, { port: null });
    const r = await provision({ plan_version_id: w.plan.id, location_hash: loc.locationHash, subscriber: subscriber() });
    expect(r.statusCode).toBe(422);
  });

  it('direct without location_hash and home_drop without unit_id answer 422 naming the field', async () => {
    const a = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'direct',
      unit_id: w.second.units[1]!.id,
      subscriber: subscriber(),
    });
    expect(a.statusCode).toBe(422);
    expect(a.json().detail).toMatch(/^location_hash: /);
    const b = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      location_hash: w.ports[4]!.locationHash,
      subscriber: subscriber(),
    });
    expect(b.statusCode).toBe(422);
    expect(b.json().detail).toMatch(/^unit_id: /);
  });

  it('delivery_mode defaults to direct: a unit_id without delivery_mode is 422 naming delivery_mode (provider-initiated, bulk, explicit complete), never a silent home_drop', async () => {
    const unit = (await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: ['Z1'] })).units[0]!.id;
    const pi = await provision({ plan_version_id: w.plan.id, unit_id: unit, subscriber: subscriber() });
    expect(pi.statusCode).toBe(422);
    expect(pi.json()).toEqual({ detail: expect.stringMatching(/^delivery_mode: .*location_hash/) });
    const bulk = await t.app.inject({
      method: 'POST',
      url: '/provisioning/bulk',
      headers: w.hdr,
      payload: { items: [{ plan_version_id: w.plan.id, unit_id: unit, subscriber: subscriber() }] },
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json().results[0]).toMatchObject({ index: 0, status: 'error', error: expect.stringMatching(/^delivery_mode: /) });
    const complete = await t.app.inject({
      method: 'POST',
      url: '/external-checkout/complete',
      headers: w.whs,
      payload: { plan_version_id: w.plan.id, unit_id: unit, subscriber: subscriber() },
    });
    expect(complete.statusCode).toBe(422);
    expect(complete.json().detail).toMatch(/^delivery_mode: /);
    expect(await t.db.selectFrom('subscriptions').select('id').where('unit_id', '=', unit).execute()).toEqual([]);
    // Neither field: the default (direct) asks for location_hash.
    const none = await provision({ plan_version_id: w.plan.id, subscriber: subscriber() });
    expect(none.json().detail).toMatch(/^location_hash: .*default/);
    // Stated, the same unit takes the install path.
    const ok = await provision({ plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: unit, subscriber: subscriber() });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().route).toBe('install');
  });

  it("unknown plan, location or unit, another provider's plan, a building out of coverage: 422", async () => {
    const other = await createProvider(t.db);
    const otherPlan = await createPlanVersion(t.db, other.id);
    const out = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: ['Z'] });
    await t.db.updateTable('buildings').set({ in_coverage: false }).where('id', '=', out.id).execute();
    const cases = [
      { plan_version_id: otherPlan.id, delivery_mode: 'home_drop', unit_id: w.second.units[2]!.id },
      { plan_version_id: w.plan.id, location_hash: 'loc_nope' },
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: '00000000-0000-4000-8000-000000000000' },
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: out.units[0]!.id },
    ];
    for (const c of cases) {
      const r = await provision({ ...c, subscriber: subscriber() });
      expect(r.statusCode, JSON.stringify(c)).toBe(422);
    }
  });

  it('schema failures answer 422 "<field>: <message>"', async () => {
    const r = await provision({
      plan_version_id: 'nope',
      delivery_mode: 'home_drop',
      unit_id: w.second.units[2]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^plan_version_id: /);
    const m = await provision({
      plan_version_id: w.plan.id,
      location_hash: w.ports[4]!.locationHash,
      mac_address: 'zz',
      subscriber: subscriber(),
    });
    expect(m.statusCode).toBe(422);
    expect(m.json().detail).toMatch(/^mac_address: /);
    const e = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[2]!.id,
      subscriber: { ...subscriber(), email: 'not-an-email' },
    });
    expect(e.statusCode).toBe(422);
    expect(e.json().detail).toMatch(/^subscriber\.email: /);
  });
});

describe('unit occupancy', () => {
  it('a unit with a PENDING_INSTALL, ACTIVE or SUSPENDED subscription answers 409 with the documented detail', async () => {
    const b = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: ['P', 'A', 'S', 'C'] });
    const s = await createSubscriber(t.db, w.provider.id);
    for (const [i, status] of (['PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'] as const).entries()) {
      await createSubscription(t.db, {
        providerId: w.provider.id,
        subscriberId: s.id,
        planVersionId: w.plan.id,
        buildingId: b.id,
        unitId: b.units[i]!.id,
        status,
      });
      const r = await provision({
        plan_version_id: w.plan.id,
        delivery_mode: 'home_drop',
        unit_id: b.units[i]!.id,
        subscriber: subscriber(),
      });
      expect(r.statusCode).toBe(409);
      expect(r.json()).toEqual({ detail: 'Unit already has a pending or active subscription' });
    }
    // A CANCELLED subscription frees the unit.
    await createSubscription(t.db, {
      providerId: w.provider.id,
      subscriberId: s.id,
      planVersionId: w.plan.id,
      buildingId: b.id,
      unitId: b.units[3]!.id,
      status: 'CANCELLED',
    });
    const ok = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: b.units[3]!.id,
      subscriber: subscriber(),
    });
    expect(ok.statusCode).toBe(201);
    const rows = await t.db
      .selectFrom('subscriptions')
      .select('status')
      .where('unit_id', '=', b.units[3]!.id)
      .orderBy('created_at')
      .execute();
    expect(rows.map((r) => r.status).sort()).toEqual(['CANCELLED', 'PENDING_INSTALL']);
  });
});

describe('subscriber creation', () => {
  it('a new subscriber gets a customer number and a subscriber login without password; a second order by the same email (any case) reuses it', async () => {
    const email = `Reuse-${Date.now()}@Example.test`;
    const a = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[3]!.id,
      subscriber: { email, first_name: 'Ada', last_name: 'Lovelace', phone: '030 1234567' },
    });
    expect(a.statusCode).toBe(201);
    const sub = await t.db.selectFrom('subscribers').selectAll().where('id', '=', a.json().subscriber_id).executeTakeFirstOrThrow();
    expect(sub.customer_number).toMatch(/^[A-Z]{4}-\d{4}$/);
    expect(sub).toMatchObject({ provider_id: w.provider.id, email, first_name: 'Ada', phone_e164: '+49301234567' });
    const user = await t.db.selectFrom('users').selectAll().where('id', '=', sub.user_id!).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ role: 'subscriber', password_hash: null, email });
    const b = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[4]!.id,
      subscriber: { email: email.toLowerCase(), first_name: 'Other', last_name: 'Name' },
    });
    expect(b.statusCode).toBe(201);
    expect(b.json().subscriber_id).toBe(a.json().subscriber_id);
    const again = await t.db
      .selectFrom('subscribers')
      .select('first_name')
      .where('id', '=', a.json().subscriber_id)
      .executeTakeFirstOrThrow();
    expect(again.first_name).toBe('Ada');
  });
});

describe('authentication', () => {
  it('no key 401, wrong key 403, a key without provisioning:write 403', async () => {
    const body = { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.second.units[5]!.id, subscriber: subscriber() };
    expect((await provision(body, '', {})).statusCode).toBe(401);
    expect((await provision(body, '', { 'x-api-key': `${w.provider.apiKey.slice(0, 13)}${'x'.repeat(40)}` })).statusCode).toBe(403);
    const limited = await createProvider(t.db, { features: ['serviceability:read'] });
    const r = await provision(body, '', { 'x-api-key': limited.apiKey });
    expect(r.statusCode).toBe(403);
  });
});
