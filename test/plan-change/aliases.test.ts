// Issue 28 §3: the partner document writes the plan-change paths as /partner/subscriptions/{id}/... and
// as /subscriptions/{id}/... (relative to the partner base). Both answer, on both mounts, with one
// implementation: the same answers, the same once-a-day rule across them, one idempotency fingerprint;
// the OpenAPI lists the /partner/ paths and names the alias.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomer, createWorld, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
});
afterAll(() => t.close());

const PATHS = ['/partner/subscriptions', '/subscriptions', '/api/v1/partner/subscriptions', '/api/v1/subscriptions'];
const hdr = () => ({ 'x-api-key': w.provider.apiKey });

describe('plan-change paths and their aliases', () => {
  for (const base of PATHS) {
    it(`${base}/{id}/change-plan/preview and ${base}/{id}/change-plan answer; a second change the same day answers 409 on any path`, async () => {
      const c = await createCustomer(t.db, w, { records: 'invoiced' });
      const pre = await t.app.inject({
        method: 'GET',
        url: `${base}/${c.subscriptionId}/change-plan/preview?plan_version_id=${w.plans.faster.id}`,
        headers: hdr(),
      });
      expect(pre.statusCode).toBe(200);
      expect(pre.json()).toMatchObject({ eligible: true });
      const r = await t.app.inject({
        method: 'POST',
        url: `${base}/${c.subscriptionId}/change-plan`,
        headers: hdr(),
        payload: { plan_version_id: w.plans.faster.id },
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ subscription_id: c.subscriptionId, plan_version_id: w.plans.faster.id });
      const row = await t.db
        .selectFrom('subscriptions')
        .select('plan_version_id')
        .where('id', '=', c.subscriptionId)
        .executeTakeFirstOrThrow();
      expect(row.plan_version_id).toBe(w.plans.faster.id);
      for (const other of PATHS) {
        const again = await t.app.inject({
          method: 'POST',
          url: `${other}/${c.subscriptionId}/change-plan`,
          headers: hdr(),
          payload: { plan_version_id: w.plans.basic.id },
        });
        expect(again.statusCode, other).toBe(409);
      }
    });
  }

  it('the alias needs the same key: without one 401, another provider gets 404', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const none = await t.app.inject({
      method: 'POST',
      url: `/subscriptions/${c.subscriptionId}/change-plan`,
      payload: { plan_version_id: w.plans.faster.id },
    });
    expect(none.statusCode).toBe(401);
    const other = await createWorld(t.db);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/subscriptions/${c.subscriptionId}/change-plan`,
      headers: { 'x-api-key': other.provider.apiKey },
      payload: { plan_version_id: w.plans.faster.id },
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('one Idempotency-Key across the path and its alias replays the first answer instead of 422', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    const send = (base: string) =>
      t.app.inject({
        method: 'POST',
        url: `${base}/${c.subscriptionId}/change-plan`,
        headers: { ...hdr(), 'idempotency-key': `alias-${c.subscriptionId}` },
        payload: { plan_version_id: w.plans.faster.id },
      });
    const first = await send('/partner/subscriptions');
    expect(first.statusCode).toBe(200);
    const replay = await send('/api/v1/subscriptions');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
  });

  it('the OpenAPI lists the /partner/ paths once, says the alias is the same operation, and hides the alias', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/partner/subscriptions/{id}/change-plan'].post.operationId).toBe('changeSubscriptionPlan');
    expect(doc.paths['/partner/subscriptions/{id}/change-plan/preview'].get.operationId).toBe('previewSubscriptionPlanChange');
    expect(doc.paths['/partner/subscriptions/{id}/change-plan'].post.description).toContain('/subscriptions/{id}/change-plan');
    expect(doc.paths['/partner/subscriptions/{id}/change-plan/preview'].get.description).toContain('/subscriptions/{id}/change-plan');
    expect(doc.paths['/subscriptions/{id}/change-plan']).toBeUndefined();
    expect(doc.paths['/subscriptions/{id}/change-plan/preview']).toBeUndefined();
  });
});
