import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createCoverageAddress,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const MOUNTS = ['', '/api/v1'];
type Provider = Awaited<ReturnType<typeof createProvider>>;

const autocomplete = (p: Provider | null, q: string, extra = '', prefix = '') =>
  t.app.inject({
    method: 'GET',
    url: `${prefix}/serviceability/autocomplete?q=${encodeURIComponent(q)}${extra}`,
    headers: p ? { 'x-api-key': p.apiKey } : {},
  });
const check = (p: Provider, payload: unknown, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/serviceability/check`, headers: { 'x-api-key': p.apiKey }, payload: payload as object });
const units = (p: Provider, buildingId: string, prefix = '') =>
  t.app.inject({ method: 'GET', url: `${prefix}/serviceability/units?building_id=${buildingId}`, headers: { 'x-api-key': p.apiKey } });

const NO_MATCH = { serviceable: false, match: null, plans: [], building_id: null };

describe('serviceability authentication', () => {
  it('a missing key answers 401, a wrong key 403, a key without serviceability:read 403, on both mounts', async () => {
    const noScope = await createProvider(t.db, { features: ['provisioning:write'] });
    for (const prefix of MOUNTS) {
      const missing = await autocomplete(null, 'Haupt', '', prefix);
      expect(missing.statusCode).toBe(401);
      expect(missing.json()).toEqual({ detail: 'Not authenticated' });
      const wrong = await t.app.inject({
        method: 'GET',
        url: `${prefix}/serviceability/autocomplete?q=Haupt`,
        headers: { 'x-api-key': `sk_abcdefgh_${'x'.repeat(40)}` },
      });
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json()).toEqual({ detail: 'Invalid credentials' });
      const scope = await autocomplete(noScope, 'Haupt', '', prefix);
      expect(scope.statusCode).toBe(403);
      expect(typeof scope.json().detail).toBe('string');
    }
  });
});

describe('GET /serviceability/autocomplete', () => {
  let p: Provider;
  let other: Provider;
  let buildingId: string;
  beforeAll(async () => {
    p = await createProvider(t.db);
    other = await createProvider(t.db);
    const b = await createBuilding(t.db, p.id, { street: 'Lindenallee', houseNumber: '12a', postalCode: '10115' });
    buildingId = b.id;
    // The same address written twice in the feed ("12a" and "12 A"): one suggestion.
    await createCoverageAddress(t.db, p.id, { buildingId, street: 'Lindenallee', houseNumber: '12a' });
    await createCoverageAddress(t.db, p.id, { buildingId, street: 'Lindenallee', houseNumber: '12 A' });
    await createCoverageAddress(t.db, p.id, { buildingId: null, street: 'Lindenallee', houseNumber: '14', orderable: false });
    await createCoverageAddress(t.db, other.id, { street: 'Lindenallee', houseNumber: '99' });
    for (let i = 1; i <= 20; i++)
      await createCoverageAddress(t.db, p.id, { street: 'Birkenweg', houseNumber: String(i), postalCode: '20095', city: 'Hamburg' });
  });

  it('a house-number suffix matches fused or separated ("12a", "12 A", "12A"), on both mounts', async () => {
    for (const prefix of MOUNTS) {
      for (const q of ['Lindenallee 12a', 'Lindenallee 12 A', 'lindenallee 12A', 'LINDENALLEE 12 a, 101']) {
        const r = await autocomplete(p, q, '', prefix);
        expect(r.statusCode).toBe(200);
        const s = r.json().suggestions;
        expect(s, q).toHaveLength(1);
        expect(s[0]).toEqual({
          display: 'Lindenallee 12A, 10115 Berlin',
          building_id: buildingId,
          street: 'Lindenallee',
          house_number: expect.stringMatching(/^12 ?[aA]$/),
          postal_code: '10115',
          city: 'Berlin',
          province: null,
          country: 'DE',
          orderable: true,
        });
      }
    }
  });

  it('suggestions are deduplicated by display string and carry orderable', async () => {
    const r = await autocomplete(p, 'Lindenallee');
    expect(r.statusCode).toBe(200);
    const s = r.json().suggestions as { display: string; orderable: boolean; building_id: string | null }[];
    expect(s.map((x) => x.display)).toEqual(['Lindenallee 12A, 10115 Berlin', 'Lindenallee 14, 10115 Berlin']);
    expect(s[1]).toMatchObject({ orderable: false, building_id: null });
    expect(new Set(s.map((x) => x.display)).size).toBe(s.length);
  });

  it('answers at most 15 suggestions, or `limit` when smaller', async () => {
    const r = await autocomplete(p, 'Birkenweg');
    expect(r.statusCode).toBe(200);
    expect(r.json().suggestions).toHaveLength(15);
    const five = await autocomplete(p, 'Birkenweg', '&limit=5');
    expect(five.json().suggestions).toHaveLength(5);
  });

  it("results are scoped to the key's provider", async () => {
    const mine = await autocomplete(p, 'Lindenallee 99');
    expect(mine.statusCode).toBe(200);
    expect(mine.json().suggestions.map((s: { display: string }) => s.display)).not.toContain('Lindenallee 99, 10115 Berlin');
    const theirs = await autocomplete(other, 'Lindenallee');
    expect(theirs.json().suggestions.map((s: { display: string }) => s.display)).toEqual(['Lindenallee 99, 10115 Berlin']);
  });

  it('falls back to similar addresses when no suggestion starts with the text', async () => {
    const inner = await autocomplete(p, '20095 hamburg');
    expect(inner.statusCode).toBe(200);
    expect(inner.json().suggestions.length).toBeGreaterThan(0);
    expect(inner.json().suggestions[0].display).toMatch(/Birkenweg \d+, 20095 Hamburg/);
    const typo = await autocomplete(p, 'Lindenalee 12a');
    expect(typo.json().suggestions[0]?.display).toBe('Lindenallee 12A, 10115 Berlin');
  });

  it('q shorter than 3 characters and limit above 15 answer 422 naming the field', async () => {
    const short = await autocomplete(p, 'Li');
    expect(short.statusCode).toBe(422);
    expect(short.json().detail).toMatch(/^q: /);
    const big = await autocomplete(p, 'Linden', '&limit=16');
    expect(big.statusCode).toBe(422);
    expect(big.json().detail).toMatch(/^limit: /);
  });
});

describe('POST /serviceability/check', () => {
  let p: Provider;
  let berlin: string;
  let munich: string;
  let toronto: string;
  let ottawa: string;
  let plain12: string;
  beforeAll(async () => {
    p = await createProvider(t.db);
    berlin = (await createBuilding(t.db, p.id, { street: 'Hauptstraße', houseNumber: '12a', postalCode: '10115', city: 'Berlin' })).id;
    munich = (await createBuilding(t.db, p.id, { street: 'Hauptstraße', houseNumber: '12a', postalCode: '80331', city: 'München' })).id;
    plain12 = (await createBuilding(t.db, p.id, { street: 'Hauptstraße', houseNumber: '12', postalCode: '10115', city: 'Berlin' })).id;
    toronto = (
      await createBuilding(t.db, p.id, { street: 'Main Street', houseNumber: '12A', postalCode: 'M5V 2T6', city: 'Toronto', country: 'CA' })
    ).id;
    ottawa = (
      await createBuilding(t.db, p.id, { street: 'Main Street', houseNumber: '12A', postalCode: 'K1P 1J1', city: 'Ottawa', country: 'CA' })
    ).id;
    await createCoverageAddress(t.db, p.id, {
      buildingId: berlin,
      street: 'Hauptstraße',
      houseNumber: '12a',
      postalCode: '10115',
      city: 'Berlin',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: munich,
      street: 'Hauptstraße',
      houseNumber: '12 a',
      postalCode: '80331',
      city: 'München',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: plain12,
      street: 'Hauptstraße',
      houseNumber: '12',
      postalCode: '10115',
      city: 'Berlin',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: toronto,
      street: 'Main Street',
      houseNumber: '12A',
      postalCode: 'M5V2T6',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: ottawa,
      street: 'Main Street',
      houseNumber: '12 A',
      postalCode: 'K1P 1J1',
      city: 'Ottawa',
      province: 'ON',
      country: 'CA',
    });
  });

  it('a free-text German address with a 5-digit postcode matches, suffix fused or separated, on both mounts', async () => {
    const plan = await createPlanVersion(t.db, p.id, {
      name: 'Fibre 250',
      priceCents: 3999,
      down: 250,
      up: 50,
      storeProductId: 'prod_250',
    });
    for (const prefix of MOUNTS) {
      for (const address of ['Hauptstraße 12a, 10115 Berlin', 'Hauptstraße 12 A 10115 Berlin', 'hauptstraße 12-a, 10115']) {
        const r = await check(p, { address }, prefix);
        expect(r.statusCode).toBe(200);
        const body = r.json();
        expect(body, address).toMatchObject({ serviceable: true, building_id: berlin });
        expect(body.match).toMatchObject({
          street: 'Hauptstraße',
          postal_code: '10115',
          city: 'Berlin',
          country: 'DE',
          building_id: berlin,
          orderable: true,
        });
        expect(body.plans).toContainEqual({
          plan_version_id: plan.id,
          name: 'Fibre 250',
          monthly_price: '39.99',
          currency: 'EUR',
          download_mbps: 250,
          upload_mbps: 50,
          store_product_id: 'prod_250',
        });
      }
    }
  });

  it('the German postcode picks the building among equal street and number', async () => {
    const r = await check(p, { address: 'Hauptstraße 12a, 80331 München' });
    expect(r.json()).toMatchObject({ serviceable: true, building_id: munich });
  });

  it('a free-text Canadian address with an A1A 1A1 postcode matches (space optional)', async () => {
    for (const address of ['12A Main Street, Toronto, ON M5V 2T6', '12 a Main Street Toronto ON m5v2t6']) {
      const r = await check(p, { address });
      expect(r.statusCode).toBe(200);
      expect(r.json(), address).toMatchObject({
        serviceable: true,
        building_id: toronto,
        match: { postal_code: 'M5V 2T6', country: 'CA', province: 'ON' },
      });
    }
    const ottawaR = await check(p, { address: '12A Main Street, Ottawa ON K1P 1J1' });
    expect(ottawaR.json()).toMatchObject({ serviceable: true, building_id: ottawa });
  });

  it('the house number must match exactly: 12 is not 12a, 12a is not 12', async () => {
    const twelve = await check(p, { address: 'Hauptstraße 12, 10115 Berlin' });
    expect(twelve.json()).toMatchObject({ serviceable: true, building_id: plain12 });
    const b = await check(p, { address: 'Hauptstraße 12b, 10115 Berlin' });
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual(NO_MATCH);
    const onlyWithSuffix = await check(p, { address: '12 Main Street, Toronto ON M5V 2T6' });
    expect(onlyWithSuffix.json()).toEqual(NO_MATCH);
  });

  it('no match answers 200 {serviceable: false, match: null, plans: [], building_id: null}', async () => {
    const r = await check(p, { address: 'Nirgendwo 1, 99999 Irgendwo' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual(NO_MATCH);
    const wrongPostcode = await check(p, { address: 'Hauptstraße 12a, 20095 Hamburg' });
    expect(wrongPostcode.json()).toEqual(NO_MATCH);
  });

  it('structured fields win when both structured and free text are sent', async () => {
    const structuredRight = await check(p, {
      address: 'Nirgendwo 1, 99999 Irgendwo',
      street: 'Hauptstraße',
      house_number: '12 A',
      postal_code: '80331',
    });
    expect(structuredRight.json()).toMatchObject({ serviceable: true, building_id: munich });
    const structuredWrong = await check(p, { address: 'Hauptstraße 12a, 10115 Berlin', street: 'Nirgendwo', house_number: '1' });
    expect(structuredWrong.json()).toEqual(NO_MATCH);
  });

  it('structured fields match with the house number inside street, and Canadian postcodes in any spacing', async () => {
    const inStreet = await check(p, { street: 'Hauptstraße 12a', postal_code: '10115' });
    expect(inStreet.json()).toMatchObject({ serviceable: true, building_id: berlin });
    const ca = await check(p, { street: 'Main Street', house_number: '12a', postal_code: 'k1p1j1', country: 'CA' });
    expect(ca.json()).toMatchObject({ serviceable: true, building_id: ottawa });
  });

  it('neither address nor street answers 422', async () => {
    for (const payload of [{}, { house_number: '12a', postal_code: '10115', city: 'Berlin' }, { address: '   ' }]) {
      const r = await check(p, payload);
      expect(r.statusCode, JSON.stringify(payload)).toBe(422);
      expect(typeof r.json().detail).toBe('string');
    }
    const r = await check(p, {});
    expect(r.json()).toEqual({ detail: 'Provide address or street' });
  });

  it('a match that is not orderable, or whose building left coverage, is not serviceable and lists no plans', async () => {
    const closed = (await createBuilding(t.db, p.id, { street: 'Gartenweg', houseNumber: '3', postalCode: '10117' })).id;
    await createCoverageAddress(t.db, p.id, {
      buildingId: closed,
      street: 'Gartenweg',
      houseNumber: '3',
      postalCode: '10117',
      orderable: false,
    });
    const r = await check(p, { address: 'Gartenweg 3, 10117 Berlin' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ serviceable: false, plans: [], building_id: closed, match: { orderable: false } });

    const gone = (await createBuilding(t.db, p.id, { street: 'Gartenweg', houseNumber: '5', postalCode: '10117' })).id;
    await t.db.updateTable('buildings').set({ in_coverage: false }).where('id', '=', gone).execute();
    await createCoverageAddress(t.db, p.id, { buildingId: gone, street: 'Gartenweg', houseNumber: '5', postalCode: '10117' });
    const r2 = await check(p, { address: 'Gartenweg 5, 10117 Berlin' });
    expect(r2.json()).toMatchObject({ serviceable: false, plans: [], building_id: gone });
  });

  it("plans are the provider's active plan versions only", async () => {
    const q = await createProvider(t.db);
    const b = (await createBuilding(t.db, q.id, { street: 'Ringstraße', houseNumber: '1', postalCode: '50667', city: 'Köln' })).id;
    await createCoverageAddress(t.db, q.id, { buildingId: b, street: 'Ringstraße', houseNumber: '1', postalCode: '50667', city: 'Köln' });
    const active = await createPlanVersion(t.db, q.id, { priceCents: 2500 });
    const retired = await createPlanVersion(t.db, q.id, { priceCents: 1500 });
    await t.db.updateTable('plan_versions').set({ active: false }).where('id', '=', retired.id).execute();
    await createPlanVersion(t.db, p.id);
    const r = await check(q, { address: 'Ringstraße 1, 50667 Köln' });
    expect(r.json().plans.map((x: { plan_version_id: string }) => x.plan_version_id)).toEqual([active.id]);
    // Another provider's key sees none of it.
    const other = await check(p, { address: 'Ringstraße 1, 50667 Köln' });
    expect(other.json()).toEqual(NO_MATCH);
  });
});

describe('GET /serviceability/units', () => {
  it('lists every unit with available=false for PENDING, PENDING_INSTALL, ACTIVE and SUSPENDED, true for CANCELLED or none, on both mounts', async () => {
    const p = await createProvider(t.db);
    const plan = await createPlanVersion(t.db, p.id);
    const b = await createBuilding(t.db, p.id, { units: ['1A', '1B', '2A', '2B', '3A', '3B'] });
    const statuses = ['ACTIVE', 'SUSPENDED', 'CANCELLED', 'PENDING_INSTALL', 'PENDING'] as const;
    for (const [i, status] of statuses.entries()) {
      const sub = await createSubscriber(t.db, p.id);
      await createSubscription(t.db, {
        providerId: p.id,
        subscriberId: sub.id,
        planVersionId: plan.id,
        buildingId: b.id,
        unitId: b.units[i]!.id,
        status,
      });
    }
    for (const prefix of MOUNTS) {
      const r = await units(p, b.id, prefix);
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.building_id).toBe(b.id);
      const byLabel = Object.fromEntries(body.units.map((u: { label: string; available: boolean }) => [u.label, u.available]));
      expect(byLabel).toEqual({ '1A': false, '1B': false, '2A': true, '2B': false, '3A': false, '3B': true });
      expect(body.units[0]).toEqual({
        unit_id: expect.any(String),
        label: expect.any(String),
        floor: null,
        available: expect.any(Boolean),
      });
    }
  });

  it("answers 404 for an unknown building, another provider's building, and a building not in coverage; 422 for a malformed id", async () => {
    const p = await createProvider(t.db);
    const other = await createProvider(t.db);
    const theirs = await createBuilding(t.db, other.id);
    const outside = await createBuilding(t.db, p.id);
    await t.db.updateTable('buildings').set({ in_coverage: false }).where('id', '=', outside.id).execute();
    for (const id of ['00000000-0000-4000-8000-000000000000', theirs.id, outside.id]) {
      const r = await units(p, id);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Building not found or not in coverage' });
    }
    const bad = await units(p, 'not-a-uuid');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^building_id: /);
  });
});
