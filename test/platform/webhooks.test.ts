import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue.js';
import { WEBHOOK_DELIVER_KIND, deliveryJobKey, type WebhookEventType } from '../../src/webhooks/types.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/webhooks/schedule.js';
import { NO_URL_RECHECK_MS, UNRESPONSIVE_FOR_MS, createWebhookDelivery, DeliveryRetry } from '../../src/webhooks/webhook.delivery.js';
import { DeferJob } from '../../src/jobs/types.js';
import { DELIVERY_JOB_MAX_ATTEMPTS } from '../../src/webhooks/outbox.js';
import { registerWebhookJobs } from '../../src/webhooks/webhook.jobs.js';
import { postWebhook, signWebhook } from '../../src/webhooks/sender.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { usingPostgres } from '../helpers/db.js';
import { newId } from '../../src/lib/ids.js';
import { configureWebhookEndpoint, EndpointError } from '../../src/webhooks/endpoint.js';

let t: TestApp;
let rx: WebhookReceiver;

beforeAll(async () => {
  t = await buildTestApp();
  rx = await startWebhookReceiver({ clock: t.clock });
});
afterAll(async () => {
  await rx.close();
  await t.close();
});
beforeEach(async () => {
  await rx.setMode('ok');
  rx.reset();
});

interface Ctx {
  providerId: string;
  signingSecret: string;
  subscriberId: string;
  subscriptionId: string;
}

async function setup(o: { webhookUrl?: string | null } = {}): Promise<Ctx> {
  const p = await createProvider(t.db, { webhookUrl: o.webhookUrl === undefined ? rx.url : o.webhookUrl });
  rx.trust(p.signingSecret);
  const pv = await createPlanVersion(t.db, p.id);
  const sub = await createSubscriber(t.db, p.id);
  const s = await createSubscription(t.db, { providerId: p.id, subscriberId: sub.id, planVersionId: pv.id });
  return { providerId: p.id, signingSecret: p.signingSecret, subscriberId: sub.id, subscriptionId: s.id };
}

async function anotherSubscription(c: Ctx): Promise<Ctx> {
  const pv = await createPlanVersion(t.db, c.providerId);
  const sub = await createSubscriber(t.db, c.providerId);
  const s = await createSubscription(t.db, { providerId: c.providerId, subscriberId: sub.id, planVersionId: pv.id });
  return { ...c, subscriberId: sub.id, subscriptionId: s.id };
}

const emit = (c: Ctx, type: WebhookEventType = 'subscription.activated', data?: Record<string, unknown>) =>
  t.db
    .transaction()
    .execute((trx) =>
      t.deps.webhooks.emit(trx, { providerId: c.providerId, type, subscriptionId: c.subscriptionId, subscriberId: c.subscriberId, data }),
    );

const delivery = (id: string) => t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attemptsOf = (id: string) =>
  t.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
const jobOf = (id: string) => t.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', deliveryJobKey(id)).executeTakeFirstOrThrow();
const ms = (d: Date | null) => d!.getTime();

/** The schedule's step after failed attempt `attempt`, with the documented jitter (+0..10 %, at most +5 min). */
function expectStep(delayMs: number, attempt: number) {
  const step = WEBHOOK_RETRY_DELAYS_MS[attempt - 1]!;
  expect(delayMs).toBeGreaterThanOrEqual(step);
  expect(delayMs).toBeLessThanOrEqual(step + Math.min(step * 0.1, 300_000));
}

describe('webhook outbox: emit and a successful delivery', () => {
  it('the envelope has the decided shape and the Standard Webhooks signature verifies; the attempt is recorded', async () => {
    const c = await setup();
    const emittedAt = t.clock.now();
    const { id } = await emit(c, 'provisioning.failed', { job_id: 'job-1', error: 'switch unreachable' });
    expect(id).toMatch(/^msg_[a-z0-9]{26}$/);

    // Written in the caller's transaction, with its delivery job, not yet sent.
    expect(await delivery(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      provider_id: c.providerId,
      subscription_id: c.subscriptionId,
      event_type: 'provisioning.failed',
    });
    expect(await jobOf(id)).toMatchObject({
      kind: WEBHOOK_DELIVER_KIND,
      status: 'queued',
      payload: { delivery_id: id },
      provider_id: c.providerId,
      subscription_id: c.subscriptionId,
    });

    t.clock.advance(2_000);
    await t.deps.jobs.drain();
    expect(rx.events).toHaveLength(1);
    const ev = rx.events[0]!;
    const body = JSON.parse(ev.rawBody);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'provider_id', 'data']);
    expect(body).toEqual({
      id,
      type: 'provisioning.failed',
      created_at: emittedAt.toISOString(),
      provider_id: c.providerId,
      data: { subscription_id: c.subscriptionId, subscriber_id: c.subscriberId, job_id: 'job-1', error: 'switch unreachable' },
    });
    expect(Object.keys(body.data).slice(0, 2)).toEqual(['subscription_id', 'subscriber_id']);

    // Headers per decisions.md: id, unix-seconds timestamp of the attempt, v1 HMAC-SHA256 over "<id>.<ts>.<body>".
    expect(ev.headers['webhook-id']).toBe(id);
    expect(ev.headers['content-type']).toBe('application/json');
    const ts = String(Math.floor(t.clock.now().getTime() / 1000));
    expect(ev.headers['webhook-timestamp']).toBe(ts);
    const key = Buffer.from(c.signingSecret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${id}.${ts}.${ev.rawBody}`).digest('base64');
    expect(ev.headers['webhook-signature']).toBe(`v1,${expected}`);

    const d = await delivery(id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1, next_attempt_at: null, blocked_by: null });
    expect(d.delivered_at).toEqual(t.clock.now());
    expect(d.payload).toEqual(body); // kept exactly as sent
    const atts = await attemptsOf(id);
    expect(atts).toHaveLength(1);
    expect(atts[0]).toMatchObject({ attempt: 1, url: rx.url, status_code: 204, error: null });
    expect(atts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(atts[0]!.created_at).toEqual(t.clock.now());
    expect(await jobOf(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('data never overrides subscription_id or subscriber_id; an unknown event type is refused', async () => {
    const c = await setup();
    const { id } = await emit(c, 'subscription.plan_changed', { subscription_id: 'forged', subscriber_id: 'forged', from_plan: 'a' });
    const d = await delivery(id);
    expect(d.payload).toMatchObject({ data: { subscription_id: c.subscriptionId, subscriber_id: c.subscriberId, from_plan: 'a' } });
    await expect(emit(c, 'subscription.suspended' as WebhookEventType)).rejects.toThrow(/unknown webhook event type/);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([id]);
  });

  it('an emit inside a rolled-back transaction leaves neither a delivery nor a job', async () => {
    const c = await setup();
    let emitted = '';
    await expect(
      t.db.transaction().execute(async (trx) => {
        emitted = (
          await t.deps.webhooks.emit(trx, {
            providerId: c.providerId,
            type: 'subscription.cancelled',
            subscriptionId: c.subscriptionId,
            subscriberId: c.subscriberId,
          })
        ).id;
        throw new Error('cancel failed');
      }),
    ).rejects.toThrow('cancel failed');
    expect(await t.db.selectFrom('webhook_deliveries').select('id').where('id', '=', emitted).execute()).toHaveLength(0);
    expect(await t.db.selectFrom('jobs').select('id').where('dedupe_key', '=', deliveryJobKey(emitted)).execute()).toHaveLength(0);
    await t.deps.jobs.drain();
    expect(rx.events).toHaveLength(0);
  });
});

describe('webhook delivery: retries', () => {
  it('a receiver that is down gets the event later, on the schedule, with the same webhook-id; every attempt is recorded', async () => {
    const c = await setup();
    await rx.setMode('down');
    const { id } = await emit(c);
    await t.deps.jobs.drain();

    let d = await delivery(id);
    let atts = await attemptsOf(id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1 });
    expect(atts).toHaveLength(1);
    expect(atts[0]).toMatchObject({ attempt: 1, status_code: null, url: rx.url });
    expect(atts[0]!.error).toMatch(/ECONNREFUSED/);
    expectStep(ms(d.next_attempt_at) - ms(atts[0]!.created_at), 1);
    expect(ms((await jobOf(id)).run_at)).toBe(ms(d.next_attempt_at));

    // Second attempt (5 s later), still down: the next one follows 5 min later.
    t.clock.set(d.next_attempt_at!);
    await t.deps.jobs.drain();
    d = await delivery(id);
    atts = await attemptsOf(id);
    expect(atts.map((a) => a.attempt)).toEqual([1, 2]);
    expectStep(ms(d.next_attempt_at) - ms(atts[1]!.created_at), 2);

    // Back up: nothing is sent before the next attempt is due, then it arrives once.
    await rx.setMode('ok');
    t.clock.set(new Date(ms(d.next_attempt_at) - 1));
    await t.deps.jobs.drain();
    expect(rx.events).toHaveLength(0);
    t.clock.advance(1);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([id]);
    expect(rx.events[0]!.headers['webhook-id']).toBe(id);
    expect(rx.events[0]!.timestamp).toBe(Math.floor(t.clock.now().getTime() / 1000)); // signed afresh per attempt

    d = await delivery(id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, next_attempt_at: null });
    atts = await attemptsOf(id);
    expect(atts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, null],
      [2, null],
      [3, 204],
    ]);
  });

  it('429 with Retry-After is honoured (not retried before it), a 503 Retry-After is not (only 429/502/504)', async () => {
    const c = await setup();
    await rx.setMode({ status: 429, retryAfter: 120 });
    const { id } = await emit(c);
    await t.deps.jobs.drain();
    let d = await delivery(id);
    const [first] = await attemptsOf(id);
    expect(first).toMatchObject({ attempt: 1, status_code: 429 });
    expect(first!.error).toMatch(/^HTTP 429/);
    expect(ms(d.next_attempt_at) - ms(first!.created_at)).toBe(120_000);

    await rx.setMode('ok');
    t.clock.advance(60_000); // past the 5 s step, before Retry-After
    await t.deps.jobs.drain();
    expect(rx.events).toHaveLength(0);
    t.clock.advance(60_000);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([id]);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });

    // 503 is a failure like any other: the schedule, not its Retry-After.
    const other = await emit(c);
    await rx.setMode({ status: 503, retryAfter: 3600 });
    await t.deps.jobs.drain();
    d = await delivery(other.id);
    const [a503] = await attemptsOf(other.id);
    expect(a503!.status_code).toBe(503);
    expectStep(ms(d.next_attempt_at) - ms(a503!.created_at), 1);

    // 502 with an HTTP-date Retry-After.
    const retryAt = new Date(ms(d.next_attempt_at) + 600_000);
    await rx.setMode({ status: 502, retryAfter: retryAt.toUTCString() });
    t.clock.set(d.next_attempt_at!);
    await t.deps.jobs.drain();
    d = await delivery(other.id);
    expect(ms(d.next_attempt_at)).toBe(Math.floor(ms(retryAt) / 1000) * 1000);
    await rx.setMode('ok');
    t.clock.set(d.next_attempt_at!);
    await t.deps.jobs.drain();
    expect(await delivery(other.id)).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('only 2xx is success: a redirect is not followed and counts as a failed attempt', async () => {
    const c = await setup();
    await rx.setMode({ status: 302 });
    const { id } = await emit(c);
    await t.deps.jobs.drain();
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await attemptsOf(id))[0]).toMatchObject({ status_code: 302 });
    await rx.setMode('ok');
    t.clock.advance(6_000);
    await t.deps.jobs.drain();
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('after the whole schedule (10 attempts: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h) the delivery is failed and kept; a newer event of the subscription then goes on', async () => {
    const c = await setup();
    await rx.setMode({ status: 500 });
    const { id } = await emit(c, 'subscription.activated');
    const next = await emit(c, 'provisioning.completed');
    const emittedAt = t.clock.now();

    for (let attempt = 1; attempt <= 10; attempt++) {
      await t.deps.jobs.drain();
      const d = await delivery(id);
      const atts = await attemptsOf(id);
      expect(atts).toHaveLength(attempt);
      expect(atts[attempt - 1]).toMatchObject({ attempt, status_code: 500 });
      if (attempt < 10) {
        expect(d).toMatchObject({ status: 'pending', attempts: attempt });
        expectStep(ms(d.next_attempt_at) - ms(atts[attempt - 1]!.created_at), attempt);
        // The newer event is held back the whole time, never attempted.
        expect(await attemptsOf(next.id)).toHaveLength(0);
        expect((await delivery(next.id)).blocked_by).toBe(id);
        // Not a millisecond early.
        t.clock.set(new Date(ms(d.next_attempt_at) - 1));
        await t.deps.jobs.drain();
        expect(await attemptsOf(id)).toHaveLength(attempt);
        t.clock.advance(1);
      }
    }
    const elapsed = t.clock.now().getTime() - emittedAt.getTime();
    const total = WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(elapsed).toBeGreaterThanOrEqual(total);

    const d = await delivery(id);
    expect(d).toMatchObject({ status: 'failed', attempts: 10, next_attempt_at: null, delivered_at: null });
    expect(d.payload).toMatchObject({ id, type: 'subscription.activated' }); // kept
    const job = await jobOf(id);
    expect(job.status).toBe('failed');
    expect(job.last_error).toMatch(/failed after 10 attempts: HTTP 500/);
    // Every request carried the same webhook-id.
    expect(new Set(rx.requests.filter((r) => r.webhookId === id).map((r) => r.webhookId)).size).toBe(1);
    expect(rx.requests.filter((r) => r.webhookId === id)).toHaveLength(10);
    expect(rx.events).toHaveLength(0);

    // The failed one no longer holds the next one back: it was attempted in the same drain.
    expect(await attemptsOf(next.id)).toHaveLength(1);
    await rx.setMode('ok');
    t.clock.advance(6_000);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([next.id]);
    t.clock.advance(3 * 86_400_000);
    await t.deps.jobs.drain();
    expect(await attemptsOf(id)).toHaveLength(10);
  });

  it('a request that exceeds WEBHOOK_TIMEOUT_MS is a failed attempt recorded as a timeout', async () => {
    const t2 = await buildTestApp({ env: { WEBHOOK_TIMEOUT_MS: '300' } });
    const rx2 = await startWebhookReceiver({ clock: t2.clock });
    try {
      const p = await createProvider(t2.db, { webhookUrl: rx2.url });
      rx2.trust(p.signingSecret);
      const pv = await createPlanVersion(t2.db, p.id);
      const sub = await createSubscriber(t2.db, p.id);
      const s = await createSubscription(t2.db, { providerId: p.id, subscriberId: sub.id, planVersionId: pv.id });
      await rx2.setMode('hang');
      const { id } = await t2.db
        .transaction()
        .execute((trx) =>
          t2.deps.webhooks.emit(trx, { providerId: p.id, type: 'subscription.activated', subscriptionId: s.id, subscriberId: sub.id }),
        );
      await t2.deps.jobs.drain();
      const [a] = await t2.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).execute();
      expect(a).toMatchObject({ attempt: 1, status_code: null, error: 'timeout after 300 ms' });
      expect(a!.duration_ms).toBeGreaterThanOrEqual(290);
      expect(
        await t2.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow(),
      ).toEqual({ status: 'pending', attempts: 1 });
    } finally {
      await rx2.close();
      await t2.close();
    }
  });

  it('a signature the receiver rejects (401) is a failed attempt like any other', async () => {
    const c = await setup();
    // Rotate the secret on our side only: the receiver still trusts the old one.
    await t.db
      .updateTable('providers')
      .set({ webhook_signing_secret: `whsec_${Buffer.from('rotated-secret-rotated-secret!!').toString('base64')}` })
      .where('id', '=', c.providerId)
      .execute();
    const { id } = await emit(c);
    await t.deps.jobs.drain();
    expect((await attemptsOf(id))[0]).toMatchObject({ status_code: 401 });
    expect(rx.requests.at(-1)).toMatchObject({ webhookId: id, rejected: 'no matching signature' });
    await t.db.updateTable('providers').set({ webhook_signing_secret: c.signingSecret }).where('id', '=', c.providerId).execute();
    t.clock.advance(6_000);
    await t.deps.jobs.drain();
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});

describe('webhook delivery: order, outbox waiting, crashes', () => {
  it('events of one subscription arrive in emission order even when later jobs come up first; other subscriptions are not held back', async () => {
    const c = await setup();
    const other = await anotherSubscription(c);
    const ids: string[] = [];
    for (const type of [
      'subscription.pending_install',
      'subscription.activated',
      'provisioning.completed',
      'subscription.plan_changed',
      'subscription.cancelled',
    ] as const) {
      ids.push((await emit(c, type)).id);
    }
    const otherId = (await emit(other)).id;
    // Make the newest job the first due, the oldest the last.
    for (let i = 0; i < ids.length; i++) {
      await t.db
        .updateTable('jobs')
        .set({ run_at: new Date(t.clock.now().getTime() - 1000 * (i + 1)) })
        .where('dedupe_key', '=', deliveryJobKey(ids[i]!))
        .execute();
    }
    await t.deps.jobs.drain();
    const mine = rx.events.filter((e) => e.data.subscription_id === c.subscriptionId).map((e) => e.id);
    expect(mine).toEqual(ids);
    expect(rx.ids()).toContain(otherId);
    for (const id of ids) {
      expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1, blocked_by: null });
      expect(await attemptsOf(id)).toHaveLength(1);
    }
  });

  it('while an older delivery retries, newer ones of the subscription wait (unattempted) and follow it in order once it is delivered', async () => {
    const c = await setup();
    const other = await anotherSubscription(c);
    await rx.setMode('down');
    const a = await emit(c, 'subscription.activated');
    const b = await emit(c, 'provisioning.completed');
    const cc = await emit(c, 'subscription.plan_changed');
    const d = await emit(other, 'subscription.activated');
    await t.deps.jobs.drain();

    expect(await delivery(a.id)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await delivery(b.id)).toMatchObject({ status: 'pending', attempts: 0, blocked_by: a.id });
    expect(await delivery(cc.id)).toMatchObject({ status: 'pending', attempts: 0, blocked_by: b.id });
    expect(await delivery(d.id)).toMatchObject({ status: 'pending', attempts: 1, blocked_by: null });
    // Waiting is not an attempt: the jobs' attempt counters stay at 0.
    expect(await jobOf(b.id)).toMatchObject({ status: 'queued', attempts: 0 });

    await rx.setMode('ok');
    t.clock.advance(6_000);
    await t.deps.jobs.drain();
    expect(rx.events.filter((e) => e.data.subscription_id === c.subscriptionId).map((e) => e.id)).toEqual([a.id, b.id, cc.id]);
    expect(rx.ids()).toContain(d.id);
    expect(await attemptsOf(b.id)).toHaveLength(1);
    expect(await attemptsOf(cc.id)).toHaveLength(1);
  });

  it('order holds with background workers of two queues draining concurrently', async () => {
    const c = await setup();
    const subs = [c, await anotherSubscription(c), await anotherSubscription(c)];
    const emitted = new Map<string, string[]>();
    for (let round = 0; round < 6; round++) {
      for (const s of subs) {
        const { id } = await emit(s, round % 2 ? 'provisioning.completed' : 'subscription.activated');
        emitted.set(s.subscriptionId, [...(emitted.get(s.subscriptionId) ?? []), id]);
      }
    }
    const second = createJobQueue({
      db: t.db,
      clock: t.clock,
      log: t.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 4, JOBS_LEASE_SECONDS: 60 },
    });
    registerWebhookJobs({ ...t.deps, jobs: second });
    const first = createJobQueue({
      db: t.db,
      clock: t.clock,
      log: t.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 4, JOBS_LEASE_SECONDS: 60 },
    });
    registerWebhookJobs({ ...t.deps, jobs: first });
    first.start();
    second.start();
    try {
      await rx.waitFor(18, 15_000);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
    for (const s of subs) {
      expect(rx.events.filter((e) => e.data.subscription_id === s.subscriptionId).map((e) => e.id)).toEqual(emitted.get(s.subscriptionId));
    }
    expect(rx.events).toHaveLength(18);
    // No job hit an error on the way (a deadlock or a lost race would show as last_error or a retry).
    const jobs = await t.db
      .selectFrom('jobs')
      .select(['status', 'attempts', 'last_error'])
      .where('kind', '=', WEBHOOK_DELIVER_KIND)
      .where('provider_id', '=', c.providerId)
      .execute();
    expect(jobs).toHaveLength(18);
    expect(jobs.every((j) => j.status === 'succeeded' && j.attempts === 1 && j.last_error === null)).toBe(true);
  });

  it('a provider without a webhook_url: deliveries wait in the outbox without using up the schedule, and go out once a URL is set', async () => {
    const c = await setup({ webhookUrl: null });
    const a = await emit(c, 'subscription.activated');
    const b = await emit(c, 'provisioning.completed');
    await t.deps.jobs.drain();
    const da = await delivery(a.id);
    expect(da).toMatchObject({ status: 'pending', attempts: 0 });
    expect(ms(da.next_attempt_at) - t.clock.now().getTime()).toBe(NO_URL_RECHECK_MS);
    expect(await attemptsOf(a.id)).toHaveLength(0);
    expect(await jobOf(a.id)).toMatchObject({ status: 'queued', attempts: 0 });

    // Days pass, the delivery keeps waiting (looked at again every 15 minutes), nothing is consumed.
    for (let i = 0; i < 6; i++) {
      t.clock.advance(12 * 3_600_000);
      expect(await t.deps.jobs.drain()).toBe(2);
    }
    for (const id of [a.id, b.id]) {
      expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await jobOf(id)).toMatchObject({ status: 'queued', attempts: 0 });
      expect(await attemptsOf(id)).toHaveLength(0);
    }

    // The provider configures its URL; releaseWaiting sends at once (else: at the next check).
    await t.db.updateTable('providers').set({ webhook_url: rx.url }).where('id', '=', c.providerId).execute();
    expect(await t.deps.webhooks.releaseWaiting(t.db, c.providerId)).toBe(1);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([a.id, b.id]);
    expect(await delivery(a.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await delivery(b.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    // The full schedule was still ahead: the job used 1 attempt.
    expect(await jobOf(a.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a delivery job whose process dies mid-delivery (after sending, before recording) is retried after the lease: the event arrives again with the same webhook-id (at-least-once)', async () => {
    const c = await setup();
    const { id } = await emit(c);
    // The dying process: claims the job, POSTs, then never gets to record anything.
    const dying = createJobQueue({
      db: t.db,
      clock: t.clock,
      log: t.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 1, JOBS_LEASE_SECONDS: 60 },
      heartbeatMs: 0,
    });
    let sent!: () => void;
    const posted = new Promise<void>((r) => (sent = r));
    dying.register(WEBHOOK_DELIVER_KIND, {
      run: async () => {
        const req = signWebhook(c.signingSecret, id, t.clock.now(), JSON.stringify((await delivery(id)).payload));
        await postWebhook(rx.url, req, { timeoutMs: 5000, now: t.clock.now() });
        sent();
        return new Promise(() => undefined); // dead
      },
    });
    void dying.drain();
    await posted;
    expect(rx.ids()).toEqual([id]);
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0 });

    // Within the lease nobody else touches it.
    expect(await t.deps.jobs.drain()).toBe(0);
    t.clock.advance(60_001);
    await t.deps.jobs.drain();
    expect(rx.ids()).toEqual([id, id]);
    expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await attemptsOf(id)).toHaveLength(1);
    expect(await jobOf(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('a delivery job that gives up for another reason (job attempts exhausted) leaves the delivery failed and lets the next one go', async () => {
    const c = await setup();
    const a = await emit(c);
    const b = await emit(c, 'provisioning.completed');
    // Simulate a crash loop: the job's own attempts are used up by dead workers.
    await t.db
      .updateTable('jobs')
      .set({ status: 'running', attempts: DELIVERY_JOB_MAX_ATTEMPTS, locked_by: 'dead', locked_until: t.clock.now() })
      .where('dedupe_key', '=', deliveryJobKey(a.id))
      .execute();
    t.clock.advance(1);
    await t.deps.jobs.drain();
    expect(await delivery(a.id)).toMatchObject({ status: 'failed', attempts: 0 });
    expect((await jobOf(a.id)).last_error).toMatch(/worker died during the final attempt/);
    expect(rx.ids()).toEqual([b.id]);
  });
});

// The operator's step that sets a provider's webhook endpoint (src/webhooks/endpoint.ts and
// `npm run provider:webhook`): URL, signing secret, and the deliveries that waited for a URL.
const configure = (
  providerId: string,
  change: Parameters<typeof configureWebhookEndpoint>[2],
  o: { production?: boolean; resolve?: (host: string) => Promise<string[]> } = {},
) =>
  configureWebhookEndpoint(
    { db: t.db, webhooks: t.deps.webhooks, production: o.production ?? false, resolve: o.resolve },
    providerId,
    change,
  );
const providerRow = (id: string) =>
  t.db.selectFrom('providers').select(['webhook_url', 'webhook_signing_secret']).where('id', '=', id).executeTakeFirstOrThrow();

async function waitingDelivery(providerId: string) {
  const pv = await createPlanVersion(t.db, providerId);
  const sub = await createSubscriber(t.db, providerId);
  const s = await createSubscription(t.db, { providerId, subscriberId: sub.id, planVersionId: pv.id });
  const { id } = await t.deps.webhooks.emit(t.db, {
    providerId,
    type: 'subscription.activated',
    subscriptionId: s.id,
    subscriberId: sub.id,
  });
  await t.deps.jobs.drain(); // no URL yet: the job defers itself for NO_URL_RECHECK_MS
  const job = await t.db
    .selectFrom('jobs')
    .select(['status', 'run_at'])
    .where('dedupe_key', '=', deliveryJobKey(id))
    .executeTakeFirstOrThrow();
  expect(job.status).toBe('queued');
  expect(job.run_at.getTime() - t.clock.now().getTime()).toBe(NO_URL_RECHECK_MS);
  return id;
}

describe('webhook delivery: an endpoint that stopped answering', () => {
  // Real time: attempts against a hanging receiver take WEBHOOK_TIMEOUT_MS each.
  let t2: TestApp;
  let hanging: WebhookReceiver;
  let healthy: WebhookReceiver;
  beforeAll(async () => {
    t2 = await buildTestApp({ env: { WEBHOOK_TIMEOUT_MS: '400', WEBHOOK_UNRESPONSIVE_CONCURRENCY: '1' } });
    hanging = await startWebhookReceiver({ clock: t2.clock });
    healthy = await startWebhookReceiver({ clock: t2.clock });
  });
  afterAll(async () => {
    await hanging.close();
    await healthy.close();
    await t2.close();
  });

  async function providerWith(rx: WebhookReceiver, subscriptions: number) {
    const p = await createProvider(t2.db, { webhookUrl: rx.url });
    rx.trust(p.signingSecret);
    const pv = await createPlanVersion(t2.db, p.id);
    const out: { providerId: string; subscriberId: string; subscriptionId: string }[] = [];
    for (let i = 0; i < subscriptions; i++) {
      const sub = await createSubscriber(t2.db, p.id);
      const s = await createSubscription(t2.db, { providerId: p.id, subscriberId: sub.id, planVersionId: pv.id });
      out.push({ providerId: p.id, subscriberId: sub.id, subscriptionId: s.id });
    }
    return out;
  }
  const emit2 = (c: { providerId: string; subscriberId: string; subscriptionId: string }) =>
    t2.db.transaction().execute((trx) =>
      t2.deps.webhooks.emit(trx, {
        providerId: c.providerId,
        type: 'subscription.activated',
        subscriptionId: c.subscriptionId,
        subscriberId: c.subscriberId,
      }),
    );
  const attempts2 = (id: string) => t2.db.selectFrom('webhook_attempts').select('attempt').where('delivery_id', '=', id).execute();
  async function until(cond: () => boolean) {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(cond()).toBe(true);
  }

  it('once it timed out, only WEBHOOK_UNRESPONSIVE_CONCURRENCY of its deliveries wait on it; the rest wait their turn without using an attempt, other providers are not held up', async () => {
    await hanging.setMode('hang');
    const a = await Promise.all((await providerWith(hanging, 3)).map(emit2));
    const [b] = await Promise.all((await providerWith(healthy, 1)).map(emit2));
    const delivery = createWebhookDelivery({ ...t2.deps, random: () => 0.5 });

    // Healthy until it first fails to answer: the first attempt waits the whole timeout.
    await expect(delivery.deliver(a[0]!.id)).rejects.toBeInstanceOf(DeliveryRetry);
    expect(
      (await t2.db.selectFrom('webhook_attempts').select('error').where('delivery_id', '=', a[0]!.id).executeTakeFirstOrThrow()).error,
    ).toBe('timeout after 400 ms');

    // Now unresponsive: one delivery may wait on it (the limit is 1), the next one is deferred at once.
    const waiting = delivery.deliver(a[1]!.id).then(
      () => 'settled',
      (e: unknown) => e,
    );
    await until(() => hanging.requests.length === 2);
    const deferred = await delivery.deliver(a[2]!.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(deferred).toBeInstanceOf(DeferJob);
    const runAt = (deferred as DeferJob).runAt.getTime();
    expect(runAt - t2.clock.now().getTime()).toBe(400); // WEBHOOK_TIMEOUT_MS x (0.5 + random)
    expect(await attempts2(a[2]!.id)).toEqual([]);
    expect(
      await t2.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'next_attempt_at'])
        .where('id', '=', a[2]!.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: 'pending', attempts: 0, next_attempt_at: new Date(runAt) });
    expect(hanging.requests).toHaveLength(2);

    // Another provider's delivery goes out while that one still waits.
    await expect(delivery.deliver(b!.id)).resolves.toMatchObject({ status: 'delivered', attempt: 1 });
    expect(healthy.ids()).toEqual([b!.id]);
    expect(await waiting).toBeInstanceOf(DeliveryRetry);

    // It answers again: the first answer lifts the limit.
    await hanging.setMode('ok');
    await expect(delivery.deliver(a[2]!.id)).resolves.toMatchObject({ status: 'delivered', attempt: 1 });
    await hanging.setMode('hang');
    const both = [delivery.deliver(a[0]!.id), delivery.deliver(a[1]!.id)].map((p) =>
      p.then(
        () => 'settled',
        (e: unknown) => e,
      ),
    );
    await until(() => hanging.requests.length === 5); // both POSTed at once, none deferred
    for (const r of await Promise.all(both)) expect(r).toBeInstanceOf(DeliveryRetry);
  });

  it('a refused connection counts as not answering; an HTTP error status is an answer: it limits nothing and lifts the limit', async () => {
    const rx = await startWebhookReceiver({ clock: t2.clock });
    try {
      const delivery = createWebhookDelivery({ ...t2.deps, random: () => 0.5 });
      const refused = await Promise.all((await providerWith(rx, 4)).map(emit2));
      await rx.setMode('down');
      await expect(delivery.deliver(refused[0]!.id)).rejects.toBeInstanceOf(DeliveryRetry);
      await rx.setMode('hang');
      const waiting = delivery.deliver(refused[1]!.id).then(
        () => 'settled',
        (e: unknown) => e,
      );
      await until(() => rx.requests.length === 1);
      await expect(delivery.deliver(refused[2]!.id)).rejects.toBeInstanceOf(DeferJob);
      // UNRESPONSIVE_FOR_MS after the last attempt it did not answer, the limit is gone.
      t2.clock.advance(UNRESPONSIVE_FOR_MS + 1);
      const late = delivery.deliver(refused[3]!.id).then(
        () => 'settled',
        (e: unknown) => e,
      );
      await until(() => rx.requests.length === 2);
      expect(await waiting).toBeInstanceOf(DeliveryRetry);
      expect(await late).toBeInstanceOf(DeliveryRetry);

      // The same endpoint answers 500: an answer, so the limit is lifted.
      rx.reset();
      const erroring = await Promise.all((await providerWith(rx, 3)).map(emit2));
      await rx.setMode({ status: 500 });
      await expect(delivery.deliver(erroring[0]!.id)).rejects.toBeInstanceOf(DeliveryRetry);
      await rx.setMode('hang');
      const both = [delivery.deliver(erroring[1]!.id), delivery.deliver(erroring[2]!.id)].map((p) =>
        p.then(
          () => 'settled',
          (e: unknown) => e,
        ),
      );
      await until(() => rx.requests.length === 3); // the 500, then both POSTed at once
      for (const r of await Promise.all(both)) expect(r).toBeInstanceOf(DeliveryRetry);
      expect(await attempts2(erroring[2]!.id)).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});

describe('delivery in production (NODE_ENV=production)', () => {
  it('never connects to an internal address: an address literal, a name that resolves to one, or plain http; the same URL outside production is delivered', async () => {
    const p = await createProvider(t.db, { webhookUrl: null });
    rx.trust(p.signingSecret);
    rx.reset();
    const req = (id: string) => signWebhook(p.signingSecret, id, t.clock.now(), '{}');
    const port = new URL(rx.url).port;
    const cases: [string, RegExp][] = [
      [rx.url, /must be https in production/],
      [`https://127.0.0.1:${port}/hook`, /internal address/],
      [`https://[::ffff:127.0.0.1]:${port}/hook`, /internal address/],
      // The name resolves to loopback when connecting: refused then (what DNS rebinding would need).
      [`https://localhost:${port}/hook`, /localhost resolves to an internal address/],
    ];
    for (const [url, message] of cases) {
      const r = await postWebhook(url, req('msg_guarded'), { timeoutMs: 2000, now: t.clock.now(), publicOnly: true });
      expect(r, url).toMatchObject({ ok: false, statusCode: null });
      expect(r.error, url).toMatch(message);
    }
    expect(rx.ids()).toEqual([]);
    const open = await postWebhook(rx.url, req('msg_open'), { timeoutMs: 2000, now: t.clock.now() });
    expect(open.ok).toBe(true);
    expect(rx.ids()).toEqual(['msg_open']);
  });
});

describe('configureWebhookEndpoint', () => {
  it('sets the URL, keeps the existing signing secret and sends the waiting deliveries at once, signed with it', async () => {
    const p = await createProvider(t.db, { webhookUrl: null });
    const id = await waitingDelivery(p.id);
    const r = await configure(p.id, { url: rx.url });
    expect(r).toEqual({ providerId: p.id, providerName: p.name, url: rx.url, newSecret: null, released: 1 });
    expect(await providerRow(p.id)).toEqual({ webhook_url: rx.url, webhook_signing_secret: p.signingSecret });
    rx.trust(p.signingSecret);
    await t.deps.jobs.drain(); // due now, not in 15 minutes
    // The receiver records only deliveries whose signature verifies with a trusted secret.
    expect(rx.ids()).toEqual([id]);
  });

  it('gives a provider without a signing secret a new one, and draws another on rotateSecret', async () => {
    const p = await createProvider(t.db, { webhookUrl: null });
    await t.db.updateTable('providers').set({ webhook_signing_secret: null }).where('id', '=', p.id).execute();
    const first = await configure(p.id, { url: rx.url });
    expect(first.newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(first.newSecret!.slice(6), 'base64')).toHaveLength(32);
    expect((await providerRow(p.id)).webhook_signing_secret).toBe(first.newSecret);
    const kept = await configure(p.id, { url: `${rx.url}?v=2` });
    expect(kept.newSecret).toBeNull();
    const rotated = await configure(p.id, { url: rx.url, rotateSecret: true });
    expect(rotated.newSecret).toMatch(/^whsec_/);
    expect(rotated.newSecret).not.toBe(first.newSecret);
    expect((await providerRow(p.id)).webhook_signing_secret).toBe(rotated.newSecret);
  });

  it('clear takes the URL away: nothing is released, deliveries wait again', async () => {
    const p = await createProvider(t.db, { webhookUrl: rx.url });
    const r = await configure(p.id, { url: null });
    expect(r).toMatchObject({ url: null, released: 0, newSecret: null });
    expect((await providerRow(p.id)).webhook_url).toBeNull();
  });

  it('refuses a malformed or unknown provider and an unusable URL, changing nothing', async () => {
    const p = await createProvider(t.db, { webhookUrl: 'https://before.example/hook' });
    const cases: [string, string | null, RegExp][] = [
      ['not-a-uuid', rx.url, /^provider: not a provider id/],
      [newId(), rx.url, /^provider: no provider/],
      [p.id, 'ftp://files.example/hook', /^url: must be http/],
      [p.id, 'not a url', /^url: not a URL/],
      [p.id, 'https://user:pw@hooks.example/x', /^url: must not carry credentials/],
    ];
    for (const [id, url, message] of cases) {
      const err = await configure(id, { url }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EndpointError);
      expect((err as Error).message).toMatch(message);
    }
    expect(await providerRow(p.id)).toEqual({ webhook_url: 'https://before.example/hook', webhook_signing_secret: p.signingSecret });
  });

  it('in production refuses non-https and hosts that are or resolve to private, loopback, link-local or unspecified addresses; outside production http only on loopback', async () => {
    const p = await createProvider(t.db, { webhookUrl: 'https://before.example/hook' });
    const dns: Record<string, string[]> = {
      'hooks.partner.example': ['203.0.113.10'],
      'internal.partner.example': ['203.0.113.11', '10.1.2.3'],
      'rebind.example': ['169.254.169.254'],
    };
    const resolve = async (host: string) => dns[host] ?? Promise.reject(new Error('ENOTFOUND'));
    const refused: [string, boolean, RegExp][] = [
      ['http://hooks.partner.example/x', true, /^url: must be https:\/\/ in production/],
      ['http://127.0.0.1:9000/x', true, /^url: must be https:\/\/ in production/],
      ['https://127.0.0.1/x', true, /^url: must not point at a private/],
      ['https://10.0.0.5/x', true, /private/],
      ['https://172.20.1.1/x', true, /private/],
      ['https://192.168.1.1/x', true, /private/],
      ['https://169.254.169.254/latest/meta-data', true, /private/],
      ['https://[::1]/x', true, /private/],
      ['https://[fd00::1]/x', true, /private/],
      ['https://[fe80::1]/x', true, /private/],
      ['https://[::ffff:10.0.0.1]/x', true, /private/],
      ['https://0.0.0.0/x', true, /private/],
      ['https://localhost/x', true, /loopback/],
      ['https://internal.partner.example/x', true, /internal.partner.example is 10.1.2.3/],
      ['https://rebind.example/x', true, /169.254.169.254/],
      ['https://nowhere.example/x', true, /does not resolve/],
      ['http://hooks.partner.example/x', false, /^url: must be https:\/\/ \(http:\/\/ only on loopback/],
      ['http://192.168.1.1/x', false, /only on loopback/],
    ];
    for (const [url, production, message] of refused) {
      const err = await configure(p.id, { url }, { production, resolve }).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(EndpointError);
      expect((err as Error).message, url).toMatch(message);
    }
    expect((await providerRow(p.id)).webhook_url).toBe('https://before.example/hook');
    for (const [url, production] of [
      ['https://hooks.partner.example/x', true],
      ['http://127.0.0.1:9000/x', false],
      ['http://localhost:9000/x', false],
      ['http://[::1]:9000/x', false],
      ['https://10.0.0.5/x', false],
    ] as const) {
      const r = await configure(p.id, { url }, { production, resolve });
      expect(r.url).toBe(url);
      expect((await providerRow(p.id)).webhook_url).toBe(url);
    }
  });
});

// The CLI reaches the database by DATABASE_URL: the in-memory embedded test database has none.
describe.skipIf(!usingPostgres())('npm run provider:webhook (real Postgres)', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/provider-webhook.ts', ...args], {
      env: { ...process.env, DATABASE_URL: t.testDb.url!, NODE_ENV: 'test' },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('prints the provider, the URL, the new secret once and how many deliveries it released', async () => {
    // The CLI runs on the system clock: the delivery must wait relative to that one.
    t.clock.set(new Date());
    const p = await createProvider(t.db, { webhookUrl: null });
    await waitingDelivery(p.id);
    const r = await run(['--provider', p.id, '--url', rx.url, '--rotate-secret']);
    expect(r.code).toBe(0);
    const secret = (await providerRow(p.id)).webhook_signing_secret!;
    expect(r.stdout.trim().split('\n')).toEqual([
      `provider ${p.name} (${p.id})`,
      `webhook URL: ${rx.url}`,
      `new signing secret (shown once; the receiver verifies signatures with it): ${secret}`,
      'released 1 delivery(ies) that waited for a URL',
    ]);
  });

  it('answers bad usage with the usage line (exit 2) and a refused change with one line (exit 1)', async () => {
    const usage = await run(['--url', rx.url]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: npm run provider:webhook/);
    const both = await run(['--provider', newId(), '--url', rx.url, '--clear']);
    expect(both.code).toBe(2);
    const unknown = await run(['--provider', newId(), '--url', rx.url]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toMatch(/^provider: no provider [0-9a-f-]{36}$/);
  });
});
