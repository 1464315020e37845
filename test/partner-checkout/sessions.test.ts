import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createCheckoutSession,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
  createUser,
} from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());
afterEach(() => t.clock.set(DEFAULT_NOW));

const MOUNTS = ['', '/api/v1'];
const HOUR = 3_600_000;
const EXPIRED = { detail: { code: 'session_expired', detail: 'Session expired' } };
const CANCELLED = { detail: { code: 'session_cancelled', detail: 'Session cancelled' } };

async function world(o: { externalCheckoutUrl?: string | null } = {}) {
  const p = await createProvider(t.db, { externalCheckoutUrl: o.externalCheckoutUrl });
  const plan = await createPlanVersion(t.db, p.id, { name: 'Fibre 250', priceCents: 3999, down: 250, up: 50, storeProductId: 'prod_250' });
  const upsell = await createPlanVersion(t.db, p.id, {
    name: 'Fibre 1000',
    priceCents: 5999,
    down: 1000,
    up: 200,
    storeProductId: 'prod_1000',
  });
  const building = await createBuilding(t.db, p.id, {
    street: 'Hauptstraße',
    houseNumber: '12a',
    postalCode: '10115',
    city: 'Berlin',
    units: ['4B', '5C'],
  });
  const loc = await createLocation(t.db, p.id, building.id, building.units[0]!.id);
  return { p, plan, upsell, building, loc };
}

const createSession = (payload: object, headers: Record<string, string> = {}, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/external-checkout/sessions`, payload, headers });
const getSession = (id: string, secret?: string, prefix = '') =>
  t.app.inject({ method: 'GET', url: `${prefix}/external-checkout/sessions/${id}`, headers: secret ? { 'x-webhook-secret': secret } : {} });
const patchSession = (id: string, payload: object, secret?: string, prefix = '') =>
  t.app.inject({
    method: 'PATCH',
    url: `${prefix}/external-checkout/sessions/${id}`,
    payload,
    headers: secret ? { 'x-webhook-secret': secret } : {},
  });
const sessionStatus = (id: string, prefix = '') =>
  t.app.inject({ method: 'GET', url: `${prefix}/external-checkout/sessions/${id}/status` });
const row = (id: string) => t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
const hoursAgo = (h: number) => new Date(t.clock.now().getTime() - h * HOUR);

describe('POST /external-checkout/sessions', () => {
  it('creates a pending session and answers 201 with the provider checkout URL plus ?session_id, on both mounts', async () => {
    const w = await world();
    for (const prefix of MOUNTS) {
      const r = await createSession(
        {
          provider_id: w.p.id,
          plan_version_id: w.plan.id,
          location_hash: w.loc.locationHash,
          mac_address: 'aa-bb-cc-dd-ee-01',
          partner_reference: 'mkt-1',
        },
        {},
        prefix,
      );
      expect(r.statusCode).toBe(201);
      const body = r.json();
      expect(body).toEqual({
        session_id: expect.any(String),
        checkout_url: `https://checkout.provider.test/pay?session_id=${body.session_id}`,
        status: 'pending',
        expires_at: new Date(new Date(DEFAULT_NOW).getTime() + 2 * HOUR).toISOString(),
      });
      const db = await row(body.session_id);
      expect(db).toMatchObject({
        status: 'pending',
        provider_id: w.p.id,
        plan_version_id: w.plan.id,
        building_id: w.building.id,
        unit_id: w.building.units[0]!.id,
        location_id: w.loc.id,
        mac_address: 'AA:BB:CC:DD:EE:01',
        user_id: null,
        partner_reference: 'mkt-1',
        subscription_id: null,
      });
      expect(db!.created_at.toISOString()).toBe(DEFAULT_NOW);
    }
  });

  it('appends session_id with & when the checkout URL already has a query', async () => {
    const w = await world({ externalCheckoutUrl: 'https://shop.example.test/checkout?lang=de' });
    const r = await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, unit_id: w.building.units[1]!.id });
    expect(r.statusCode).toBe(201);
    expect(r.json().checkout_url).toBe(`https://shop.example.test/checkout?lang=de&session_id=${r.json().session_id}`);
    expect(await row(r.json().session_id)).toMatchObject({
      unit_id: w.building.units[1]!.id,
      building_id: w.building.id,
      location_id: null,
    });
  });

  it('answers 503 {detail} and stores nothing when the provider has no external_checkout_url', async () => {
    const w = await world({ externalCheckoutUrl: null });
    const r = await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id });
    expect(r.statusCode).toBe(503);
    expect(typeof r.json().detail).toBe('string');
    const count = await t.db
      .selectFrom('checkout_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider_id', '=', w.p.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it("refuses with 422 a plan, unit, location or building that is not the provider's, a place missing, or a building out of coverage", async () => {
    const w = await world();
    const o = await world();
    const cases: [object, RegExp][] = [
      [{ provider_id: w.p.id, plan_version_id: o.plan.id, building_id: w.building.id }, /^plan_version_id: /],
      [{ provider_id: w.p.id, plan_version_id: w.plan.id, unit_id: o.building.units[0]!.id }, /^unit_id: /],
      [{ provider_id: w.p.id, plan_version_id: w.plan.id, location_hash: o.loc.locationHash }, /^location_hash: /],
      [{ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: o.building.id }, /^building_id: /],
      [
        { provider_id: w.p.id, plan_version_id: w.plan.id, location_hash: w.loc.locationHash, unit_id: w.building.units[1]!.id },
        /^unit_id: /,
      ],
      [{ provider_id: w.p.id, plan_version_id: w.plan.id }, /^Provide location_hash, unit_id or building_id$/],
      [{ provider_id: '00000000-0000-4000-8000-000000000000', plan_version_id: w.plan.id, building_id: w.building.id }, /^provider_id: /],
      [{ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id, mac_address: 'not-a-mac' }, /^mac_address: /],
      [
        { provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id, partner_reference: 'x'.repeat(201) },
        /^partner_reference: /,
      ],
    ];
    for (const [payload, detail] of cases) {
      const r = await createSession(payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(422);
      expect(r.json().detail).toMatch(detail);
    }
    await t.db.updateTable('buildings').set({ in_coverage: false }).where('id', '=', w.building.id).execute();
    const outside = await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().detail).toBe('building_id: building is not in coverage');
    const count = await t.db
      .selectFrom('checkout_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider_id', '=', w.p.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('an optional subscriber Bearer links the session to the account; a present but invalid token answers 403', async () => {
    const w = await world();
    const u = await createUser(t.db);
    const token = (await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null })).access_token;
    const linked = await createSession(
      { provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id },
      { authorization: `Bearer ${token}` },
    );
    expect(linked.statusCode).toBe(201);
    expect((await row(linked.json().session_id))!.user_id).toBe(u.id);
    const bad = await createSession(
      { provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id },
      { authorization: 'Bearer not.a.jwt' },
    );
    expect(bad.statusCode).toBe(403);
    expect(bad.json()).toEqual({ detail: 'Invalid credentials' });
    const count = await t.db
      .selectFrom('checkout_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('provider_id', '=', w.p.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });
});

describe('GET /external-checkout/sessions/{id}', () => {
  it('the first read moves pending → redirected and embeds plan, units.buildings and provider, on both mounts', async () => {
    for (const prefix of MOUNTS) {
      const w = await world();
      const c = await createSession({
        provider_id: w.p.id,
        plan_version_id: w.plan.id,
        location_hash: w.loc.locationHash,
        mac_address: 'AA:BB:CC:DD:EE:02',
      });
      const id = c.json().session_id;
      t.clock.advance(60_000);
      const r = await getSession(id, w.p.webhookSecret, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        session_id: id,
        status: 'redirected',
        provider_id: w.p.id,
        plan_version_id: w.plan.id,
        building_id: w.building.id,
        unit_id: w.building.units[0]!.id,
        partner_reference: null,
        subscription_id: null,
        subscription_status: null,
        created_at: DEFAULT_NOW,
        expires_at: null,
        redirected_at: t.clock.now().toISOString(),
        completed_at: null,
        plan: {
          plan_version_id: w.plan.id,
          name: 'Fibre 250',
          monthly_price: '39.99',
          currency: 'EUR',
          store_product_id: 'prod_250',
          bandwidth: { download_mbps: 250, upload_mbps: 50 },
        },
        units: {
          unit_id: w.building.units[0]!.id,
          label: '4B',
          floor: null,
          buildings: {
            building_id: w.building.id,
            street: 'Hauptstraße',
            house_number: '12a',
            city: 'Berlin',
            postal_code: '10115',
            province: null,
            country: 'DE',
          },
        },
        provider: {
          id: w.p.id,
          name: w.p.name,
          branding: { display_name: w.p.name, logo_url: null, primary_color: '#0055aa', support_phone: '+49 30 1234567' },
        },
      });
      expect(r.body).not.toContain('AA:BB:CC:DD:EE:02');
      expect(await row(id)).toMatchObject({ status: 'redirected', redirected_at: t.clock.now() });
      t.clock.set(DEFAULT_NOW);
    }
  });

  it('simultaneous first reads all answer 200 and move the session to redirected once', async () => {
    const w = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    const rs = await Promise.all(Array.from({ length: 5 }, () => getSession(id, w.p.webhookSecret)));
    expect(rs.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(rs.map((r) => r.json().redirected_at)).size).toBe(1);
    expect((await row(id))!.status).toBe('redirected');
  });

  it('a read session never expires again: read twice, the second 3 hours later, still 200 redirected', async () => {
    const w = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    expect((await getSession(id, w.p.webhookSecret)).statusCode).toBe(200);
    t.clock.advance(3 * HOUR);
    const again = await getSession(id, w.p.webhookSecret);
    expect(again.statusCode).toBe(200);
    expect(again.json().status).toBe('redirected');
    expect((await row(id))!.status).toBe('redirected');
  });

  it('the TTL check runs before authentication: a pending session over 2 hours old answers 410 without, with a wrong, and with the right secret, and is marked expired', async () => {
    const w = await world();
    const other = await createProvider(t.db);
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    t.clock.advance(2 * HOUR + 1000);
    const missing = await getSession(id);
    expect(missing.statusCode).toBe(410);
    expect(missing.json()).toEqual(EXPIRED);
    expect((await row(id))!.status).toBe('expired');
    for (const secret of [`whs_abcdefgh_${'x'.repeat(40)}`, other.webhookSecret, w.p.webhookSecret]) {
      const r = await getSession(id, secret, '/api/v1');
      expect(r.statusCode).toBe(410);
      expect(r.json()).toEqual(EXPIRED);
    }
    expect((await row(id))!.status).toBe('expired');
  });

  it('expires exactly 2 hours after creation: one millisecond earlier the first read still succeeds', async () => {
    const w = await world();
    const a = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    const b = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    t.clock.advance(2 * HOUR - 1);
    expect((await getSession(a, w.p.webhookSecret)).statusCode).toBe(200);
    t.clock.advance(1);
    expect((await getSession(b, w.p.webhookSecret)).statusCode).toBe(410);
    expect((await row(a))!.status).toBe('redirected');
    expect((await row(b))!.status).toBe('expired');
  });

  it('a cancelled session answers 410 with inner detail "Session cancelled", before authentication', async () => {
    const w = await world();
    const s = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'cancelled',
      createdAt: hoursAgo(1),
    });
    for (const secret of [undefined, w.p.webhookSecret]) {
      const r = await getSession(s.id, secret);
      expect(r.statusCode).toBe(410);
      expect(r.json()).toEqual(CANCELLED);
    }
    expect((await row(s.id))!.status).toBe('cancelled');
  });

  it("a live session needs the secret of its own provider: missing 401, wrong 403, another provider's 404 (like an unknown id), and stays pending", async () => {
    const w = await world();
    const other = await createProvider(t.db);
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    const missing = await getSession(id);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ detail: 'Not authenticated' });
    const wrong = await getSession(id, `whs_abcdefgh_${'x'.repeat(40)}`);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ detail: 'Invalid credentials' });
    const foreign = await getSession(id, other.webhookSecret);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Checkout session not found' });
    expect((await row(id))!.status).toBe('pending');
  });

  it('an unknown session answers 404 to an authenticated caller and 401 without a secret; a malformed id 422', async () => {
    const w = await world();
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await getSession(unknown, w.p.webhookSecret)).statusCode).toBe(404);
    expect((await getSession(unknown, w.p.webhookSecret)).json()).toEqual({ detail: 'Checkout session not found' });
    expect((await getSession(unknown)).statusCode).toBe(401);
    const bad = await getSession('nope', w.p.webhookSecret);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^session_id: /);
  });

  it('renders a building whose address fields are all null as nulls under units.buildings', async () => {
    const w = await world();
    await t.db
      .updateTable('buildings')
      .set({ street: null, house_number: null, city: null, postal_code: null, province: null, country: null })
      .where('id', '=', w.building.id)
      .execute();
    const s = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      createdAt: t.clock.now(),
    });
    const r = await getSession(s.id, w.p.webhookSecret);
    expect(r.statusCode).toBe(200);
    expect(r.json().units).toEqual({
      unit_id: null,
      label: null,
      floor: null,
      buildings: {
        building_id: w.building.id,
        street: null,
        house_number: null,
        city: null,
        postal_code: null,
        province: null,
        country: null,
      },
    });
  });

  it('a completed session reads 200 with its subscription and subscription_status', async () => {
    const w = await world();
    const sub = await createSubscriber(t.db, w.p.id);
    const s = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'completed',
      createdAt: hoursAgo(5),
    });
    const subscription = await createSubscription(t.db, {
      providerId: w.p.id,
      subscriberId: sub.id,
      planVersionId: w.plan.id,
      status: 'PENDING_INSTALL',
    });
    await t.db.updateTable('checkout_sessions').set({ subscription_id: subscription.id }).where('id', '=', s.id).execute();
    const r = await getSession(s.id, w.p.webhookSecret);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      status: 'completed',
      subscription_id: subscription.id,
      subscription_status: 'PENDING_INSTALL',
      expires_at: null,
    });
  });
});

describe('PATCH /external-checkout/sessions/{id}', () => {
  it('swaps the plan to another version of the same provider and sets partner_reference; 200 in the GET shape, on both mounts', async () => {
    for (const prefix of MOUNTS) {
      const w = await world();
      const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
      await getSession(id, w.p.webhookSecret);
      const r = await patchSession(id, { plan_version_id: w.upsell.id, partner_reference: 'order-42' }, w.p.webhookSecret, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({
        session_id: id,
        status: 'redirected',
        plan_version_id: w.upsell.id,
        partner_reference: 'order-42',
        plan: {
          plan_version_id: w.upsell.id,
          name: 'Fibre 1000',
          monthly_price: '59.99',
          bandwidth: { download_mbps: 1000, upload_mbps: 200 },
        },
        units: { buildings: { street: 'Hauptstraße' } },
      });
      expect(await row(id)).toMatchObject({ plan_version_id: w.upsell.id, partner_reference: 'order-42', status: 'redirected' });
      const cleared = await patchSession(id, { partner_reference: null }, w.p.webhookSecret, prefix);
      expect(cleared.statusCode).toBe(200);
      expect((await row(id))!.partner_reference).toBeNull();
    }
  });

  it('any field other than plan_version_id and partner_reference answers 422 naming it, and changes nothing', async () => {
    const w = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    for (const field of ['unit_id', 'delivery_mode', 'service_provider_document_id', 'status', 'mac_address']) {
      const r = await patchSession(id, { partner_reference: 'x', [field]: 'anything' }, w.p.webhookSecret);
      expect(r.statusCode, field).toBe(422);
      expect(r.json().detail).toMatch(new RegExp(`^${field}: not patchable`));
    }
    expect(await row(id)).toMatchObject({ partner_reference: null, plan_version_id: w.plan.id, status: 'pending' });
  });

  it('refuses with 422 a plan of another provider, a reference over 200 characters, and an empty body', async () => {
    const w = await world();
    const o = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    const foreign = await patchSession(id, { plan_version_id: o.plan.id }, w.p.webhookSecret);
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().detail).toMatch(/^plan_version_id: /);
    const long = await patchSession(id, { partner_reference: 'r'.repeat(201) }, w.p.webhookSecret);
    expect(long.statusCode).toBe(422);
    expect(long.json().detail).toMatch(/^partner_reference: /);
    const empty = await patchSession(id, {}, w.p.webhookSecret);
    expect(empty.statusCode).toBe(422);
    expect((await row(id))!.plan_version_id).toBe(w.plan.id);
    const ok = await patchSession(id, { partner_reference: 'r'.repeat(200) }, w.p.webhookSecret);
    expect(ok.statusCode).toBe(200);
  });

  it('a PATCH is not a read: a pending session stays pending', async () => {
    const w = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    const r = await patchSession(id, { partner_reference: 'p' }, w.p.webhookSecret);
    expect(r.statusCode).toBe(200);
    expect(r.json().status).toBe('pending');
    expect((await row(id))!.status).toBe('pending');
  });

  it('only pending and redirected sessions are patchable: completed 409, expired and cancelled 410, a stale pending one 410 (marked expired, even without a secret)', async () => {
    const w = await world();
    const completed = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'completed',
      createdAt: hoursAgo(1),
    });
    const r1 = await patchSession(completed.id, { partner_reference: 'x' }, w.p.webhookSecret);
    expect(r1.statusCode).toBe(409);
    expect(typeof r1.json().detail).toBe('string');

    const expired = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'expired',
      createdAt: hoursAgo(5),
    });
    const r2 = await patchSession(expired.id, { partner_reference: 'x' }, w.p.webhookSecret);
    expect(r2.statusCode).toBe(410);
    expect(r2.json()).toEqual(EXPIRED);

    const cancelled = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'cancelled',
      createdAt: hoursAgo(1),
    });
    const r3 = await patchSession(cancelled.id, { partner_reference: 'x' }, w.p.webhookSecret);
    expect(r3.statusCode).toBe(410);
    expect(r3.json()).toEqual(CANCELLED);

    const stale = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      createdAt: hoursAgo(3),
    });
    const r4 = await patchSession(stale.id, { unit_id: 'whatever' }, undefined, '/api/v1');
    expect(r4.statusCode).toBe(410);
    expect(r4.json()).toEqual(EXPIRED);
    for (const s of [completed, expired, cancelled]) expect((await row(s.id))!.partner_reference).toBeNull();
    expect((await row(stale.id))!.status).toBe('expired');
  });

  it("needs the secret of the session's provider (another provider's answers 404 like an unknown id)", async () => {
    const w = await world();
    const other = await createProvider(t.db);
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    expect((await patchSession(id, { partner_reference: 'x' })).statusCode).toBe(401);
    expect((await patchSession(id, { partner_reference: 'x' }, other.webhookSecret)).statusCode).toBe(404);
    expect((await row(id))!.partner_reference).toBeNull();
  });
});

describe('GET /external-checkout/sessions/{id}/status (no auth)', () => {
  it('answers {session_id, status, subscription_status} without moving the session, on both mounts', async () => {
    const w = await world();
    const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, building_id: w.building.id })).json().session_id;
    for (const prefix of MOUNTS) {
      const r = await sessionStatus(id, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ session_id: id, status: 'pending', subscription_status: null });
    }
    expect((await row(id))!.status).toBe('pending');
  });

  it("reports the linked subscription's status once completed (e.g. ACTIVE)", async () => {
    const w = await world();
    const sub = await createSubscriber(t.db, w.p.id);
    const subscription = await createSubscription(t.db, {
      providerId: w.p.id,
      subscriberId: sub.id,
      planVersionId: w.plan.id,
      status: 'ACTIVE',
    });
    const s = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'completed',
      createdAt: hoursAgo(4),
    });
    await t.db.updateTable('checkout_sessions').set({ subscription_id: subscription.id }).where('id', '=', s.id).execute();
    const r = await sessionStatus(s.id);
    expect(r.json()).toEqual({ session_id: s.id, status: 'completed', subscription_status: 'ACTIVE' });
  });

  it('a stale pending session answers 410 and is marked expired; cancelled 410; unknown 404', async () => {
    const w = await world();
    const stale = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      createdAt: hoursAgo(2.5),
    });
    const r = await sessionStatus(stale.id);
    expect(r.statusCode).toBe(410);
    expect(r.json()).toEqual(EXPIRED);
    expect((await row(stale.id))!.status).toBe('expired');
    const cancelled = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'cancelled',
      createdAt: hoursAgo(1),
    });
    const cr = await sessionStatus(cancelled.id);
    expect(cr.statusCode).toBe(410);
    expect(cr.json()).toEqual(CANCELLED);
    const unknown = await sessionStatus('00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
  });
});

describe('POST /external-checkout/sessions/{id}/cancel', () => {
  const cancelSession = (id: string, secret?: string, prefix = '') =>
    t.app.inject({
      method: 'POST',
      url: `${prefix}/external-checkout/sessions/${id}/cancel`,
      headers: secret ? { 'x-webhook-secret': secret } : {},
    });

  it('moves a redirected session to cancelled (both mounts); then GET, PATCH, status, complete and a second cancel answer 410 "Session cancelled"', async () => {
    const w = await world();
    for (const prefix of MOUNTS) {
      const id = (await createSession({ provider_id: w.p.id, plan_version_id: w.plan.id, location_hash: w.loc.locationHash })).json()
        .session_id;
      expect((await getSession(id, w.p.webhookSecret)).json().status).toBe('redirected');
      const r = await cancelSession(id, w.p.webhookSecret, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ session_id: id, status: 'cancelled', subscription_status: null });
      expect(await row(id)).toMatchObject({ status: 'cancelled', subscription_id: null, completed_at: null });
      const after = [
        await getSession(id, w.p.webhookSecret, prefix),
        await patchSession(id, { partner_reference: 'x' }, w.p.webhookSecret, prefix),
        await sessionStatus(id, prefix),
        await t.app.inject({
          method: 'POST',
          url: `${prefix}/external-checkout/complete`,
          headers: { 'x-webhook-secret': w.p.webhookSecret },
          payload: { session_id: id, subscriber: { email: 'buyer@example.test', first_name: 'A', last_name: 'B' } },
        }),
        await cancelSession(id, w.p.webhookSecret, prefix),
      ];
      for (const a of after) {
        expect(a.statusCode).toBe(410);
        expect(a.json()).toEqual(CANCELLED);
      }
      expect(await row(id)).toMatchObject({ status: 'cancelled', partner_reference: null, subscription_id: null });
      expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', w.loc.id).execute()).toEqual([]);
    }
  });

  it('only a redirected session is cancellable: pending and completed answer 409 and stay as they were; expired 410', async () => {
    const w = await world();
    const pending = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      createdAt: hoursAgo(1),
    });
    const completed = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'completed',
      createdAt: hoursAgo(1),
    });
    for (const s of [pending, completed]) {
      const r = await cancelSession(s.id, w.p.webhookSecret);
      expect(r.statusCode).toBe(409);
      expect(typeof r.json().detail).toBe('string');
    }
    expect((await row(pending.id))!.status).toBe('pending');
    expect((await row(completed.id))!.status).toBe('completed');
    const stale = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      createdAt: hoursAgo(3),
    });
    const r = await cancelSession(stale.id);
    expect(r.statusCode).toBe(410);
    expect(r.json()).toEqual(EXPIRED);
    expect((await row(stale.id))!.status).toBe('expired');
  });

  it("needs the secret of the session's provider: missing 401, another provider's 404; the session stays redirected", async () => {
    const w = await world();
    const other = await createProvider(t.db);
    const s = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.building.id,
      status: 'redirected',
      createdAt: hoursAgo(1),
    });
    expect((await cancelSession(s.id)).statusCode).toBe(401);
    const r = await cancelSession(s.id, other.webhookSecret);
    expect(r.statusCode).toBe(404);
    expect((await cancelSession('not-a-uuid', w.p.webhookSecret)).statusCode).toBe(422);
    expect((await row(s.id))!.status).toBe('redirected');
  });
});
