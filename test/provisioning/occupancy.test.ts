// Issue "Faithful to the spec" item 7 (last bullet): a cancelled subscription keeps its unit and port
// until ended_at (exclusive), so nothing else is provisioned there before; the port reset at ended_at
// never touches a port that a newer subscription holds.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createSubscriber, createSubscription } from '../helpers/factories.js';
import { simulatorsOf } from '../../src/adapters/index.js';
import { createSession, createWorld, staffToken, subscriber, subscriptionRow, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let staff: { authorization: string };
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  staff = await staffToken(t, w.provider.id);
});
afterAll(() => t.close());
beforeEach(() => t.clock.set(DEFAULT_NOW));

const END = '2026-12-06';
const OCCUPIED = 'Unit already has a pending or active subscription';
const sw = () => simulatorsOf(t.deps.adapters).switchController;
const provision = (payload: object) => t.app.inject({ method: 'POST', url: '/provisioning/provider-initiated', headers: w.hdr, payload });
const units = (buildingId: string) =>
  t.app.inject({ method: 'GET', url: `/serviceability/units?building_id=${buildingId}`, headers: w.hdr });
const resetJobOf = (subscriptionId: string) =>
  t.db
    .selectFrom('jobs')
    .select(['status', 'result'])
    .where('kind', '=', 'cancellation.port_reset')
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirstOrThrow();

/** A first-line building with one unit and its port; an ACTIVE line on it (port provisioned), then cancelled to END. */
async function cancelledLine() {
  const b = await createBuilding(t.db, w.provider.id, { lineType: 'first_line', units: ['9A'] });
  const port = await createLocation(t.db, w.provider.id, b.id, b.units[0]!.id);
  const r = await provision({ plan_version_id: w.plan.id, location_hash: port.locationHash, subscriber: subscriber() });
  expect(r.statusCode).toBe(201);
  const id: string = r.json().subscription_id;
  await t.deps.jobs.drain();
  const c = await t.app.inject({ method: 'POST', url: `/api/v1/subscription/${id}/cancel`, headers: staff, payload: { end_date: END } });
  expect(c.statusCode).toBe(200);
  return { building: b, unitId: b.units[0]!.id, port, id };
}

describe('a cancelled subscription occupies its unit and port until ended_at', () => {
  it('before ended_at: provider-initiated (port or unit), bulk and session complete answer 409 and the unit is not available; nothing is created', async () => {
    const c = await cancelledLine();
    t.clock.set('2026-12-05T23:59:00Z');
    const direct = await provision({ plan_version_id: w.plan.id, location_hash: c.port.locationHash, subscriber: subscriber() });
    expect(direct.statusCode).toBe(409);
    expect(direct.json()).toEqual({ detail: OCCUPIED });
    const byUnit = await provision({ plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: c.unitId, subscriber: subscriber() });
    expect(byUnit.statusCode).toBe(409);
    expect(byUnit.json()).toEqual({ detail: OCCUPIED });
    const bulk = await t.app.inject({
      method: 'POST',
      url: '/provisioning/bulk',
      headers: w.hdr,
      payload: { items: [{ plan_version_id: w.plan2.id, location_hash: c.port.locationHash, subscriber: subscriber() }] },
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json().results).toEqual([{ index: 0, status: 'error', error: OCCUPIED }]);
    const session = await createSession(t, {
      providerId: w.provider.id,
      planVersionId: w.plan.id,
      buildingId: c.building.id,
      unitId: c.unitId,
      locationId: c.port.id,
    });
    const complete = await t.app.inject({
      method: 'POST',
      url: '/external-checkout/complete',
      headers: w.whs,
      payload: { session_id: session.id, subscriber: subscriber() },
    });
    expect(complete.statusCode).toBe(409);
    expect(complete.json()).toEqual({ detail: OCCUPIED });
    const u = await units(c.building.id);
    expect(u.statusCode).toBe(200);
    expect(u.json().units).toEqual([expect.objectContaining({ unit_id: c.unitId, available: false })]);
    const subs = await t.db.selectFrom('subscriptions').select('id').where('unit_id', '=', c.unitId).execute();
    expect(subs).toEqual([{ id: c.id }]);
    expect((await sw().getPort(c.port.id))?.mode).toBe('provisioned');
  });

  it("from ended_at on the unit is free: available, and a new line is provisioned; the reset at ended_at then leaves the new subscriber's port alone", async () => {
    const c = await cancelledLine();
    t.clock.set(`${END}T00:00:00Z`);
    expect((await units(c.building.id)).json().units).toEqual([expect.objectContaining({ unit_id: c.unitId, available: true })]);
    const next = await provision({ plan_version_id: w.plan2.id, location_hash: c.port.locationHash, subscriber: subscriber() });
    expect(next.statusCode).toBe(201);
    await t.deps.jobs.drain();
    expect(await resetJobOf(c.id)).toMatchObject({
      status: 'succeeded',
      result: { skipped: 'location_in_use', by_subscription_id: next.json().subscription_id },
    });
    expect((await subscriptionRow(t, c.id)).port_reset_at).toBeNull();
    expect(await sw().getPort(c.port.id)).toMatchObject({ mode: 'provisioned', download_mbps: 1000 });
  });

  it('the reset at ended_at leaves alone a port a newer subscription holds even when that one is itself cancelled but not yet ended', async () => {
    const c = await cancelledLine();
    // A line put on the port before this rule held it (an older release allowed it), then cancelled to a later date.
    const s = await createSubscriber(t.db, w.provider.id);
    const newer = await createSubscription(t.db, {
      providerId: w.provider.id,
      subscriberId: s.id,
      planVersionId: w.plan2.id,
      buildingId: c.building.id,
      unitId: c.unitId,
      locationId: c.port.id,
      status: 'CANCELLED',
      serviceBilled: false,
    });
    await t.db
      .updateTable('subscriptions')
      .set({ ended_at: '2027-01-10', canceled_at: t.clock.now() })
      .where('id', '=', newer.id)
      .execute();
    t.clock.set(`${END}T00:00:00Z`);
    await t.deps.jobs.drain();
    expect(await resetJobOf(c.id)).toMatchObject({
      status: 'succeeded',
      result: { skipped: 'location_in_use', by_subscription_id: newer.id },
    });
    expect((await sw().getPort(c.port.id))?.mode).toBe('provisioned');
  });

  it("a new line's port job waits while the old line's reset is still under way on the port, so the reset cannot land after it", async () => {
    const c = await cancelledLine();
    t.clock.set(`${END}T00:00:00Z`);
    // The reset job has passed its checks and is calling the switch (claimed by another worker).
    await t.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'other-worker', locked_until: new Date('2030-01-01T00:00:00Z') })
      .where('kind', '=', 'cancellation.port_reset')
      .where('subscription_id', '=', c.id)
      .execute();
    const next = await provision({ plan_version_id: w.plan2.id, location_hash: c.port.locationHash, subscriber: subscriber() });
    expect(next.statusCode).toBe(201);
    await t.deps.jobs.drain();
    const waiting = await t.db
      .selectFrom('jobs')
      .select(['status', 'attempts'])
      .where('id', '=', next.json().job_id)
      .executeTakeFirstOrThrow();
    expect(waiting).toEqual({ status: 'queued', attempts: 0 });
    // The reset lands and its job finishes; then the new line's port is provisioned.
    await sw().resetPort({ operationKey: `reset:cancel:${c.id}`, locationId: c.port.id });
    await t.db
      .updateTable('jobs')
      .set({ status: 'succeeded', locked_by: null, locked_until: null })
      .where('kind', '=', 'cancellation.port_reset')
      .where('subscription_id', '=', c.id)
      .execute();
    t.clock.advance(60_000);
    await t.deps.jobs.drain();
    expect((await t.db.selectFrom('jobs').select('status').where('id', '=', next.json().job_id).executeTakeFirstOrThrow()).status).toBe(
      'succeeded',
    );
    expect(await sw().getPort(c.port.id)).toMatchObject({ mode: 'provisioned', download_mbps: 1000 });
  });

  it('with no newer subscription the port is reset at ended_at', async () => {
    const c = await cancelledLine();
    t.clock.set(`${END}T00:00:00Z`);
    await t.deps.jobs.drain();
    expect(await resetJobOf(c.id)).toMatchObject({ status: 'succeeded', result: { port_reset: true } });
    expect((await subscriptionRow(t, c.id)).port_reset_at).not.toBeNull();
    expect((await sw().getPort(c.port.id))?.mode).toBe('reset');
  });

  it('confirming an installation refuses (409) a port that a cancelled, not yet ended subscription still holds', async () => {
    const b = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: ['7A'] });
    const port = await createLocation(t.db, w.provider.id, b.id, b.units[0]!.id);
    const s = await createSubscriber(t.db, w.provider.id);
    // The old line held the port without naming the unit (a port-only location before the unit was recorded).
    const old = await createSubscription(t.db, {
      providerId: w.provider.id,
      subscriberId: s.id,
      planVersionId: w.plan.id,
      buildingId: b.id,
      locationId: port.id,
      status: 'CANCELLED',
      serviceBilled: false,
    });
    await t.db.updateTable('subscriptions').set({ ended_at: END, canceled_at: t.clock.now() }).where('id', '=', old.id).execute();
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: b.units[0]!.id,
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    const id = r.json().subscription_id;
    await t.db.updateTable('install_jobs').set({ status: 'SHIPPED' }).where('subscription_id', '=', id).execute();
    const confirm = await t.app.inject({
      method: 'POST',
      url: '/provisioning/confirm-install',
      headers: staff,
      payload: { subscription_id: id },
    });
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json().detail).toMatch(/port is held by another subscription/);
    expect(await subscriptionRow(t, id)).toMatchObject({ status: 'PENDING_INSTALL', location_id: null });
  });
});
