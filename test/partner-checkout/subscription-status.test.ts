import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedAdapters } from '../../src/adapters/index.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';

let t: TestApp;
let sw: SimulatedAdapters['switchController'];
beforeAll(async () => {
  t = await buildTestApp();
  sw = (t.deps.adapters as SimulatedAdapters).switchController;
});
afterAll(() => t.close());
afterEach(() => sw.faults.reset());

const MOUNTS = ['', '/api/v1'];
type Status = 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

/** A provider-billed subscription (the endpoint is for providers that own billing) unless serviceBilled. */
async function world(
  status: Status,
  o: { withPort?: boolean; serviceBilled?: boolean; suspendedReason?: 'provider' | 'non_payment' } = {},
) {
  const p = await createProvider(t.db);
  const plan = await createPlanVersion(t.db, p.id, { down: 500, up: 100 });
  const b = await createBuilding(t.db, p.id, { units: ['1A'] });
  const loc = o.withPort === false ? null : await createLocation(t.db, p.id, b.id, b.units[0]!.id);
  const sub = await createSubscriber(t.db, p.id);
  const s = await createSubscription(t.db, {
    providerId: p.id,
    subscriberId: sub.id,
    planVersionId: plan.id,
    buildingId: b.id,
    unitId: b.units[0]!.id,
    locationId: loc?.id ?? null,
    status,
    serviceBilled: o.serviceBilled ?? false,
  });
  if (status === 'SUSPENDED')
    await t.db
      .updateTable('subscriptions')
      .set({ suspended_reason: o.suspendedReason ?? 'provider' })
      .where('id', '=', s.id)
      .execute();
  return { p, s, loc };
}

const call = (secret: string | undefined, payload: object, prefix = '') =>
  t.app.inject({
    method: 'POST',
    url: `${prefix}/external-checkout/subscription-status`,
    payload,
    headers: secret ? { 'x-webhook-secret': secret } : {},
  });
const subRow = (id: string) =>
  t.db.selectFrom('subscriptions').select(['status', 'suspended_reason']).where('id', '=', id).executeTakeFirstOrThrow();
const portJobs = (id: string) =>
  t.db
    .selectFrom('jobs')
    .select(['kind', 'payload', 'status', 'provider_id'])
    .where('subscription_id', '=', id)
    .where('kind', '=', 'provisioning.port')
    .execute();
const webhookCount = async (id: string) =>
  Number(
    (
      await t.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subscription_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /external-checkout/subscription-status suspend', () => {
  it('ACTIVE → SUSPENDED (reason provider), port switched to the captive portal, no webhook, on both mounts', async () => {
    for (const prefix of MOUNTS) {
      const w = await world('ACTIVE');
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' }, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        subscription_id: w.s.id,
        status: 'SUSPENDED',
        port_changed: true,
        port_error: null,
        message: expect.any(String),
      });
      expect(await subRow(w.s.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'provider' });
      expect((await sw.getPort(w.loc!.id))?.mode).toBe('captive_portal');
      expect(await webhookCount(w.s.id)).toBe(0);
      const audit = await t.db.selectFrom('audit_entries').select(['action', 'actor_type']).where('entity_id', '=', w.s.id).execute();
      expect(audit).toEqual([{ action: 'subscription.suspend', actor_type: 'webhook_secret' }]);
    }
  });

  it('when the switch is unreachable the subscription is still SUSPENDED, with port_changed false and a short port_error', async () => {
    const w = await world('ACTIVE');
    sw.faults.set('unreachable');
    const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ subscription_id: w.s.id, status: 'SUSPENDED', port_changed: false });
    expect(body.port_error).toEqual(expect.any(String));
    expect(body.port_error.length).toBeLessThan(120);
    expect(await subRow(w.s.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'provider' });
    expect((await sw.getPort(w.loc!.id))?.mode ?? null).not.toBe('captive_portal');
    expect(await webhookCount(w.s.id)).toBe(0);
  });

  it('a subscription without a switch port is suspended with port_changed false and no port_error (no switch action attempted)', async () => {
    const w = await world('ACTIVE', { withPort: false });
    const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'SUSPENDED', port_changed: false, port_error: null });
    expect((await subRow(w.s.id)).status).toBe('SUSPENDED');
  });

  it('suspend from SUSPENDED, PENDING, PENDING_INSTALL or CANCELLED answers 409 and changes nothing', async () => {
    for (const status of ['SUSPENDED', 'PENDING', 'PENDING_INSTALL', 'CANCELLED'] as const) {
      const w = await world(status);
      const before = await subRow(w.s.id);
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' });
      expect(r.statusCode, status).toBe(409);
      expect(r.json().detail).toContain(status);
      expect(await subRow(w.s.id)).toEqual(before);
      expect(await sw.getPort(w.loc!.id)).toBeNull();
    }
  });
});

describe('POST /external-checkout/subscription-status restore', () => {
  it('SUSPENDED → ACTIVE and a provisioning.port job {subscription_id, reason: restore} queued in the same write, on both mounts', async () => {
    for (const prefix of MOUNTS) {
      const w = await world('SUSPENDED');
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' }, prefix);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({
        subscription_id: w.s.id,
        status: 'ACTIVE',
        port_changed: false,
        port_error: null,
        message: expect.any(String),
      });
      expect(await subRow(w.s.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
      const jobs = await portJobs(w.s.id);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({
        kind: 'provisioning.port',
        payload: { subscription_id: w.s.id, reason: 'restore' },
        status: 'queued',
        provider_id: w.p.id,
      });
      expect(await webhookCount(w.s.id)).toBe(0);
    }
  });

  it('the re-queued job provisions the port again when it runs, and fires no webhook', async () => {
    const w = await world('ACTIVE');
    await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' });
    expect((await sw.getPort(w.loc!.id))?.mode).toBe('captive_portal');
    await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' });
    await t.deps.jobs.drain();
    expect((await portJobs(w.s.id)).map((j) => j.status)).toEqual(['succeeded']);
    expect(await sw.getPort(w.loc!.id)).toMatchObject({ mode: 'provisioned', download_mbps: 500, upload_mbps: 100 });
    expect(await webhookCount(w.s.id)).toBe(0);
  });

  it('restore on ACTIVE is an idempotent 200 saying it is already ACTIVE, with no job', async () => {
    const w = await world('ACTIVE');
    const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ subscription_id: w.s.id, status: 'ACTIVE', port_changed: false, port_error: null });
    expect(r.json().message).toMatch(/already ACTIVE/);
    expect(await portJobs(w.s.id)).toEqual([]);
    expect((await subRow(w.s.id)).status).toBe('ACTIVE');
  });

  it('restore from PENDING, PENDING_INSTALL or CANCELLED answers 409 and queues nothing', async () => {
    for (const status of ['PENDING', 'PENDING_INSTALL', 'CANCELLED'] as const) {
      const w = await world(status);
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' });
      expect(r.statusCode, status).toBe(409);
      expect((await subRow(w.s.id)).status).toBe(status);
      expect(await portJobs(w.s.id)).toEqual([]);
    }
  });
});

describe('POST /external-checkout/subscription-status on a subscription the service bills', () => {
  it('suspend answers 409 with a detail saying suspension follows non-payment; nothing changes, the port is untouched', async () => {
    for (const prefix of MOUNTS) {
      const w = await world('ACTIVE', { serviceBilled: true });
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' }, prefix);
      expect(r.statusCode).toBe(409);
      expect(r.json()).toEqual({ detail: expect.stringMatching(/billed by the service.*suspended automatically.*provider owns/) });
      expect(await subRow(w.s.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
      expect(await sw.getPort(w.loc!.id)).toBeNull();
      expect(await t.db.selectFrom('audit_entries').select('id').where('entity_id', '=', w.s.id).execute()).toEqual([]);
    }
  });

  it('restore answers 409 for an ACTIVE one and for a non-payment suspension (a payment lifts that), queuing nothing', async () => {
    const active = await world('ACTIVE', { serviceBilled: true });
    const dunned = await world('SUSPENDED', { serviceBilled: true, suspendedReason: 'non_payment' });
    for (const w of [active, dunned]) {
      const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' });
      expect(r.statusCode).toBe(409);
      expect(r.json().detail).toMatch(/billed by the service/);
      expect(await portJobs(w.s.id)).toEqual([]);
    }
    expect(await subRow(dunned.s.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'non_payment' });
  });

  it('a provider suspension made before the rule can still be restored, so the subscription is not stuck', async () => {
    const w = await world('SUSPENDED', { serviceBilled: true, suspendedReason: 'provider' });
    const r = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' });
    expect(r.statusCode).toBe(200);
    expect(await subRow(w.s.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
    expect(await portJobs(w.s.id)).toHaveLength(1);
  });
});

describe('POST /external-checkout/subscription-status concurrency', () => {
  it('five simultaneous suspends of one ACTIVE subscription: exactly one 200, the rest 409, one audit entry', async () => {
    const w = await world('ACTIVE');
    const rs = await Promise.all(Array.from({ length: 5 }, () => call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'suspend' })));
    expect(rs.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await subRow(w.s.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'provider' });
    const audit = await t.db.selectFrom('audit_entries').select('action').where('entity_id', '=', w.s.id).execute();
    expect(audit).toHaveLength(1);
  });

  it('five simultaneous restores of one SUSPENDED subscription queue exactly one port job', async () => {
    const w = await world('SUSPENDED');
    const rs = await Promise.all(Array.from({ length: 5 }, () => call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'restore' })));
    expect(rs.every((r) => r.statusCode === 200)).toBe(true);
    expect(rs.filter((r) => /already ACTIVE/.test(r.json().message))).toHaveLength(4);
    expect(await portJobs(w.s.id)).toHaveLength(1);
  });
});

describe('POST /external-checkout/subscription-status access', () => {
  it('an unknown subscription or one of another provider answers 404; missing secret 401, wrong 403; bad action 422', async () => {
    const w = await world('ACTIVE');
    const other = await createProvider(t.db);
    const foreign = await call(other.webhookSecret, { subscription_id: w.s.id, action: 'suspend' });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Subscription not found' });
    const unknown = await call(w.p.webhookSecret, { subscription_id: '00000000-0000-4000-8000-000000000000', action: 'suspend' });
    expect(unknown.statusCode).toBe(404);
    const missing = await call(undefined, { subscription_id: w.s.id, action: 'suspend' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ detail: 'Not authenticated' });
    const wrong = await call(`whs_abcdefgh_${'x'.repeat(40)}`, { subscription_id: w.s.id, action: 'suspend' });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ detail: 'Invalid credentials' });
    const bad = await call(w.p.webhookSecret, { subscription_id: w.s.id, action: 'pause' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^action: /);
    expect((await subRow(w.s.id)).status).toBe('ACTIVE');
  });
});
