import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
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

const MOUNTS = ['', '/api/v1'];
const lookup = (payload: unknown, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/location/lookup`, ...(payload === undefined ? {} : { payload: payload as object }) });

async function place(providerId: string, o: { street?: string; houseNumber?: string } = {}) {
  const b = await createBuilding(t.db, providerId, {
    street: o.street ?? 'Hauptstraße',
    houseNumber: o.houseNumber ?? '12a',
    postalCode: '10115',
    city: 'Berlin',
    units: ['4B'],
  });
  const loc = await createLocation(t.db, providerId, b.id, b.units[0]!.id, { port: 'ge-0/0/7' });
  const row = await t.db.selectFrom('locations').selectAll().where('id', '=', loc.id).executeTakeFirstOrThrow();
  return { building: b, unit: b.units[0], loc, row };
}

describe('POST /location/lookup (no auth)', () => {
  it('resolves a location_hash to the address row plus location_identifier, building_id and unit_id, on both mounts', async () => {
    const p = await createProvider(t.db);
    const x = await place(p.id);
    for (const prefix of MOUNTS) {
      const r = await lookup({ location_hash: x.loc.locationHash }, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        street: 'Hauptstraße',
        house_number: '12a',
        postal_code: '10115',
        city: 'Berlin',
        province: null,
        country: 'DE',
        unit_label: '4B',
        location_identifier: x.row.location_identifier,
        building_id: x.building.id,
        unit_id: x.unit!.id,
      });
      // Never the switch, port, VLAN or the hash itself.
      expect(r.body).not.toContain('ge-0/0/7');
      expect(r.body).not.toContain(x.loc.locationHash);
    }
  });

  it('resolves a location_identifier the same way', async () => {
    const p = await createProvider(t.db);
    const x = await place(p.id);
    const r = await lookup({ location_identifier: x.row.location_identifier });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ building_id: x.building.id, unit_id: x.unit!.id, location_identifier: x.row.location_identifier });
  });

  it('location_hash wins when both are sent', async () => {
    const p = await createProvider(t.db);
    const a = await place(p.id, { street: 'Erste Straße' });
    const b = await place(p.id, { street: 'Zweite Straße' });
    const r = await lookup({ location_hash: a.loc.locationHash, location_identifier: b.row.location_identifier });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ street: 'Erste Straße', building_id: a.building.id });
  });

  it('neither field answers 422 "Provide location_hash or location_identifier" (also for an empty or missing body)', async () => {
    for (const prefix of MOUNTS) {
      for (const payload of [{}, { location_hash: '' }, { location_hash: null, location_identifier: null }, undefined]) {
        const r = await lookup(payload, prefix);
        expect(r.statusCode, JSON.stringify(payload)).toBe(422);
        expect(r.json()).toEqual({ detail: 'Provide location_hash or location_identifier' });
      }
    }
  });

  it('an unknown hash or identifier answers 404', async () => {
    for (const payload of [{ location_hash: 'loc_nope' }, { location_identifier: 'LID-NOPE' }]) {
      const r = await lookup(payload);
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Location not found' });
    }
  });
});

describe('POST /location/details (dashboard JWT)', () => {
  it("gives provider staff the full record of their own provider's location, with the occupying subscription", async () => {
    const p = await createProvider(t.db);
    const x = await place(p.id);
    const plan = await createPlanVersion(t.db, p.id);
    const sub = await createSubscriber(t.db, p.id);
    const s = await createSubscription(t.db, {
      providerId: p.id,
      subscriberId: sub.id,
      planVersionId: plan.id,
      buildingId: x.building.id,
      unitId: x.unit!.id,
      locationId: x.loc.id,
      status: 'SUSPENDED',
    });
    const staff = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: p.id });
    const token = (await t.services.auth.issueJwt({ id: staff.id, role: 'service_provider', sp_role: 'support', provider_id: p.id }))
      .access_token;
    for (const prefix of MOUNTS) {
      const r = await t.app.inject({
        method: 'POST',
        url: `${prefix}/location/details`,
        headers: { authorization: `Bearer ${token}` },
        payload: { location_hash: x.loc.locationHash },
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({
        location_id: x.loc.id,
        provider_id: p.id,
        location_hash: x.loc.locationHash,
        switch_port: 'ge-0/0/7',
        switch_id: 'sw-01',
        vlan_id: x.row.vlan_id,
        building: { building_id: x.building.id, line_type: 'first_line', in_coverage: true },
        unit: { unit_id: x.unit!.id, label: '4B' },
        occupied: true,
        subscription_id: s.id,
        subscription_status: 'SUSPENDED',
      });
    }
  });

  it("another provider's location answers 404 to provider staff; a platform admin sees any location", async () => {
    const p = await createProvider(t.db);
    const other = await createProvider(t.db);
    const x = await place(other.id);
    const staff = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    const staffToken = (await t.services.auth.issueJwt({ id: staff.id, role: 'service_provider', sp_role: 'sp_admin', provider_id: p.id }))
      .access_token;
    const r = await t.app.inject({
      method: 'POST',
      url: '/location/details',
      headers: { authorization: `Bearer ${staffToken}` },
      payload: { location_identifier: x.row.location_identifier },
    });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'Location not found' });

    const admin = await createUser(t.db, { role: 'platform_admin' });
    const adminToken = (await t.services.auth.issueJwt({ id: admin.id, role: 'platform_admin', sp_role: null, provider_id: null }))
      .access_token;
    const a = await t.app.inject({
      method: 'POST',
      url: '/location/details',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { location_identifier: x.row.location_identifier },
    });
    expect(a.statusCode).toBe(200);
    expect(a.json()).toMatchObject({ location_id: x.loc.id, provider_id: other.id, occupied: false, subscription_id: null });
  });

  it('no token answers 401, a subscriber token 403, neither field 422', async () => {
    const p = await createProvider(t.db);
    const x = await place(p.id);
    const none = await t.app.inject({ method: 'POST', url: '/location/details', payload: { location_hash: x.loc.locationHash } });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: 'Not authenticated' });
    const u = await createUser(t.db);
    const subToken = (await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null })).access_token;
    const sub = await t.app.inject({
      method: 'POST',
      url: '/location/details',
      headers: { authorization: `Bearer ${subToken}` },
      payload: { location_hash: x.loc.locationHash },
    });
    expect(sub.statusCode).toBe(403);
    const admin = await createUser(t.db, { role: 'platform_admin' });
    const adminToken = (await t.services.auth.issueJwt({ id: admin.id, role: 'platform_admin', sp_role: null, provider_id: null }))
      .access_token;
    const empty = await t.app.inject({
      method: 'POST',
      url: '/location/details',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: {},
    });
    expect(empty.statusCode).toBe(422);
    expect(empty.json()).toEqual({ detail: 'Provide location_hash or location_identifier' });
  });
});
