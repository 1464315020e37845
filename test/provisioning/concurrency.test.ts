// Races are settled by unique indexes; only real Postgres runs the requests truly in parallel
// (the embedded database serialises them), so the assertions hold on both and prove it on Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvisioningService } from '../../src/modules/provisioning/provisioning.service.js';
import { createSession, createWorld, subscriber, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

const provision = (body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/provisioning/provider-initiated', headers: w.hdr, payload: body });
const nonTerminalOnUnit = async (unitId: string) =>
  t.db
    .selectFrom('subscriptions')
    .select(['id', 'subscriber_id'])
    .where('unit_id', '=', unitId)
    .where('status', 'in', ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'])
    .execute();

describe('concurrent provisioning of one unit', () => {
  it('two different subscribers at once: exactly one 201 and one 409, one subscription on the unit', async () => {
    const unit = w.second.units[0]!.id;
    const rs = await Promise.all(
      [0, 1].map(() => provision({ plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: unit, subscriber: subscriber() })),
    );
    expect(rs.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(rs.find((r) => r.statusCode === 409)!.json()).toEqual({ detail: 'Unit already has a pending or active subscription' });
    const subs = await nonTerminalOnUnit(unit);
    expect(subs).toHaveLength(1);
    expect(subs[0]!.id).toBe(rs.find((r) => r.statusCode === 201)!.json().subscription_id);
    expect(await t.db.selectFrom('install_jobs').select('id').where('unit_id', '=', unit).execute()).toHaveLength(1);
  });

  it('eight subscribers racing for one port: one 201, seven 409, one subscription, one port job', async () => {
    const rs = await Promise.all(
      Array.from({ length: 8 }, () =>
        provision({ plan_version_id: w.plan.id, location_hash: w.ports[0]!.locationHash, subscriber: subscriber() }),
      ),
    );
    expect(rs.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.statusCode === 409)).toHaveLength(7);
    const subs = await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', w.ports[0]!.id).execute();
    expect(subs).toHaveLength(1);
    expect(
      await t.db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', 'provisioning.port')
        .where('subscription_id', '=', subs[0]!.id)
        .execute(),
    ).toHaveLength(1);
  });

  it('when both requests pass the pre-check, the partial unique index subscriptions_unit_occupied_key refuses the second insert', async () => {
    const svc = createProvisioningService(t.deps);
    const unit = w.third.units[0]!.id;
    const resolved = {
      planVersionId: w.plan.id,
      country: 'DE',
      target: { building: { id: w.third.id, line_type: 'third_line' as const, in_coverage: true }, unitId: unit, location: null },
      decision: { route: 'install' as const, installKind: 'technician_visit' as const, bookingLink: false },
    };
    const ctx = { providerId: w.provider.id, actor: { actorType: 'system' as const, actor: 'test' } };
    const results = await Promise.allSettled(
      [0, 1].map(() =>
        svc.createSubscription(ctx, resolved, {
          origin: 'provider_initiated',
          subscriber: subscriber(),
          macAddress: null,
          moveInDate: null,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(svc.isOccupancyViolation(rejected.reason)).toBe(true);
    expect(await nonTerminalOnUnit(unit)).toHaveLength(1);
  });
});

describe('concurrent duplicates are one subscription', () => {
  it('the same provider-initiated body six times at once: one 201, the rest 200 replays of it, one subscriber and one subscription', async () => {
    const body = { plan_version_id: w.plan.id, location_hash: w.ports[1]!.locationHash, subscriber: subscriber() };
    const rs = await Promise.all(Array.from({ length: 6 }, () => provision(body)));
    const created = rs.filter((r) => r.statusCode === 201);
    expect(created).toHaveLength(1);
    const replays = rs.filter((r) => r.statusCode === 200);
    expect(replays).toHaveLength(5);
    for (const r of replays) {
      expect(r.json().subscription_id).toBe(created[0]!.json().subscription_id);
      expect(['Provisioning already in progress', 'Subscription already exists (idempotent replay)']).toContain(r.json().message);
    }
    expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', w.ports[1]!.id).execute()).toHaveLength(1);
    expect(await t.db.selectFrom('subscribers').select('id').where('email', '=', body.subscriber.email).execute()).toHaveLength(1);
  });

  it('one new subscriber ordering two units at once is created once (unique (provider, lower(email)))', async () => {
    const person = subscriber();
    const rs = await Promise.all(
      [w.second.units[1]!.id, w.second.units[2]!.id].map((unit_id) =>
        provision({ plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id, subscriber: person }),
      ),
    );
    expect(rs.map((r) => r.statusCode)).toEqual([201, 201]);
    expect(rs[0]!.json().subscriber_id).toBe(rs[1]!.json().subscriber_id);
    expect(await t.db.selectFrom('subscribers').select('id').where('email', '=', person.email).execute()).toHaveLength(1);
    expect(await t.db.selectFrom('users').select('id').where('email', '=', person.email).execute()).toHaveLength(1);
  });

  it('one new subscriber ordering three ports at once is created once, with one login (a one-statement write that loses the race falls back to the transaction path)', async () => {
    const person = subscriber();
    const ports = [3, 4, 5].map((i) => w.ports[i]);
    const rs = await Promise.all(
      ports.map((p) => provision({ plan_version_id: w.plan.id, location_hash: p!.locationHash, subscriber: person })),
    );
    expect(rs.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(new Set(rs.map((r) => r.json().subscriber_id)).size).toBe(1);
    expect(await t.db.selectFrom('subscribers').select('id').where('email', '=', person.email).execute()).toHaveLength(1);
    expect(await t.db.selectFrom('users').select('id').where('email', '=', person.email).execute()).toHaveLength(1);
    for (const [i, p] of ports.entries()) {
      expect(await t.db.selectFrom('subscriptions').select(['id', 'subscriber_id']).where('location_id', '=', p!.id).execute()).toEqual([
        { id: rs[i]!.json().subscription_id, subscriber_id: rs[i]!.json().subscriber_id },
      ]);
      expect(
        await t.db.selectFrom('audit_entries').select('id').where('entity_id', '=', rs[i]!.json().subscription_id).execute(),
      ).toHaveLength(1);
    }
  });

  it('completing one session four times at once: one 201, three 200 replays, one subscription', async () => {
    const s = await createSession(t, {
      providerId: w.provider.id,
      planVersionId: w.plan.id,
      buildingId: w.first.id,
      unitId: w.first.units[2]!.id,
      locationId: w.ports[2]!.id,
    });
    const rs = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.app.inject({
          method: 'POST',
          url: '/external-checkout/complete',
          headers: w.whs,
          payload: { session_id: s.id, subscriber: subscriber() },
        }),
      ),
    );
    expect(rs.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.statusCode === 200)).toHaveLength(3);
    expect(await t.db.selectFrom('subscriptions').select('id').where('checkout_session_id', '=', s.id).execute()).toHaveLength(1);
  });

  it('anonymous-complete with one external_subscription_id four times at once: one subscription, the rest idempotent_replay', async () => {
    const ext = `ext-race-${Date.now()}`;
    const units = w.unclassified.units.slice(0, 4).map((u) => u.id);
    const rs = await Promise.all(
      units.map((unit_id) =>
        t.app.inject({
          method: 'POST',
          url: '/external-checkout/anonymous-complete',
          headers: w.whs,
          payload: {
            plan_version_id: w.plan.id,
            delivery_mode: 'home_drop',
            unit_id,
            external_subscription_id: ext,
            subscriber: subscriber(),
          },
        }),
      ),
    );
    expect(rs.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.statusCode === 200 && r.json().idempotent_replay === true)).toHaveLength(3);
    expect(await t.db.selectFrom('subscriptions').select('id').where('external_subscription_id', '=', ext).execute()).toHaveLength(1);
  });
});
