// Issue 30 §3: scopes belong to API keys, and the X-Webhook-Secret is the only credential of the
// checkout page's calls. A secret call that creates or changes subscriptions passes only while the
// provider holds an active API key with provisioning:write; otherwise 403 and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createSubscriber, createSubscription } from '../helpers/factories.js';
import { createSession, createWorld, subscriber, type World } from './fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const setFeatures = (w: World, features: string[]) =>
  t.db.updateTable('api_keys').set({ features }).where('provider_id', '=', w.provider.id).execute();
const revokeKeys = (w: World) =>
  t.db.updateTable('api_keys').set({ revoked_at: t.clock.now() }).where('provider_id', '=', w.provider.id).execute();
const count = async (table: 'subscriptions' | 'subscribers' | 'jobs', providerId: string) =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('provider_id', '=', providerId)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function firstLineSession(w: World, i: number) {
  return createSession(t, {
    providerId: w.provider.id,
    planVersionId: w.plan.id,
    buildingId: w.first.id,
    unitId: w.first.units[i]!.id,
    locationId: w.ports[i]!.id,
  });
}

const post = (url: string, w: World, payload: object) => t.app.inject({ method: 'POST', url, headers: w.whs, payload });

describe('X-Webhook-Secret routes that create or change subscriptions need a provisioning:write key of the provider', () => {
  it('complete and anonymous-complete answer 403 when no key of the provider has the scope, and nothing is written; on both mounts', async () => {
    const w = await createWorld(t);
    await setFeatures(w, ['agent_api_access', 'serviceability:read']);
    for (const prefix of ['', '/api/v1']) {
      const s = await firstLineSession(w, prefix ? 1 : 0);
      const r = await post(`${prefix}/external-checkout/complete`, w, { session_id: s.id, subscriber: subscriber() });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ detail: 'No active API key of this provider has the provisioning:write scope' });
      const a = await post(`${prefix}/external-checkout/anonymous-complete`, w, {
        session_id: s.id,
        external_subscription_id: `ext-${prefix}`,
        subscriber: subscriber(),
      });
      expect(a.statusCode).toBe(403);
      const row = await t.db
        .selectFrom('checkout_sessions')
        .select(['status', 'subscription_id'])
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'redirected', subscription_id: null });
    }
    expect(await count('subscriptions', w.provider.id)).toBe(0);
    expect(await count('subscribers', w.provider.id)).toBe(0);
    expect(await count('jobs', w.provider.id)).toBe(0);
  });

  it('a revoked key with the scope does not count; an active one does (201, the subscription is created)', async () => {
    const w = await createWorld(t);
    await revokeKeys(w);
    const s = await firstLineSession(w, 0);
    const refused = await post('/external-checkout/complete', w, { session_id: s.id, subscriber: subscriber() });
    expect(refused.statusCode).toBe(403);
    expect(await count('subscriptions', w.provider.id)).toBe(0);

    await t.db.updateTable('api_keys').set({ revoked_at: null }).where('provider_id', '=', w.provider.id).execute();
    const ok = await post('/external-checkout/complete', w, { session_id: s.id, subscriber: subscriber() });
    expect(ok.statusCode).toBe(201);
    expect(await count('subscriptions', w.provider.id)).toBe(1);
  });

  it('subscription-status (suspend) answers 403 without the scope and leaves the subscription ACTIVE', async () => {
    const w = await createWorld(t);
    const sub = await createSubscriber(t.db, w.provider.id);
    const s = await createSubscription(t.db, {
      providerId: w.provider.id,
      subscriberId: sub.id,
      planVersionId: w.plan.id,
      buildingId: w.first.id,
      unitId: w.first.units[0]!.id,
      locationId: w.ports[0]!.id,
      status: 'ACTIVE',
      serviceBilled: false,
    });
    await setFeatures(w, ['agent_api_access']);
    const r = await post('/external-checkout/subscription-status', w, { subscription_id: s.id, action: 'suspend' });
    expect(r.statusCode).toBe(403);
    const row = await t.db.selectFrom('subscriptions').select('status').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('ACTIVE');

    await setFeatures(w, ['provisioning:write']);
    const ok = await post('/external-checkout/subscription-status', w, { subscription_id: s.id, action: 'suspend' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().status).toBe('SUSPENDED');
  });

  it('reading and patching a session (no subscription written) need only the secret', async () => {
    const w = await createWorld(t);
    await setFeatures(w, []);
    const s = await firstLineSession(w, 2);
    const read = await t.app.inject({ method: 'GET', url: `/external-checkout/sessions/${s.id}`, headers: w.whs });
    expect(read.statusCode).toBe(200);
  });
});
