import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { SwitchControllerSimulator } from '../../src/adapters/switch.simulator.js';
import { PORT_JOB_MAX_ATTEMPTS } from '../../src/modules/subscriptions/index.js';
import { createWorld, drainWithRetries, portJobsOf, subscriber, subscriptionRow, webhookTypes, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let rx: WebhookReceiver;
let sw: SwitchControllerSimulator;
beforeAll(async () => {
  t = await buildTestApp();
  rx = await startWebhookReceiver({ clock: t.clock });
  w = await createWorld(t, { webhookUrl: rx.url });
  rx.trust(w.provider.signingSecret);
  sw = t.deps.adapters.switchController as SwitchControllerSimulator;
});
afterAll(async () => {
  await rx.close();
  await t.close();
});
beforeEach(() => {
  rx.reset();
  sw.faults.reset();
});

const provision = (body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/provisioning/provider-initiated', headers: w.hdr, payload: body });
const eventsOf = (subscriptionId: string) => rx.events.filter((e) => e.data.subscription_id === subscriptionId);

describe('webhook sequence', () => {
  it('first-line provision: subscription.activated, then provisioning.completed, both signed and carrying the job id; the port is provisioned with VLAN, plan bandwidth and MAC', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      location_hash: w.ports[0]!.locationHash,
      mac_address: 'aa-bb-cc-00-11-22',
      subscriber: subscriber(),
    });
    expect(r.statusCode).toBe(201);
    const { subscription_id: id, subscriber_id: sid, job_id: jobId } = r.json();
    await t.deps.jobs.drain();
    const ev = eventsOf(id);
    expect(ev.map((e) => e.type)).toEqual(['subscription.activated', 'provisioning.completed']);
    expect(ev[0]).toMatchObject({
      provider_id: w.provider.id,
      data: { subscription_id: id, subscriber_id: sid, job_id: jobId, status: 'ACTIVE' },
    });
    expect(ev[1]!.data).toMatchObject({ subscription_id: id, subscriber_id: sid, job_id: jobId, error: null });
    expect(ev.every((e) => e.webhookId === e.id)).toBe(true);
    const port = await sw.getPort(w.ports[0]!.id);
    const loc = await t.db.selectFrom('locations').select('vlan_id').where('id', '=', w.ports[0]!.id).executeTakeFirstOrThrow();
    expect(port).toMatchObject({
      mode: 'provisioned',
      vlan_id: loc.vlan_id,
      download_mbps: 500,
      upload_mbps: 100,
      mac_address: 'aa:bb:cc:00:11:22',
    });
    expect((await portJobsOf(t, id))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await subscriptionRow(t, id)).toMatchObject({ status: 'ACTIVE', mac_address: 'AA:BB:CC:00:11:22' });
  });

  it('install path: subscription.pending_install only (never subscription.activated)', async () => {
    const r = await provision({
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: w.second.units[0]!.id,
      subscriber: subscriber(),
    });
    await t.deps.jobs.drain();
    expect(eventsOf(r.json().subscription_id).map((e) => e.type)).toEqual(['subscription.pending_install']);
    expect(eventsOf(r.json().subscription_id)[0]!.data).toMatchObject({ status: 'PENDING_INSTALL', route: 'install' });
  });

  it('a restore (reason restore, queued by the subscription-status flow) provisions the port again without any webhook', async () => {
    const r = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[1]!.locationHash, subscriber: subscriber() });
    const id = r.json().subscription_id;
    await t.deps.jobs.drain();
    rx.reset();
    await t.deps.jobs.enqueue(t.db, {
      kind: 'provisioning.port',
      payload: { subscription_id: id, reason: 'restore' },
      providerId: w.provider.id,
      subscriptionId: id,
    });
    await t.deps.jobs.drain();
    expect(eventsOf(id)).toEqual([]);
    const jobs = await portJobsOf(t, id);
    expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
    expect((await webhookTypes(t, id)).map((d) => d.event_type)).toEqual(['subscription.activated', 'provisioning.completed']);
  });

  it('a restore overtaken by a new suspension does nothing (the job succeeds as skipped)', async () => {
    const r = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[2]!.locationHash, subscriber: subscriber() });
    const id = r.json().subscription_id;
    await t.deps.jobs.drain();
    await t.db.updateTable('subscriptions').set({ status: 'SUSPENDED' }).where('id', '=', id).execute();
    const job = await t.deps.jobs.enqueue(t.db, {
      kind: 'provisioning.port',
      payload: { subscription_id: id, reason: 'restore' },
      providerId: w.provider.id,
      subscriptionId: id,
    });
    await t.deps.jobs.drain();
    const row = await t.db.selectFrom('jobs').select(['status', 'result']).where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'succeeded', result: { skipped: 'subscription is SUSPENDED' } });
  });
});

describe('switch failures', () => {
  it('a switch that fails twice is retried with backoff and applied once; only provisioning.completed is sent', async () => {
    sw.faults.set('unreachable', { times: 2 });
    const r = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[3]!.locationHash, subscriber: subscriber() });
    const { subscription_id: id, job_id: jobId } = r.json();
    await t.deps.jobs.drain();
    let job = (await portJobsOf(t, id))[0];
    expect(job).toMatchObject({ status: 'queued', attempts: 1, last_error: expect.stringMatching(/unreachable/) });
    const poll = await t.app.inject({ method: 'GET', url: `/provisioning/jobs/${jobId}`, headers: w.hdr });
    expect(poll.json()).toMatchObject({ status: 'queued', attempts: 1, error: expect.stringMatching(/unreachable/) });
    await drainWithRetries(t, 4, 60 * 60_000);
    job = (await portJobsOf(t, id))[0];
    expect(job).toMatchObject({ status: 'succeeded', attempts: 3, last_error: null });
    expect(eventsOf(id).map((e) => e.type)).toEqual(['subscription.activated', 'provisioning.completed']);
    const ops = await t.db.selectFrom('sim_switch_operations').select('operation_key').where('location_id', '=', w.ports[3]!.id).execute();
    expect(ops).toEqual([{ operation_key: jobId }]);
  });

  it('a switch that keeps failing: retries until the last attempt, then provisioning.failed with the error; the subscription stays ACTIVE and the port untouched', async () => {
    sw.faults.set('failing');
    const r = await provision({ plan_version_id: w.plan.id, location_hash: w.ports[4]!.locationHash, subscriber: subscriber() });
    const { subscription_id: id, job_id: jobId } = r.json();
    await drainWithRetries(t, PORT_JOB_MAX_ATTEMPTS + 2, 2 * 60 * 60_000);
    const job = (await portJobsOf(t, id))[0];
    expect(job).toMatchObject({
      status: 'failed',
      attempts: PORT_JOB_MAX_ATTEMPTS,
      last_error: 'switch controller answered with an error',
    });
    const ev = eventsOf(id);
    expect(ev.map((e) => e.type)).toEqual(['subscription.activated', 'provisioning.failed']);
    expect(ev[1]!.data).toMatchObject({ job_id: jobId, error: 'switch controller answered with an error' });
    expect(await subscriptionRow(t, id)).toMatchObject({ status: 'ACTIVE', location_id: w.ports[4]!.id });
    expect(await sw.getPort(w.ports[4]!.id)).toBeNull();
    const poll = await t.app.inject({ method: 'GET', url: `/provisioning/jobs/${jobId}`, headers: w.hdr });
    expect(poll.json()).toMatchObject({
      status: 'failed',
      attempts: PORT_JOB_MAX_ATTEMPTS,
      error: 'switch controller answered with an error',
    });
  });
});
