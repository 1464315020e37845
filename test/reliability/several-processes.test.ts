import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Redis } from 'ioredis';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { createJobQueue } from '../../src/jobs/queue.js';
import { systemClock } from '../../src/lib/clock.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { rateLimitStores } from '../helpers/redis.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';

// Several processes need a database that admits several connections: real PostgreSQL only
// (the embedded database admits one process by design).
describe.skipIf(!usingPostgres())('two server processes on one database behave as one', () => {
  let testDb: TestDb;
  const servers: ServerProcess[] = [];
  const outboxes = [mkdtempSync(path.join(tmpdir(), 'outbox-a-')), mkdtempSync(path.join(tmpdir(), 'outbox-b-'))];

  beforeAll(async () => {
    testDb = await createTestDb();
    for (const dir of outboxes) {
      servers.push(
        await startServerProcess({
          DATABASE_URL: testDb.url!,
          MAIL_OUTBOX_DIR: dir,
          JOBS_ENABLED: 'true',
          JOBS_POLL_MS: '50',
          RATE_LIMIT_ENABLED: 'true',
          RATE_LIMIT_STORE: 'postgres',
          LOG_LEVEL: 'warn',
        }),
      );
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) expect(await s.stop()).toBe(0);
    await testDb.drop();
  });

  it('claims every job exactly once across both workers', async () => {
    const enqueuer = createJobQueue({
      db: testDb.handle.db,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      config: { JOBS_POLL_MS: 1000, JOBS_CONCURRENCY: 1, JOBS_LEASE_SECONDS: 60 },
    });
    const N = 120;
    await testDb.handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < N; i++) {
        await enqueuer.enqueue(trx, {
          kind: 'mail.send',
          payload: { to: `p${i}@example.test`, subject: `job ${i}`, text: 'hello', tag: 'multiprocess' },
        });
      }
    });
    for (let i = 0; i < 200; i++) {
      const left = await testDb.handle.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('status', '!=', 'succeeded')
        .executeTakeFirstOrThrow();
      if (Number(left.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const jobs = await testDb.handle.db.selectFrom('jobs').select(['status', 'attempts']).execute();
    expect(jobs).toHaveLength(N);
    expect(jobs.every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true);
    const files = outboxes.map((d) => readdirSync(d).filter((f) => f.endsWith('.eml')).length);
    expect(files[0]! + files[1]!).toBe(N); // each mail written once, by one of the two processes
    expect(files[0]).toBeGreaterThan(0);
    expect(files[1]).toBeGreaterThan(0);
  });

  it('shares one rate-limit budget (postgres store): spent through either process, then both answer 429', async () => {
    const limit = RATE_LIMITS['auth.login'];
    const codes = await loginsAcross(servers, limit + 2, 'sk_mproctst_' + 'x'.repeat(40));
    expect(codes.slice(0, limit).every((c) => c === 401)).toBe(true);
    expect(codes.slice(limit)).toEqual([429, 429]);
  });

  it('holds the once-per-day plan-change rule across processes: one change, one 409', async () => {
    const db = testDb.handle.db;
    const p = await createProvider(db);
    const basic = await createPlanVersion(db, p.id, { priceCents: 3000 });
    const fast = await createPlanVersion(db, p.id, { priceCents: 4000 });
    const faster = await createPlanVersion(db, p.id, { priceCents: 5000 });
    const cust = await createSubscriber(db, p.id);
    const sub = await createSubscription(db, { providerId: p.id, subscriberId: cust.id, planVersionId: basic.id, serviceBilled: false });
    const change = (server: ServerProcess, plan: string) =>
      fetch(`${server.url}/partner/subscriptions/${sub.id}/change-plan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': p.apiKey },
        body: JSON.stringify({ plan_version_id: plan }),
      });
    const results = await Promise.all([change(servers[0]!, fast.id), change(servers[1]!, faster.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const changes = await db.selectFrom('plan_changes').selectAll().where('subscription_id', '=', sub.id).execute();
    expect(changes).toHaveLength(1);
    const row = await db.selectFrom('subscriptions').select('plan_version_id').where('id', '=', sub.id).executeTakeFirstOrThrow();
    expect(row.plan_version_id).toBe(changes[0]!.to_plan_version_id);
  });

  it('holds an Idempotency-Key across processes: one subscription for parallel requests with one key', async () => {
    const db = testDb.handle.db;
    const p = await createProvider(db);
    const plan = await createPlanVersion(db, p.id);
    const building = await createBuilding(db, p.id, { lineType: 'first_line' });
    const loc = await createLocation(db, p.id, building.id, building.units[0]!.id);
    const body = JSON.stringify({
      plan_version_id: plan.id,
      location_hash: loc.locationHash,
      subscriber: { email: 'idem@example.test', first_name: 'I', last_name: 'D' },
    });
    const send = (server: ServerProcess) =>
      fetch(`${server.url}/provisioning/provider-initiated`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': p.apiKey, 'idempotency-key': 'same-key-1' },
        body,
      });
    const results = await Promise.all([send(servers[0]!), send(servers[1]!), send(servers[0]!), send(servers[1]!)]);
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409 || s === 200)).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    const subs = await db.selectFrom('subscriptions').select('id').where('provider_id', '=', p.id).execute();
    expect(subs).toHaveLength(1);
    // later: the stored answer is replayed by either process
    const replay = await send(servers[1]!);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { subscription_id: string }).subscription_id).toBe(subs[0]!.id);
  });
});

/** N login attempts alternating between the servers, from one client: the status codes in order. */
async function loginsAcross(servers: ServerProcess[], n: number, key: string): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${servers[i % servers.length]!.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      // Another email each time: 10 failures of one would lock it (429 {detail}) before the limit.
      body: JSON.stringify({ email: `nobody-${i}@example.test`, password: 'irrelevant' }),
    });
    codes.push(r.status);
  }
  return codes;
}

// The same two processes on the Redis store (the database still real PostgreSQL: the embedded one
// admits one process).
const redis = rateLimitStores().find((s) => s.store === 'redis')!;
describe.skipIf(!usingPostgres() || redis.skip)('two server processes share one rate-limit budget (redis store)', () => {
  let testDb: TestDb;
  const servers: ServerProcess[] = [];
  const store = redis.env();
  beforeAll(async () => {
    testDb = await createTestDb();
    const env = { DATABASE_URL: testDb.url!, JOBS_ENABLED: 'false', RATE_LIMIT_ENABLED: 'true', LOG_LEVEL: 'warn', ...store };
    for (let i = 0; i < 2; i++) servers.push(await startServerProcess(env));
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) expect(await s.stop()).toBe(0);
    await testDb.drop();
  });

  it('the login budget is spent through either process, then both answer 429', async () => {
    const limit = RATE_LIMITS['auth.login'];
    const codes = await loginsAcross(servers, limit + 2, 'sk_mproctst_' + 'x'.repeat(40));
    expect(codes.slice(0, limit).every((c) => c === 401)).toBe(true);
    expect(codes.slice(limit)).toEqual([429, 429]);
  });

  it('the bucket is one Redis key for both processes, holding every attempt', async () => {
    const client = new Redis(store.REDIS_URL!);
    try {
      const keys = await client.keys(`${store.REDIS_KEY_PREFIX}*`);
      expect(keys).toEqual([`${store.REDIS_KEY_PREFIX}auth.login|ip:127.0.0.1`]);
      expect(Number(await client.get(keys[0]!))).toBe(RATE_LIMITS['auth.login'] + 2);
    } finally {
      client.disconnect();
    }
  });
});
