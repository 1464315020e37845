import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue.js';
import { newId } from '../../src/lib/ids.js';
import { postWebhook, signWebhook } from '../../src/webhooks/sender.js';
import { WEBHOOK_DELIVER_KIND, deliveryJobKey, type WebhookEventType } from '../../src/webhooks/types.js';
import type { JobHandler } from '../../src/jobs/types.js';
import { registerWebhookJobs, WEBHOOK_DELIVERY_SLOTS } from '../../src/webhooks/webhook.jobs.js';
import { recordDelivered } from '../../src/webhooks/webhook.repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Throughput rules of the outbox (issue 6): deliveries share round trips without weakening the
// guarantees (order per subscription, one attempt row per attempt, followers woken at once), and
// the sender reuses connections.

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

async function setup() {
  const p = await createProvider(t.db, { webhookUrl: rx.url });
  rx.trust(p.signingSecret);
  const pv = await createPlanVersion(t.db, p.id);
  const subscription = async () => {
    const sub = await createSubscriber(t.db, p.id);
    const s = await createSubscription(t.db, { providerId: p.id, subscriberId: sub.id, planVersionId: pv.id });
    return { subscriptionId: s.id, subscriberId: sub.id };
  };
  return { providerId: p.id, signingSecret: p.signingSecret, subscription };
}

const emit = (providerId: string, s: { subscriptionId: string; subscriberId: string }, type: WebhookEventType = 'subscription.activated') =>
  t.db
    .transaction()
    .execute((trx) => t.deps.webhooks.emit(trx, { providerId, type, subscriptionId: s.subscriptionId, subscriberId: s.subscriberId }));
const delivery = (id: string) => t.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const attemptsOf = (id: string) =>
  t.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
const jobOf = (id: string) => t.db.selectFrom('jobs').selectAll().where('dedupe_key', '=', deliveryJobKey(id)).executeTakeFirstOrThrow();
const success = (deliveryId: string) => ({
  attemptId: newId(),
  deliveryId,
  url: rx.url,
  statusCode: 204,
  durationMs: 3,
  at: t.clock.now(),
});

describe('webhook delivery in batches', () => {
  it('60 deliveries of 12 subscriptions drained by the background worker: each arrives once, in order per subscription, with exactly one attempt row', async () => {
    const c = await setup();
    const subs = await Promise.all(Array.from({ length: 12 }, () => c.subscription()));
    const emitted = new Map<string, string[]>();
    for (let round = 0; round < 5; round++) {
      for (const s of subs) {
        const { id } = await emit(c.providerId, s, round % 2 ? 'provisioning.completed' : 'subscription.activated');
        emitted.set(s.subscriptionId, [...(emitted.get(s.subscriptionId) ?? []), id]);
      }
    }
    const q = createJobQueue({
      db: t.db,
      clock: t.clock,
      log: t.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 4, JOBS_LEASE_SECONDS: 60 },
    });
    registerWebhookJobs({ ...t.deps, jobs: q });
    q.start();
    try {
      await rx.waitFor(60, 20_000);
    } finally {
      await q.stop();
    }
    expect(rx.events).toHaveLength(60);
    for (const s of subs) {
      expect(rx.events.filter((e) => e.data.subscription_id === s.subscriptionId).map((e) => e.id)).toEqual(emitted.get(s.subscriptionId));
    }
    for (const ids of emitted.values()) {
      for (const id of ids) {
        expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1, blocked_by: null, next_attempt_at: null });
        const atts = await attemptsOf(id);
        expect(atts).toHaveLength(1);
        expect(atts[0]).toMatchObject({ attempt: 1, status_code: 204, error: null, url: rx.url });
        expect(await jobOf(id)).toMatchObject({ status: 'succeeded', attempts: 1, last_error: null });
      }
    }
  });

  it('recording a batch of successes wakes the deliveries that waited for them in the same call: a queued follower is due now, a running one is marked', async () => {
    const c = await setup();
    const s1 = await c.subscription();
    const s2 = await c.subscription();
    const a1 = await emit(c.providerId, s1);
    const b1 = await emit(c.providerId, s1, 'provisioning.completed');
    const a2 = await emit(c.providerId, s2);
    const b2 = await emit(c.providerId, s2, 'provisioning.completed');
    const later = new Date(t.clock.now().getTime() + 3_600_000);
    // b1 waits for a1 (its job queued until the fallback re-check); b2 waits for a2 and its job is running right now.
    await t.db.updateTable('webhook_deliveries').set({ blocked_by: a1.id, next_attempt_at: later }).where('id', '=', b1.id).execute();
    await t.db.updateTable('jobs').set({ run_at: later }).where('dedupe_key', '=', deliveryJobKey(b1.id)).execute();
    await t.db.updateTable('webhook_deliveries').set({ blocked_by: a2.id }).where('id', '=', b2.id).execute();
    await t.db
      .updateTable('jobs')
      .set({ status: 'running', locked_by: 'w', locked_until: later })
      .where('dedupe_key', '=', deliveryJobKey(b2.id))
      .execute();

    const rows = await recordDelivered(t.db, [success(a1.id), success(a2.id)], t.clock.now(), deliveryJobKey(''));
    expect(rows.map((r) => [r.delivery_id, r.prev_status, r.attempt]).sort()).toEqual(
      [
        [a1.id, 'pending', 1],
        [a2.id, 'pending', 1],
      ].sort(),
    );
    for (const id of [a1.id, a2.id]) {
      expect(await delivery(id)).toMatchObject({ status: 'delivered', attempts: 1, blocked_by: null });
      expect((await delivery(id)).delivered_at).toEqual(t.clock.now());
      expect(await attemptsOf(id)).toMatchObject([{ attempt: 1, status_code: 204, error: null, duration_ms: 3 }]);
    }
    expect(await delivery(b1.id)).toMatchObject({ status: 'pending', attempts: 0, blocked_by: null });
    expect(await jobOf(b1.id)).toMatchObject({ status: 'queued', run_at: t.clock.now(), wake_requested: false });
    expect(await delivery(b2.id)).toMatchObject({ status: 'pending', blocked_by: null });
    expect(await jobOf(b2.id)).toMatchObject({ status: 'running', wake_requested: true });
  });

  it('a success recorded for a delivery another worker already settled counts the attempt and keeps that outcome (no wake-up, no second delivered_at)', async () => {
    const c = await setup();
    const s = await c.subscription();
    const a = await emit(c.providerId, s);
    const b = await emit(c.providerId, s, 'provisioning.completed');
    const settledAt = new Date(t.clock.now().getTime() - 1000);
    await t.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 10, next_attempt_at: null })
      .where('id', '=', a.id)
      .execute();
    await t.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered', attempts: 1, delivered_at: settledAt })
      .where('id', '=', b.id)
      .execute();

    const rows = await recordDelivered(
      t.db,
      [success(a.id), success(b.id), success('msg_doesnotexist0000000000000')],
      t.clock.now(),
      deliveryJobKey(''),
    );
    expect(rows.map((r) => [r.delivery_id, r.prev_status, r.attempt]).sort()).toEqual(
      [
        [a.id, 'failed', 11],
        [b.id, 'delivered', 2],
      ].sort(),
    );
    expect(await delivery(a.id)).toMatchObject({ status: 'failed', attempts: 11, delivered_at: null });
    expect(await delivery(b.id)).toMatchObject({ status: 'delivered', attempts: 2, delivered_at: settledAt });
    expect(await attemptsOf(a.id)).toMatchObject([{ attempt: 11, status_code: 204 }]);
  });
});

describe('webhook sender: signing', () => {
  it('the node:crypto signature is byte for byte the standardwebhooks package\'s (v1, HMAC-SHA256 over "<id>.<ts>.<body>")', () => {
    const secrets = [
      `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
      `whsec_${Buffer.from(Array.from({ length: 24 }, (_, i) => i * 7)).toString('base64')}`,
      Buffer.from('no prefix, raw base64 secret!!').toString('base64'),
    ];
    const bodies = [
      '{}',
      JSON.stringify({ id: 'msg_1', data: { name: 'Jörg Müller — 東京', emoji: '📡', quote: '"\\' } }),
      'x'.repeat(5000),
    ];
    for (const secret of secrets) {
      for (const body of bodies) {
        for (const at of [new Date('2026-11-16T10:00:00.000Z'), new Date('2026-11-16T10:00:00.999Z'), new Date(0)]) {
          const ours = signWebhook(secret, 'msg_abc', at, body);
          expect(ours.headers['webhook-signature']).toBe(new Webhook(secret).sign('msg_abc', at, body));
          expect(ours.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
        }
      }
    }
  });

  it('an unusable signing secret throws (the attempt then fails with "cannot sign"), also after a good one was used', () => {
    const good = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    signWebhook(good, 'msg_1', new Date(), '{}');
    expect(() => signWebhook('', 'msg_1', new Date(), '{}')).toThrow();
    expect(() => signWebhook('whsec_not base64!!', 'msg_1', new Date(), '{}')).toThrow();
  });
});

describe('webhook sender: connections', () => {
  let server: Server;
  let url = '';
  let connections = 0;
  let answer: { status: number; body: string } = { status: 204, body: '' };

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body));
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const post = (id: string) =>
    postWebhook(url, signWebhook(secret, id, t.clock.now(), JSON.stringify({ id })), { timeoutMs: 5000, now: t.clock.now() });

  it('POSTs to one receiver reuse a kept-alive connection instead of opening one per request', async () => {
    answer = { status: 204, body: '' };
    connections = 0;
    for (let i = 0; i < 5; i++) expect(await post(`msg_${i}`)).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(connections).toBe(1);
    // A 2xx with a body is read to its end, so the connection stays usable.
    answer = { status: 200, body: 'x'.repeat(10_000) };
    expect(await post('msg_body')).toMatchObject({ ok: true, statusCode: 200 });
    answer = { status: 204, body: '' };
    expect(await post('msg_after')).toMatchObject({ ok: true });
    expect(connections).toBe(1);
  });

  it('a failure answer is recorded with the first 200 characters of its body, whitespace collapsed; a long one is not read to its end', async () => {
    answer = { status: 500, body: `boom\n\n  ${'y'.repeat(100_000)}` };
    const r = await post('msg_500');
    expect(r).toMatchObject({ ok: false, statusCode: 500, retryAfterMs: null });
    expect(r.error).toBe(`HTTP 500: boom ${'y'.repeat(192)}`);
  });

  it('an unusable URL is a failed attempt, not a crash', async () => {
    const r = await postWebhook('ftp://example.test/hook', signWebhook(secret, 'msg_x', t.clock.now(), '{}'), {
      timeoutMs: 1000,
      now: t.clock.now(),
    });
    expect(r).toMatchObject({ ok: false, statusCode: null });
    expect(r.error).toMatch(/unsupported webhook URL scheme/);
    const bad = await postWebhook('not a url', signWebhook(secret, 'msg_x', t.clock.now(), '{}'), { timeoutMs: 1000, now: t.clock.now() });
    expect(bad.error).toMatch(/invalid webhook URL/);
  });
});

it('webhook delivery runs in a lane of its own (WEBHOOK_DELIVERY_SLOTS), not in the JOBS_CONCURRENCY slots other kinds share', () => {
  const registered = new Map<string, JobHandler>();
  registerWebhookJobs({ ...t.deps, jobs: { ...t.deps.jobs, register: (kind: string, h: JobHandler) => void registered.set(kind, h) } });
  expect(registered.get(WEBHOOK_DELIVER_KIND)?.concurrency).toBe(WEBHOOK_DELIVERY_SLOTS);
  expect(WEBHOOK_DELIVERY_SLOTS).toBeGreaterThan(t.config.JOBS_CONCURRENCY);
});
