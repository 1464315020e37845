import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { registerHealth } from '../../src/ops/health.js';
import type { OpsRepository } from '../../src/ops/ops.repository.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { sql } from 'kysely';
import { productionEnv } from '../helpers/production.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDb } from '../helpers/db.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { fixedClock } from '../../src/lib/clock.js';
import { randomBytes } from 'node:crypto';

// GET /healthz, /readyz and /metrics: what load balancers, orchestrators and Prometheus call.

/** The value of one series in a Prometheus text exposition (0 when absent). */
function series(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

let t: TestApp;
let rx: WebhookReceiver;
const scrape = async () => {
  const r = await t.app.inject({ method: 'GET', url: '/metrics' });
  expect(r.statusCode).toBe(200);
  expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return r.body;
};

beforeAll(async () => {
  t = await buildTestApp();
  rx = await startWebhookReceiver({ clock: t.clock });
});
afterAll(async () => {
  await rx.close();
  await t.close();
});

describe('GET /healthz and /readyz', () => {
  it('healthz answers 200 while the process is up', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ok' });
  });

  it('readyz: ready with the database answering and every migration applied; a web-only process (JOBS_ENABLED=false) has no worker to check', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', jobs: 'disabled' } });
  });

  it('readyz: 503 naming the migrations when one is not applied', async () => {
    const [name] = (await sql<{ name: string }>`SELECT name FROM schema_migrations ORDER BY name DESC LIMIT 1`.execute(t.db)).rows.map(
      (r) => r.name,
    );
    await sql`DELETE FROM schema_migrations WHERE name = ${name}`.execute(t.db);
    try {
      const r = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        status: 'unavailable',
        failing: ['migrations'],
        checks: { database: 'ok', migrations: '1 pending', jobs: 'disabled' },
      });
    } finally {
      await sql`INSERT INTO schema_migrations (name) VALUES (${name})`.execute(t.db);
    }
  });

  it('readyz: 503 naming the migrations when a function file changed since it was applied', async () => {
    const [row] = (
      await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM schema_functions ORDER BY name LIMIT 1`.execute(t.db)
    ).rows;
    await sql`UPDATE schema_functions SET checksum = 'stale' WHERE name = ${row!.name}`.execute(t.db);
    try {
      const r = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ failing: ['migrations'], checks: { migrations: '1 pending' } });
    } finally {
      await sql`UPDATE schema_functions SET checksum = ${row!.checksum} WHERE name = ${row!.name}`.execute(t.db);
    }
  });

  it('readyz: 503 naming the job worker when it is enabled but stopped', async () => {
    const w = await buildTestApp({ env: { JOBS_ENABLED: 'true', JOBS_POLL_MS: '60000' } });
    try {
      expect((await w.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
        status: 'ready',
        checks: { database: 'ok', migrations: 'ok', jobs: 'ok' },
      });
      await w.deps.jobs.stop();
      const r = await w.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toEqual({
        status: 'unavailable',
        failing: ['jobs'],
        checks: { database: 'ok', migrations: 'ok', jobs: 'not running' },
      });
    } finally {
      await w.close();
    }
  });

  it('readyz: 503 naming the database when it does not answer', async () => {
    const down = () => Promise.reject(new Error('connect ECONNREFUSED'));
    const app = Fastify();
    registerHealth(app, {
      config: { JOBS_ENABLED: true },
      jobs: { isRunning: () => true },
      repo: { ping: down, appliedSchema: down } as unknown as OpsRepository,
    });
    const r = await app.inject({ method: 'GET', url: '/readyz' });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toEqual({
      status: 'unavailable',
      failing: ['database'],
      checks: { database: 'unreachable', migrations: 'unknown', jobs: 'ok' },
    });
    await app.close();
  });

  it('none of the three is in either OpenAPI document', async () => {
    for (const url of ['/openapi.json', '/agent/openapi.json']) {
      const paths = Object.keys((await t.app.inject({ method: 'GET', url })).json().paths);
      expect(paths.filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
    }
  });
});

describe('GET /metrics', () => {
  it("a request moves its route pattern's duration histogram, by status class", async () => {
    const labels = { method: 'GET', route: '/openapi.json', status_class: '2xx' };
    const before = series(await scrape(), 'netsvc_http_request_duration_seconds_count', labels);
    expect((await t.app.inject({ method: 'GET', url: '/openapi.json' })).statusCode).toBe(200);
    expect(series(await scrape(), 'netsvc_http_request_duration_seconds_count', labels)).toBe(before + 1);
    // The pattern, never the path: one series for every booking token.
    await t.app.inject({ method: 'GET', url: '/booking/some-token-that-does-not-exist' });
    const text = await scrape();
    expect(text).not.toContain('some-token-that-does-not-exist');
    expect(series(text, 'netsvc_http_request_duration_seconds_count', { route: '/booking/:token', status_class: '4xx' })).toBeGreaterThan(
      0,
    );
  });

  it('a job moves the queue depth and its outcome; a mail its send outcome', async () => {
    const before = await scrape();
    await t.deps.mailer.enqueue(t.db, { to: 'ops@example.test', subject: 'metrics', text: 'hello', tag: 'metrics-test' });
    const queued = await scrape();
    expect(series(queued, 'netsvc_jobs_queued', { kind: 'mail.send' })).toBe(
      series(before, 'netsvc_jobs_queued', { kind: 'mail.send' }) + 1,
    );
    expect(series(queued, 'netsvc_jobs_oldest_due_age_seconds', { kind: 'mail.send' })).toBeGreaterThanOrEqual(0);
    expect(await t.deps.jobs.drain()).toBeGreaterThan(0);
    const after = await scrape();
    expect(series(after, 'netsvc_jobs_queued', { kind: 'mail.send' })).toBe(0);
    expect(series(after, 'netsvc_job_outcomes_total', { kind: 'mail.send', outcome: 'succeeded' })).toBe(
      series(before, 'netsvc_job_outcomes_total', { kind: 'mail.send', outcome: 'succeeded' }) + 1,
    );
    expect(series(after, 'netsvc_mail_sends_total', { outcome: 'written' })).toBe(
      series(before, 'netsvc_mail_sends_total', { outcome: 'written' }) + 1,
    );
  });

  it('a webhook delivery moves the outbox backlog and the deliveries by outcome', async () => {
    const p = await createProvider(t.db, { webhookUrl: rx.url });
    rx.trust(p.signingSecret);
    const pv = await createPlanVersion(t.db, p.id);
    const sub = await createSubscriber(t.db, p.id);
    const s = await createSubscription(t.db, { providerId: p.id, subscriberId: sub.id, planVersionId: pv.id });
    const before = await scrape();
    await t.db
      .transaction()
      .execute((trx) =>
        t.deps.webhooks.emit(trx, { providerId: p.id, type: 'subscription.activated', subscriptionId: s.id, subscriberId: sub.id }),
      );
    const pending = await scrape();
    expect(series(pending, 'netsvc_webhook_outbox_pending')).toBe(series(before, 'netsvc_webhook_outbox_pending') + 1);
    await t.deps.jobs.drain();
    expect(rx.events).toHaveLength(1);
    const after = await scrape();
    expect(series(after, 'netsvc_webhook_outbox_pending')).toBe(series(before, 'netsvc_webhook_outbox_pending'));
    expect(series(after, 'netsvc_webhook_deliveries_total', { outcome: 'delivered' })).toBe(
      series(before, 'netsvc_webhook_deliveries_total', { outcome: 'delivered' }) + 1,
    );
  });

  it('reports the database pool (PostgreSQL) or its single connection (embedded), and the process', async () => {
    const text = await scrape();
    expect(series(text, 'netsvc_db_pool_max')).toBeGreaterThan(0);
    if (t.deps.dbHandle.kind === 'postgres') expect(text).toMatch(/^netsvc_db_pool_clients\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('counts 429 answers by route pattern', async () => {
    const saved = RATE_LIMITS['location.lookup'];
    (RATE_LIMITS as Record<string, number>)['location.lookup'] = 2;
    const r = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } }).finally(
      () => ((RATE_LIMITS as Record<string, number>)['location.lookup'] = saved),
    );
    try {
      const p = await createProvider(r.db);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (
            await r.app.inject({
              method: 'POST',
              url: '/location/lookup',
              payload: { location_hash: 'nope' },
              headers: { 'x-api-key': p.apiKey },
            })
          ).statusCode,
        );
      }
      const rejected = statuses.filter((s) => s === 429).length;
      expect(rejected).toBeGreaterThan(0);
      const text = (await r.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(series(text, 'netsvc_rate_limit_rejections_total', { route: '/location/lookup' })).toBe(rejected);
    } finally {
      await r.close();
    }
  });

  it('with METRICS_TOKEN set: 401 without the bearer token or with another, 200 with it', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const m = await buildTestApp({ env: { METRICS_TOKEN: token } });
    try {
      const get = (authorization?: string) =>
        m.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      for (const bad of [undefined, 'Bearer metrics-token-0123456789abcdeX', `Basic ${token}`, token, 'Bearer ']) {
        const r = await get(bad);
        expect(r.statusCode, String(bad)).toBe(401);
        expect(r.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(r.json()).toEqual({ detail: 'Not authenticated' });
      }
      expect((await get(`Bearer ${token}`)).statusCode).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('in production without METRICS_TOKEN it does not exist (404); with one it answers', async () => {
    for (const [env, status] of [
      [{}, 404],
      [{ METRICS_TOKEN: 'another-metrics-token-0123456789' }, 200],
    ] as const) {
      const p = await buildTestApp({ env: productionEnv(env) });
      try {
        const r = await p.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: 'Bearer another-metrics-token-0123456789' },
        });
        expect(r.statusCode).toBe(status);
        if (status === 404) expect(r.json()).toEqual({ detail: 'Not Found' });
      } finally {
        await p.close();
      }
    }
  });
});

describe('log lines carry their request id and their job', () => {
  it("every line logged while a request is handled, through the app's logger too, has its reqId once; a job's lines have job_id and kind", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const testDb = await createTestDb();
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      JOBS_ENABLED: 'false',
      SCHEDULER_ENABLED: 'false',
      RATE_LIMIT_ENABLED: 'false',
      JWT_SECRET: randomBytes(32).toString('base64url'),
      MAIL_OUTBOX_DIR: 'var/test/outbox',
    });
    const app = await buildApp(config, {
      dbHandle: testDb.handle,
      clock: fixedClock('2026-11-16T10:00:00.000Z'),
      migrate: false,
      logStream: stream,
    });
    // A service logs through deps.log (the app's logger), after the body was read and a database round trip.
    app.post('/log-probe', async (request) => {
      await sql`SELECT 1`.execute(app.deps.db);
      app.deps.log.info({ body_keys: Object.keys(request.body as object) }, 'service line');
      return { ok: true };
    });
    app.deps.jobs.register('test.log-probe', { run: async () => void app.deps.log.info('job line') });
    await app.ready();
    try {
      const r = await app.inject({ method: 'POST', url: '/log-probe', payload: { a: 1 }, headers: { 'x-request-id': 'req-log-probe-1' } });
      expect(r.statusCode).toBe(200);
      const mine = lines.filter((l) => l.includes('req-log-probe-1'));
      expect(mine.map((l) => JSON.parse(l).msg)).toEqual(['incoming request', 'service line', 'request completed']);
      for (const l of mine) expect(l.match(/"reqId"/g)).toHaveLength(1);
      // Outside any request: no reqId.
      app.deps.log.info('outside line');
      expect(JSON.parse(lines.find((l) => l.includes('outside line'))!).reqId).toBeUndefined();

      const job = await app.deps.jobs.enqueue(app.deps.db, { kind: 'test.log-probe' });
      await app.deps.jobs.drain();
      const jobLine = JSON.parse(lines.find((l) => l.includes('job line'))!);
      expect(jobLine).toMatchObject({ job_id: job.id, kind: 'test.log-probe' });
      expect(jobLine.reqId).toBeUndefined();
    } finally {
      await app.close();
      await testDb.drop();
    }
  });
});
