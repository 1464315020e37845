import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider } from '../helpers/factories.js';
import { createWorld, portJobsOf, subscriber, subscriptionRow, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

const provision = (body: Record<string, unknown>, headers: Record<string, string> = w.hdr, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/provisioning/provider-initiated`, headers, payload: body });
const countSubs = async (where: { locationId?: string; unitId?: string }) => {
  let q = t.db.selectFrom('subscriptions').select('id');
  if (where.locationId) q = q.where('location_id', '=', where.locationId);
  if (where.unitId) q = q.where('unit_id', '=', where.unitId);
  return (await q.execute()).length;
};

describe('idempotent per (subscriber email, plan version, location)', () => {
  it('a repeat while the port job is queued answers 200 "Provisioning already in progress" with the same ids; after it ran, "Subscription already exists (idempotent replay)"', async () => {
    const body = { plan_version_id: w.plan.id, location_hash: w.ports[0]!.locationHash, subscriber: subscriber() };
    const first = await provision(body);
    expect(first.statusCode).toBe(201);
    const again = await provision({
      ...body,
      subscriber: { ...body.subscriber, email: body.subscriber.email.toUpperCase(), first_name: 'Changed' },
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({
      route: 'provision',
      job_id: first.json().job_id,
      subscription_id: first.json().subscription_id,
      subscriber_id: first.json().subscriber_id,
      message: 'Provisioning already in progress',
    });
    await t.deps.jobs.drain();
    const done = await provision(body, w.hdr, '/api/v1');
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({
      route: 'provision',
      subscription_id: first.json().subscription_id,
      message: 'Subscription already exists (idempotent replay)',
    });
    expect(await countSubs({ locationId: w.ports[0]!.id })).toBe(1);
    expect(await portJobsOf(t, first.json().subscription_id)).toHaveLength(1);
  });

  it('an install-path repeat answers the existing PENDING_INSTALL subscription (job_id null); a SUSPENDED one still counts as existing', async () => {
    const body = { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.second.units[0]!.id, subscriber: subscriber() };
    const first = await provision(body);
    expect(first.statusCode).toBe(201);
    const again = await provision(body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ...first.json(), message: 'Subscription already exists (idempotent replay)' });
    await t.db.updateTable('subscriptions').set({ status: 'SUSPENDED' }).where('id', '=', first.json().subscription_id).execute();
    const suspended = await provision(body);
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json().subscription_id).toBe(first.json().subscription_id);
    expect(await countSubs({ unitId: w.second.units[0]!.id })).toBe(1);
  });

  it('the same subscriber and plan at a different location provisions a second line (201, second subscription, same subscriber)', async () => {
    const person = subscriber();
    const a = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[1]!.locationHash, subscriber: person });
    const b = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[2]!.locationHash, subscriber: person });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.json().subscription_id).not.toBe(a.json().subscription_id);
    expect(b.json().subscriber_id).toBe(a.json().subscriber_id);
    const subs = await t.db
      .selectFrom('subscriptions')
      .select(['location_id', 'status'])
      .where('subscriber_id', '=', a.json().subscriber_id)
      .orderBy('created_at')
      .execute();
    expect(subs).toHaveLength(2);
    expect(new Set(subs.map((s) => s.location_id))).toEqual(new Set([w.ports[1]!.id, w.ports[2]!.id]));
  });

  it('another plan at an occupied location is not a replay: 409', async () => {
    const person = subscriber();
    const a = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[3]!.locationHash, subscriber: person });
    expect(a.statusCode).toBe(201);
    const b = await provision({ plan_version_id: w.plan2.id, location_hash: w.ports[3]!.locationHash, subscriber: person });
    expect(b.statusCode).toBe(409);
    expect(b.json()).toEqual({ detail: 'Unit already has a pending or active subscription' });
  });

  it('a port without a unit that is taken answers 409 naming the location', async () => {
    const b = await createBuilding(t.db, w.provider.id, { lineType: 'first_line', units: [] });
    const loc = await createLocation(t.db, w.provider.id, b.id, null);
    expect((await provision({ plan_version_id: w.plan.id, location_hash: loc.locationHash, subscriber: subscriber() })).statusCode).toBe(
      201,
    );
    const r = await provision({ plan_version_id: w.plan.id, location_hash: loc.locationHash, subscriber: subscriber() });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toEqual({ detail: 'Location already has a pending or active subscription' });
  });

  it('Idempotency-Key: the same key and body replays the stored first answer (201), another body with it answers 422', async () => {
    const body = { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.second.units[1]!.id, subscriber: subscriber() };
    const headers = { ...w.hdr, 'idempotency-key': `k-${Date.now()}` };
    const a = await provision(body, headers);
    const b = await provision(body, headers);
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.json()).toEqual(a.json());
    const c = await provision({ ...body, unit_id: w.second.units[2]!.id }, headers);
    expect(c.statusCode).toBe(422);
    expect(await countSubs({ unitId: w.second.units[2]!.id })).toBe(0);
  });

  it('Idempotency-Key across mounts: the same key and body sent to / and then to /api/v1 replays the first answer (one route, one write)', async () => {
    const body = {
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop' as const,
      unit_id: w.third.units[3]!.id,
      subscriber: subscriber(),
    };
    const headers = { ...w.hdr, 'idempotency-key': `mounts-${Date.now()}` };
    const a = await provision(body, headers);
    const b = await provision(body, headers, '/api/v1');
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json()).toEqual(a.json());
    expect(await countSubs({ unitId: w.third.units[3]!.id })).toBe(1);
  });
});

describe('POST /provisioning/bulk', () => {
  it('answers one result per item: created, replayed (also within the batch) and error, each item on its own', async () => {
    const person = subscriber();
    const items = [
      { plan_version_id: w.plan.id, location_hash: w.ports[4]!.locationHash, subscriber: person },
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.third.units[1]!.id, subscriber: subscriber() },
      { plan_version_id: w.plan.id, location_hash: w.ports[4]!.locationHash, subscriber: person },
      { plan_version_id: w.plan.id, subscriber: subscriber() },
      { plan_version_id: 'bad', delivery_mode: 'home_drop', unit_id: w.third.units[2]!.id, subscriber: subscriber() },
      { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.third.units[1]!.id, subscriber: subscriber() },
      'not an object',
    ];
    const r = await t.app.inject({ method: 'POST', url: '/provisioning/bulk', headers: w.hdr, payload: { items } });
    expect(r.statusCode).toBe(200);
    const { results } = r.json();
    expect(results).toHaveLength(7);
    expect(results[0]).toEqual({
      index: 0,
      status: 'created',
      route: 'provision',
      subscription_id: expect.any(String),
      job_id: expect.any(String),
    });
    expect(results[1]).toEqual({ index: 1, status: 'created', route: 'install', subscription_id: expect.any(String), job_id: null });
    expect(results[2]).toMatchObject({
      index: 2,
      status: 'replayed',
      route: 'provision',
      subscription_id: results[0].subscription_id,
      job_id: results[0].job_id,
    });
    expect(results[3]).toMatchObject({ index: 3, status: 'error', error: expect.stringMatching(/location_hash|unit_id/) });
    expect(results[4]).toMatchObject({ index: 4, status: 'error', error: expect.stringMatching(/^plan_version_id: /) });
    expect(results[5]).toEqual({ index: 5, status: 'error', error: 'Unit already has a pending or active subscription' });
    expect(results[6]).toMatchObject({ index: 6, status: 'error' });
    expect((await subscriptionRow(t, results[0].subscription_id)).origin).toBe('bulk');
    expect(await countSubs({ unitId: w.third.units[2]!.id })).toBe(0);
    expect(await countSubs({ locationId: w.ports[4]!.id })).toBe(1);
  });

  it('refuses an empty list and more than 500 items with 422', async () => {
    const empty = await t.app.inject({ method: 'POST', url: '/provisioning/bulk', headers: w.hdr, payload: { items: [] } });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().detail).toMatch(/^items: /);
    const many = await t.app.inject({
      method: 'POST',
      url: '/api/v1/provisioning/bulk',
      headers: w.hdr,
      payload: { items: Array.from({ length: 501 }, () => ({})) },
    });
    expect(many.statusCode).toBe(422);
  });
});

describe('GET /provisioning/jobs/{job_id}', () => {
  it("shows the port job of the own provider through its states; another provider's key gets 404", async () => {
    const p = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[5]!.locationHash, subscriber: subscriber() });
    const jobId = p.json().job_id;
    const q = await t.app.inject({ method: 'GET', url: `/provisioning/jobs/${jobId}`, headers: w.hdr });
    expect(q.statusCode).toBe(200);
    expect(q.json()).toEqual({
      job_id: jobId,
      kind: 'provisioning.port',
      status: 'queued',
      attempts: 0,
      error: null,
      subscription_id: p.json().subscription_id,
      created_at: t.clock.now().toISOString(),
      updated_at: t.clock.now().toISOString(),
    });
    await t.deps.jobs.drain();
    const done = await t.app.inject({ method: 'GET', url: `/api/v1/provisioning/jobs/${jobId}`, headers: w.hdr });
    expect(done.json()).toMatchObject({ status: 'succeeded', attempts: 1, error: null });
    const other = await createProvider(t.db);
    const foreign = await t.app.inject({ method: 'GET', url: `/provisioning/jobs/${jobId}`, headers: { 'x-api-key': other.apiKey } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Job not found' });
    expect(
      (await t.app.inject({ method: 'GET', url: '/provisioning/jobs/00000000-0000-4000-8000-000000000000', headers: w.hdr })).statusCode,
    ).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/provisioning/jobs/nope', headers: w.hdr })).statusCode).toBe(422);
    // Jobs of other kinds (mail, webhooks) are not provisioning jobs.
    const mail = await t.db
      .selectFrom('jobs')
      .select('id')
      .where('kind', '=', 'webhook.deliver')
      .where('provider_id', '=', w.provider.id)
      .executeTakeFirst();
    if (mail) expect((await t.app.inject({ method: 'GET', url: `/provisioning/jobs/${mail.id}`, headers: w.hdr })).statusCode).toBe(404);
  });
});

describe('rate limit', () => {
  it('provider-initiated allows 120 requests per minute per key, then 429', async () => {
    const rl = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } });
    try {
      const p = await createProvider(rl.db);
      const statuses: number[] = [];
      for (let i = 0; i < 121; i++) {
        const r = await rl.app.inject({
          method: 'POST',
          url: i % 2 ? '/provisioning/provider-initiated' : '/api/v1/provisioning/provider-initiated',
          headers: { 'x-api-key': p.apiKey },
          payload: {},
        });
        statuses.push(r.statusCode);
      }
      expect([...new Set(statuses.slice(0, 120))]).toEqual([422]);
      expect(statuses[120]).toBe(429);
    } finally {
      await rl.close();
    }
  });
});
