import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { resetAllFaults, simulatorsOf } from '../../src/adapters/index.js';
import { createPlanChangeService } from '../../src/modules/plan-change/plan-change.service.js';
import { BANDWIDTH_JOB } from '../../src/modules/plan-change/plan-change.jobs.js';
import { createCustomer, createWorld, type World } from './fixtures.js';

let t: TestApp;
let w: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
});
afterAll(() => t.close());
afterEach(() => {
  resetAllFaults(t.deps.adapters);
  t.clock.set('2026-11-16T10:00:00.000Z');
});

const actor = { actorType: 'api_key' as const, actor: 'testtest' };
const statusOf = async (subscriptionId: string) =>
  (
    await t.db
      .selectFrom('plan_changes')
      .select(['bandwidth_status', 'change_date'])
      .where('subscription_id', '=', subscriptionId)
      .orderBy('change_date')
      .execute()
  ).map((r) => r.bandwidth_status);
const jobsOf = (subscriptionId: string) =>
  t.db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', '=', BANDWIDTH_JOB)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('created_at')
    .execute();
const port = (locationId: string) => simulatorsOf(t.deps.adapters).switchController.getPort(locationId);

describe('plan change bandwidth: one short attempt after the commit, then the retry job', () => {
  it("a switch slower than the request's timeout answers bandwidth_updated false; the retry job confirms it with the same operation key", async () => {
    const service = createPlanChangeService(t.deps, { switchTimeoutMs: 50 });
    const c = await createCustomer(t.db, w);
    t.deps.adapters.switchController.faults.set('slow', { delayMs: 1500, times: 1 });
    const r = await service.apply({
      providerId: w.provider.id,
      subscriptionId: c.subscriptionId,
      planVersionId: w.plans.faster.id,
      source: 'partner',
      actor,
      requestId: null,
    });
    expect(r.bandwidthUpdated).toBe(false);
    expect(await statusOf(c.subscriptionId)).toEqual(['pending']);
    await new Promise((res) => setTimeout(res, 1700)); // the slow call lands on the switch meanwhile

    t.clock.advance(61_000);
    await t.deps.jobs.drain();
    expect(await statusOf(c.subscriptionId)).toEqual(['applied']);
    const [job] = await jobsOf(c.subscriptionId);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, result: { applied: true } });
    expect(await port(c.locationId!)).toMatchObject({ download_mbps: 1000, upload_mbps: 200 });
    const ops = await t.db.selectFrom('sim_switch_operations').selectAll().where('location_id', '=', c.locationId!).execute();
    expect(ops.filter((o) => o.action === 'update_bandwidth')).toHaveLength(1);
  });

  it('the switch applying at once leaves the job nothing to do', async () => {
    const c = await createCustomer(t.db, w);
    const service = createPlanChangeService(t.deps);
    const r = await service.apply({
      providerId: w.provider.id,
      subscriptionId: c.subscriptionId,
      planVersionId: w.plans.basic.id,
      source: 'partner',
      actor,
      requestId: null,
    });
    expect(r.bandwidthUpdated).toBe(true);
    t.clock.advance(61_000);
    await t.deps.jobs.drain();
    const [job] = await jobsOf(c.subscriptionId);
    expect(job).toMatchObject({ status: 'succeeded', result: { skipped: 'applied' } });
    expect(await port(c.locationId!)).toMatchObject({ download_mbps: 100, upload_mbps: 20 });
  });

  it("a later change supersedes an unconfirmed one: only the current plan's bandwidth is set", async () => {
    const c = await createCustomer(t.db, w);
    const service = createPlanChangeService(t.deps);
    t.deps.adapters.switchController.faults.set('unreachable');
    await service.apply({
      providerId: w.provider.id,
      subscriptionId: c.subscriptionId,
      planVersionId: w.plans.faster.id,
      source: 'partner',
      actor,
      requestId: null,
    });
    t.clock.set('2026-11-17T10:00:00Z');
    await service.apply({
      providerId: w.provider.id,
      subscriptionId: c.subscriptionId,
      planVersionId: w.plans.basic.id,
      source: 'partner',
      actor,
      requestId: null,
    });
    expect(await statusOf(c.subscriptionId)).toEqual(['pending', 'pending']);
    resetAllFaults(t.deps.adapters);
    t.clock.advance(61_000);
    await t.deps.jobs.drain();
    expect(await statusOf(c.subscriptionId)).toEqual(['superseded', 'applied']);
    expect(await port(c.locationId!)).toMatchObject({ download_mbps: 100, upload_mbps: 20 });
  });

  it('when the switch stays unreachable the job gives up and marks the change failed for an operator', async () => {
    const c = await createCustomer(t.db, w);
    const service = createPlanChangeService(t.deps);
    t.deps.adapters.switchController.faults.set('unreachable');
    const r = await service.apply({
      providerId: w.provider.id,
      subscriptionId: c.subscriptionId,
      planVersionId: w.plans.faster.id,
      source: 'partner',
      actor,
      requestId: null,
    });
    expect(r.bandwidthUpdated).toBe(false);
    for (let i = 0; i < 20; i++) {
      t.clock.advance(10 * 60_000);
      await t.deps.jobs.drain();
    }
    const [job] = await jobsOf(c.subscriptionId);
    expect(job).toMatchObject({ status: 'failed', attempts: 12 });
    expect(await statusOf(c.subscriptionId)).toEqual(['failed']);
    // The change itself stays applied.
    const sub = await t.db
      .selectFrom('subscriptions')
      .select('plan_version_id')
      .where('id', '=', c.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.plan_version_id).toBe(w.plans.faster.id);
  });
});
