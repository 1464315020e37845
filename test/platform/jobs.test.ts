import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { createJobQueue, defaultBackoffMs, type QueueDeps } from '../../src/jobs/queue.js';
import { DeferJob, PermanentJobError, type JobQueue, type JobRecord } from '../../src/jobs/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';

let t: TestApp;
const queues: JobQueue[] = [];
const extraHandles: DbHandle[] = [];

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  for (const q of queues) await q.stop();
  for (const h of extraHandles) await h.close();
  await t.close();
});

const LEASE_SECONDS = 60;

/** A queue instance of its own, as another server process would have (same database, same clock). */
function makeQueue(o: { db?: QueueDeps['db']; concurrency?: number; leaseSeconds?: number; heartbeatMs?: number } = {}) {
  const q = createJobQueue({
    db: o.db ?? t.db,
    clock: t.clock,
    log: t.app.log,
    config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: o.concurrency ?? 4, JOBS_LEASE_SECONDS: o.leaseSeconds ?? LEASE_SECONDS },
    ...(o.heartbeatMs !== undefined ? { heartbeatMs: o.heartbeatMs } : {}),
  });
  queues.push(q);
  return q;
}

let kindSeq = 0;
const newKind = (name: string) => `test.${name}.${++kindSeq}`;

const jobRow = (id: string) => t.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** A promise with its resolve handle: a handler that "runs" until the test lets it go. */
function gate<T = void>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => (open = r));
  return { promise, open };
}

async function waitUntil(cond: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('job queue: run, retry, fail', () => {
  it('a job runs once and records success (status, attempts, result, finished_at, lease cleared)', async () => {
    const q = makeQueue();
    const kind = newKind('ok');
    const seen: JobRecord[] = [];
    q.register(kind, { run: async (job) => (seen.push(job), { echoed: job.payload.n }) });
    const { id } = await q.enqueue(t.db, { kind, payload: { n: 7 } });

    expect(await q.drain()).toBe(1);
    expect(await q.drain()).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id, kind, payload: { n: 7 }, attempts: 1, max_attempts: 8 });
    const row = await jobRow(id);
    expect(row).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: { echoed: 7 },
      last_error: null,
      locked_by: null,
      locked_until: null,
    });
    expect(row.finished_at).toEqual(t.clock.now());
  });

  it('a failing job retries later with its kind backoff and finally fails with last_error kept; onFailed runs once', async () => {
    const q = makeQueue();
    const kind = newKind('flaky');
    let runs = 0;
    const failed: { job: JobRecord; err: unknown }[] = [];
    q.register(kind, {
      run: async () => {
        runs++;
        throw new Error(`boom #${runs}`);
      },
      backoffMs: (attempt) => attempt * 10_000,
      onFailed: async (job, err) => void failed.push({ job, err }),
    });
    const { id } = await q.enqueue(t.db, { kind, maxAttempts: 3 });

    expect(await q.drain()).toBe(1);
    let row = await jobRow(id);
    expect(row).toMatchObject({ status: 'queued', attempts: 1, last_error: 'boom #1', locked_by: null });
    expect(row.run_at.getTime() - t.clock.now().getTime()).toBe(10_000);

    // Not due before the backoff has passed.
    t.clock.advance(9_999);
    expect(await q.drain()).toBe(0);
    t.clock.advance(1);
    expect(await q.drain()).toBe(1);
    row = await jobRow(id);
    expect(row).toMatchObject({ status: 'queued', attempts: 2, last_error: 'boom #2' });
    expect(row.run_at.getTime() - t.clock.now().getTime()).toBe(20_000);

    t.clock.advance(20_000);
    expect(await q.drain()).toBe(1);
    row = await jobRow(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom #3', locked_by: null, locked_until: null });
    expect(row.finished_at).toEqual(t.clock.now());
    expect(failed).toHaveLength(1);
    expect(failed[0]!.job.id).toBe(id);
    expect(String(failed[0]!.err)).toContain('boom #3');

    t.clock.advance(3_600_000);
    expect(await q.drain()).toBe(0);
    expect(runs).toBe(3);
  });

  it('without a kind backoff the default is exponential with jitter (±20 %), capped at 5 minutes', async () => {
    for (let i = 0; i < 50; i++) {
      expect(defaultBackoffMs(1)).toBeGreaterThanOrEqual(800);
      expect(defaultBackoffMs(1)).toBeLessThanOrEqual(1200);
      expect(defaultBackoffMs(4)).toBeGreaterThanOrEqual(6400);
      expect(defaultBackoffMs(4)).toBeLessThanOrEqual(9600);
      expect(defaultBackoffMs(30)).toBeLessThanOrEqual(360_000);
      expect(defaultBackoffMs(30)).toBeGreaterThanOrEqual(240_000);
    }
    const q = makeQueue();
    const kind = newKind('default-backoff');
    q.register(kind, { run: async () => Promise.reject(new Error('nope')) });
    const { id } = await q.enqueue(t.db, { kind });
    await q.drain();
    const delay = (await jobRow(id)).run_at.getTime() - t.clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(800);
    expect(delay).toBeLessThanOrEqual(1200);
  });

  it('a PermanentJobError fails the job at once (no retry) and calls onFailed', async () => {
    const q = makeQueue();
    const kind = newKind('permanent');
    let failedCalls = 0;
    q.register(kind, {
      run: async () => {
        throw new PermanentJobError('payload lacks to');
      },
      onFailed: async () => void failedCalls++,
    });
    const { id } = await q.enqueue(t.db, { kind, maxAttempts: 5 });
    expect(await q.drain()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'payload lacks to' });
    expect(failedCalls).toBe(1);
    t.clock.advance(86_400_000);
    expect(await q.drain()).toBe(0);
  });

  it('DeferJob reschedules without using up an attempt and keeps last_error', async () => {
    const q = makeQueue();
    const kind = newKind('defer');
    let runs = 0;
    q.register(kind, {
      run: async () => {
        runs++;
        if (runs === 1) throw new Error('first try failed');
        if (runs === 2) throw new DeferJob(new Date(t.clock.now().getTime() + 60_000), 'waiting for something');
        return 'done';
      },
      backoffMs: () => 1000,
    });
    const { id } = await q.enqueue(t.db, { kind, maxAttempts: 2 });
    await q.drain();
    t.clock.advance(1000);
    await q.drain();
    let row = await jobRow(id);
    expect(row).toMatchObject({ status: 'queued', attempts: 1, last_error: 'first try failed' });
    expect(row.run_at.getTime() - t.clock.now().getTime()).toBe(60_000);
    t.clock.advance(60_000);
    expect(await q.drain()).toBe(1);
    row = await jobRow(id);
    // The deferral did not count: the second real attempt is attempt 2 of 2 and it succeeded.
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, result: 'done' });
  });
});

describe('job queue: enqueue', () => {
  it('a dedupe key makes a second enqueue a no-op returning the same job, before and after it ran', async () => {
    const q = makeQueue();
    const kind = newKind('dedupe');
    let runs = 0;
    q.register(kind, { run: async () => void runs++ });
    const key = `${kind}:2026-11`;
    const a = await q.enqueue(t.db, { kind, dedupeKey: key, payload: { v: 1 } });
    const b = await q.enqueue(t.db, { kind, dedupeKey: key, payload: { v: 2 } });
    expect(b.id).toBe(a.id);
    await q.drain();
    const c = await q.enqueue(t.db, { kind, dedupeKey: key });
    expect(c.id).toBe(a.id);
    await q.drain();
    expect(runs).toBe(1);
    const rows = await t.db.selectFrom('jobs').selectAll().where('kind', '=', kind).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ payload: { v: 1 }, status: 'succeeded' });
  });

  it('enqueue inside a rolled-back transaction leaves no job; a committed one stays', async () => {
    const q = makeQueue();
    const kind = newKind('tx');
    await expect(
      t.db.transaction().execute(async (trx) => {
        await q.enqueue(trx, { kind, payload: { in: 'rolled back' } });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await t.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute()).toHaveLength(0);

    await t.db.transaction().execute((trx) => q.enqueue(trx, { kind, payload: { in: 'committed' } }));
    expect(await t.db.selectFrom('jobs').select('payload').where('kind', '=', kind).execute()).toEqual([{ payload: { in: 'committed' } }]);
  });

  it('a job is not run before its runAt', async () => {
    const q = makeQueue();
    const kind = newKind('later');
    let runs = 0;
    q.register(kind, { run: async () => void runs++ });
    await q.enqueue(t.db, { kind, runAt: new Date(t.clock.now().getTime() + 3_600_000) });
    expect(await q.drain()).toBe(0);
    t.clock.advance(3_600_000);
    expect(await q.drain()).toBe(1);
    expect(runs).toBe(1);
  });

  it('runNow makes a queued future job with that dedupe key due; running or finished ones are left alone', async () => {
    const q = makeQueue();
    const kind = newKind('runnow');
    q.register(kind, { run: async () => 'ran' });
    const { id } = await q.enqueue(t.db, { kind, dedupeKey: `${kind}:x`, runAt: new Date(t.clock.now().getTime() + 86_400_000) });
    expect(await q.runNow(t.db, [`${kind}:x`, `${kind}:unknown`])).toBe(1);
    expect(await q.drain()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded' });
    expect(await q.runNow(t.db, [`${kind}:x`])).toBe(0);
    expect(await q.runNow(t.db, [])).toBe(0);
  });
  it('runNow on a job that is running at that moment: if the run defers, the job is due at once instead of at the deferral time', async () => {
    const q = makeQueue();
    const kind = newKind('wake-running');
    const inRun = gate<void>();
    let runs = 0;
    q.register(kind, {
      run: async () => {
        runs++;
        if (runs === 1) {
          await inRun.promise;
          throw new DeferJob(new Date(t.clock.now().getTime() + 3_600_000), 'waiting');
        }
        return 'second run';
      },
    });
    const { id } = await q.enqueue(t.db, { kind, dedupeKey: `${kind}:k` });
    const draining = q.drain();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the claim');
    expect(await q.runNow(t.db, [`${kind}:k`])).toBe(1);
    inRun.open();
    expect(await draining).toBe(2);
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', attempts: 1, result: 'second run', wake_requested: false });
  });
});

describe('job queue: leases and several workers', () => {
  it('a job whose worker died mid-run is picked up by another queue after the lease and completes exactly once', async () => {
    const dead = makeQueue({ heartbeatMs: 0 }); // a dead process renews nothing
    const alive = makeQueue();
    const kind = newKind('lease');
    const stuck = gate<string>();
    const ranBy: string[] = [];
    dead.register(kind, { run: async () => (ranBy.push('dead'), stuck.promise) });
    alive.register(kind, { run: async () => (ranBy.push('alive'), 'by alive') });
    const { id } = await alive.enqueue(t.db, { kind });

    const deadDrain = dead.drain();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the dead worker to claim');
    const claimed = await jobRow(id);
    expect(claimed.locked_until!.getTime() - t.clock.now().getTime()).toBe(LEASE_SECONDS * 1000);

    // Within the lease the job is not claimable.
    t.clock.advance(LEASE_SECONDS * 1000 - 1);
    expect(await alive.drain()).toBe(0);
    t.clock.advance(2);
    expect(await alive.drain()).toBe(1);
    let row = await jobRow(id);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, result: 'by alive', locked_by: null });
    const finishedAt = row.finished_at;

    // The "dead" worker wakes up and finishes late: its outcome is fenced off.
    t.clock.advance(5_000);
    stuck.open('by dead');
    expect(await deadDrain).toBe(1);
    row = await jobRow(id);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, result: 'by alive' });
    expect(row.finished_at).toEqual(finishedAt);
    expect(ranBy).toEqual(['dead', 'alive']);
    expect(await alive.drain()).toBe(0);
  });

  it('a worker whose lease was taken over cannot overwrite the new outcome with a failure either', async () => {
    const dead = makeQueue({ heartbeatMs: 0 });
    const alive = makeQueue();
    const kind = newKind('lease-fail');
    const stuck = gate<void>();
    let failedHooks = 0;
    dead.register(kind, {
      run: async () => {
        await stuck.promise;
        throw new PermanentJobError('late failure');
      },
      onFailed: async () => void failedHooks++,
    });
    const aliveGate = gate<void>();
    alive.register(kind, { run: async () => (await aliveGate.promise, 'ok') });
    const { id } = await alive.enqueue(t.db, { kind });
    const deadDrain = dead.drain();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the dead worker to claim');
    const deadLock = (await jobRow(id)).locked_by;
    t.clock.advance(LEASE_SECONDS * 1000 + 1);
    const aliveDrain = alive.drain();
    await waitUntil(async () => (await jobRow(id)).locked_by !== deadLock, 'the take-over');
    // The old worker fails while the new one is still running the job: its failure is discarded.
    stuck.open();
    await deadDrain;
    expect(await jobRow(id)).toMatchObject({ status: 'running', last_error: null });
    aliveGate.open();
    await aliveDrain;
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', result: 'ok', last_error: null, attempts: 2 });
    expect(failedHooks).toBe(0);
  });

  it('a worker that dies during the final attempt leaves a job that fails (not run again) once its lease lapses', async () => {
    const dead = makeQueue({ heartbeatMs: 0 });
    const alive = makeQueue();
    const kind = newKind('lease-final');
    const stuck = gate<void>();
    let aliveRuns = 0;
    const failed: unknown[] = [];
    dead.register(kind, { run: () => stuck.promise });
    alive.register(kind, { run: async () => void aliveRuns++, onFailed: async (_j, err) => void failed.push(err) });
    const { id } = await alive.enqueue(t.db, { kind, maxAttempts: 1 });
    const deadDrain = dead.drain();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the dead worker to claim');
    t.clock.advance(LEASE_SECONDS * 1000 + 1);
    expect(await alive.drain()).toBe(1);
    const row = await jobRow(id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.last_error).toMatch(/worker died during the final attempt/);
    expect(aliveRuns).toBe(0);
    expect(failed).toHaveLength(1);
    stuck.open();
    await deadDrain;
    expect((await jobRow(id)).status).toBe('failed');
  });

  it('a running job renews its lease, so a long job is not taken over while its worker lives', async () => {
    const long = makeQueue({ leaseSeconds: 5, heartbeatMs: 20 });
    const other = makeQueue({ leaseSeconds: 5 });
    const kind = newKind('renew');
    const stuck = gate<void>();
    let otherRuns = 0;
    long.register(kind, { run: async () => (await stuck.promise, 'long done') });
    other.register(kind, { run: async () => void otherRuns++ });
    const { id } = await long.enqueue(t.db, { kind });
    const longDrain = long.drain();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the claim');
    const firstLease = (await jobRow(id)).locked_until!.getTime();
    t.clock.advance(4_000);
    await waitUntil(async () => (await jobRow(id)).locked_until!.getTime() > firstLease, 'a lease renewal');
    t.clock.advance(2_000); // past the first lease, inside the renewed one
    expect(await other.drain()).toBe(0);
    stuck.open();
    await longDrain;
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', attempts: 1, result: 'long done' });
    expect(otherRuns).toBe(0);
  });

  it('two queue instances (own connection pools on real Postgres) draining concurrently run every job exactly once', async () => {
    const dbB = usingPostgres()
      ? (extraHandles.push(await createDb({ databaseUrl: t.testDb.url!, poolSize: 5 })), extraHandles.at(-1)!.db)
      : t.db;
    const a = makeQueue({ concurrency: 4 });
    const b = makeQueue({ db: dbB, concurrency: 4 });
    const kind = newKind('race');
    const runs = new Map<number, number>();
    const byQueue = { a: 0, b: 0 };
    const handler = (who: 'a' | 'b') => ({
      run: async (job: JobRecord) => {
        const n = job.payload.n as number;
        runs.set(n, (runs.get(n) ?? 0) + 1);
        byQueue[who]++;
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      },
    });
    a.register(kind, handler('a'));
    b.register(kind, handler('b'));
    const total = 150;
    for (let i = 0; i < total; i++) await a.enqueue(t.db, { kind, payload: { n: i } });

    // Background workers of both instances plus explicit drains, all at once.
    a.start();
    b.start();
    const [da, db2] = await Promise.all([a.drain(), b.drain()]);
    await waitUntil(
      async () =>
        (await t.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('status', '=', 'succeeded').execute()).length === total,
      'all jobs to succeed',
    );
    await Promise.all([a.stop(), b.stop()]);

    expect(runs.size).toBe(total);
    expect([...runs.values()].every((c) => c === 1)).toBe(true);
    expect(byQueue.a + byQueue.b).toBe(total);
    expect(da + db2).toBeLessThanOrEqual(total);
    const rows = await t.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', kind).execute();
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    if (usingPostgres()) {
      expect(byQueue.a).toBeGreaterThan(0);
      expect(byQueue.b).toBeGreaterThan(0);
    }
  });
});

describe('job queue: background worker', () => {
  it('runs up to JOBS_CONCURRENCY jobs at once and no more', async () => {
    const q = makeQueue({ concurrency: 3 });
    const kind = newKind('concurrency');
    const release = gate<void>();
    let active = 0;
    let peak = 0;
    q.register(kind, {
      run: async () => {
        active++;
        peak = Math.max(peak, active);
        await release.promise;
        active--;
      },
    });
    for (let i = 0; i < 7; i++) await q.enqueue(t.db, { kind });
    q.start();
    await waitUntil(() => active === 3, 'three jobs running');
    await new Promise((r) => setTimeout(r, 60)); // several poll intervals: still three
    expect(active).toBe(3);
    release.open();
    await waitUntil(
      async () =>
        (await t.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('status', '=', 'succeeded').execute()).length === 7,
      'all seven to succeed',
    );
    await q.stop();
    expect(peak).toBe(3);
  });

  it('stop() waits for in-flight jobs and claims nothing afterwards (graceful shutdown)', async () => {
    const q = makeQueue();
    const kind = newKind('shutdown');
    const release = gate<void>();
    q.register(kind, { run: async (job) => (job.payload.slow ? await release.promise : undefined, 'finished') });
    const { id } = await q.enqueue(t.db, { kind, payload: { slow: true } });
    q.start();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the claim');
    let stopped = false;
    const stopping = q.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    const later = await q.enqueue(t.db, { kind });
    release.open();
    await stopping;
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', result: 'finished' });
    await new Promise((r) => setTimeout(r, 50));
    expect(await jobRow(later.id)).toMatchObject({ status: 'queued', attempts: 0 });
  });

  it('stop({ releaseAfterMs }) hands a job still running back to the queue (due now, attempt not counted); its late outcome is discarded', async () => {
    const q = makeQueue();
    const kind = newKind('handback');
    const release = gate<void>();
    q.register(kind, { run: async () => (await release.promise, 'too late') });
    const { id } = await q.enqueue(t.db, { kind });
    q.start();
    await waitUntil(async () => (await jobRow(id)).status === 'running', 'the claim');
    await q.stop({ releaseAfterMs: 0 });
    expect(await jobRow(id)).toMatchObject({ status: 'queued', attempts: 0, locked_by: null, locked_until: null, run_at: t.clock.now() });
    // The handler ends after all: its success is fenced off, and another process runs the job.
    release.open();
    await new Promise((r) => setTimeout(r, 50));
    expect(await jobRow(id)).toMatchObject({ status: 'queued', result: null });
    const other = makeQueue();
    other.register(kind, { run: async () => 'ran elsewhere' });
    expect(await other.drain()).toBe(1);
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', attempts: 1, result: 'ran elsewhere' });
  });

  it('stop({ releaseAfterMs }) with jobs that finish in time leaves their outcome alone', async () => {
    const q = makeQueue();
    const kind = newKind('in-time');
    q.register(kind, { run: async () => 'done' });
    const { id } = await q.enqueue(t.db, { kind });
    q.start();
    await waitUntil(async () => (await jobRow(id)).status === 'succeeded', 'the run');
    await q.stop({ releaseAfterMs: 60_000 });
    expect(await jobRow(id)).toMatchObject({ status: 'succeeded', result: 'done' });
  });

  it('the app queue is stopped with the app and the background worker is off in tests', async () => {
    expect(t.config.JOBS_ENABLED).toBe(false);
    const kind = newKind('app');
    t.deps.jobs.register(kind, { run: async () => 'ran' });
    const { id } = await t.deps.jobs.enqueue(t.db, { kind });
    await new Promise((r) => setTimeout(r, 50));
    expect((await jobRow(id)).status).toBe('queued');
    expect(await t.deps.jobs.drain()).toBe(1);
    expect((await jobRow(id)).status).toBe('succeeded');
  });
});
