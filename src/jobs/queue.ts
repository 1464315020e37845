import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { newId, randomToken } from '../lib/ids.js';
import { DeferJob, PermanentJobError, type EnqueueOptions, type Executor, type JobHandler, type JobQueue, type JobRecord } from './types.js';

export interface QueueDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Pick<Config, 'JOBS_POLL_MS' | 'JOBS_CONCURRENCY' | 'JOBS_LEASE_SECONDS'>;
  /**
   * How often (real milliseconds) a running job's lease is renewed; default a third of the lease.
   * 0 turns renewal off — tests use that to play a worker whose process died mid-job.
   */
  heartbeatMs?: number;
}

export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(5 * 60_000, 1000 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** A claimed job plus what the queue needs to settle it; handlers only see the JobRecord part. */
interface Claim {
  job: JobRecord;
  /** Unique per claim: every later write is fenced on it, so a worker whose lease lapsed and was
   *  taken over cannot overwrite the new holder's outcome. */
  token: string;
  /** The job was 'running' under a lapsed lease (its worker died or stalled), not 'queued'. */
  reclaimed: boolean;
}

/**
 * The durable queue. Jobs are rows; a worker claims one with FOR UPDATE SKIP LOCKED and holds it
 * under a lease (locked_until) that it renews while the handler runs. A job whose worker died is
 * claimable again once the lease lapses, so delivery is at-least-once: handlers are idempotent.
 * Safe with several server processes on one database. Business time comes from the injected clock
 * (tests move it to expire leases and reach backoffs); only the renewal timer uses real time.
 */
export function createJobQueue({ db, clock, log, config, heartbeatMs }: QueueDeps): JobQueue {
  const handlers = new Map<string, JobHandler>();
  const workerId = `${hostname()}:${process.pid}:${randomToken(4)}`;
  const leaseMs = config.JOBS_LEASE_SECONDS * 1000;
  const renewEvery = heartbeatMs ?? Math.floor(leaseMs / 3);
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  let workers = 0;
  const inFlight = new Set<Promise<void>>();

  async function enqueue(executor: Executor, opts: EnqueueOptions) {
    if (!opts.kind) throw new Error('enqueue: kind is required');
    if (opts.maxAttempts !== undefined && !(Number.isInteger(opts.maxAttempts) && opts.maxAttempts >= 1)) {
      throw new Error('enqueue: maxAttempts must be a positive integer');
    }
    const now = clock.now();
    const row = await executor
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: opts.kind,
        payload: JSON.stringify(opts.payload ?? {}),
        run_at: opts.runAt ?? now,
        dedupe_key: opts.dedupeKey ?? null,
        provider_id: opts.providerId ?? null,
        subscription_id: opts.subscriptionId ?? null,
        max_attempts: opts.maxAttempts ?? 8,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (row) return { id: row.id };
    if (opts.dedupeKey === undefined) throw new Error('enqueue: insert returned no row');
    const existing = await executor.selectFrom('jobs').select('id').where('dedupe_key', '=', opts.dedupeKey).executeTakeFirstOrThrow();
    return { id: existing.id };
  }

  /**
   * Claims one due job: queued and due, or running with a lapsed lease (its process died).
   * SKIP LOCKED lets several workers and processes claim side by side without waiting.
   */
  async function claim(): Promise<Claim | null> {
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return null;
    const now = clock.now();
    const token = `${workerId}:${randomToken(6)}`;
    const r = await sql<JobRecord & { prev_status: string }>`
      WITH next AS (
        SELECT id, status AS prev_status FROM jobs
        WHERE kind = ANY(${kinds}) AND (
          (status = 'queued' AND run_at <= ${now}) OR (status = 'running' AND locked_until < ${now}))
        ORDER BY run_at, created_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
      UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, locked_by = ${token}, wake_requested = false,
        locked_until = ${new Date(now.getTime() + leaseMs)}, updated_at = ${now}
      FROM next WHERE jobs.id = next.id
      RETURNING jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts, jobs.provider_id,
        jobs.subscription_id, next.prev_status`.execute(db);
    const row = r.rows[0];
    if (!row) return null;
    const { prev_status, ...job } = row;
    const reclaimed = prev_status === 'running';
    if (reclaimed) log.warn({ job_id: job.id, kind: job.kind, attempts: job.attempts }, 'job lease lapsed (worker presumed dead); claimed again');
    return { job, token, reclaimed };
  }

  /** Renews the lease while the handler runs, so a long job is not taken over by a second worker. */
  function renewLease(c: Claim): () => void {
    if (!renewEvery) return () => undefined;
    const t = setInterval(() => {
      const now = clock.now();
      db.updateTable('jobs')
        .set({ locked_until: new Date(now.getTime() + leaseMs), updated_at: now })
        .where('id', '=', c.job.id).where('locked_by', '=', c.token).where('status', '=', 'running')
        .execute()
        .catch((err: unknown) => log.warn({ err, job_id: c.job.id }, 'could not renew job lease'));
    }, renewEvery);
    t.unref();
    return () => clearInterval(t);
  }

  const applied = (r: { numUpdatedRows: bigint }) => r.numUpdatedRows > 0n;

  async function finish(c: Claim, result: unknown) {
    const now = clock.now();
    const r = await db.updateTable('jobs')
      .set({ status: 'succeeded', result: result === undefined ? null : JSON.stringify(result), locked_by: null, locked_until: null, last_error: null, finished_at: now, updated_at: now })
      .where('id', '=', c.job.id).where('locked_by', '=', c.token).where('status', '=', 'running')
      .executeTakeFirst();
    if (!applied(r)) log.warn({ job_id: c.job.id, kind: c.job.kind }, 'job finished after its lease was taken over; outcome discarded');
  }

  async function fail(c: Claim, handler: JobHandler, err: unknown) {
    const { job } = c;
    const now = clock.now();
    const base = () => db.updateTable('jobs').where('id', '=', job.id).where('locked_by', '=', c.token).where('status', '=', 'running');

    if (err instanceof DeferJob) {
      const r = await base()
        .set({
          status: 'queued',
          attempts: Math.max(0, job.attempts - 1),
          locked_by: null,
          locked_until: null,
          // Woken (runNow) while it ran: what it waited for has happened meanwhile.
          run_at: sql<Date>`CASE WHEN wake_requested THEN ${now}::timestamptz ELSE ${err.runAt}::timestamptz END`,
          wake_requested: false,
          updated_at: now,
        })
        .executeTakeFirst();
      if (applied(r)) log.debug({ job_id: job.id, kind: job.kind, run_at: err.runAt, reason: err.message }, 'job deferred');
      return;
    }

    const message = err instanceof Error ? err.message : String(err);
    const final = err instanceof PermanentJobError || job.attempts >= job.max_attempts;
    if (final) {
      const r = await base()
        .set({ status: 'failed', attempts: Math.min(job.attempts, job.max_attempts), last_error: message, locked_by: null, locked_until: null, finished_at: now, updated_at: now })
        .executeTakeFirst();
      if (!applied(r)) {
        log.warn({ job_id: job.id, kind: job.kind, err: message }, 'job failed after its lease was taken over; outcome discarded');
        return;
      }
      log.warn({ job_id: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed for good');
      try {
        await handler.onFailed?.(job, err);
      } catch (e) {
        log.error({ err: e, job_id: job.id }, 'onFailed hook threw');
      }
      return;
    }

    let delay: number;
    try {
      delay = handler.backoffMs ? handler.backoffMs(job.attempts, err) : defaultBackoffMs(job.attempts);
    } catch (e) {
      log.error({ err: e, job_id: job.id }, 'backoffMs threw; using the default backoff');
      delay = defaultBackoffMs(job.attempts);
    }
    if (!Number.isFinite(delay) || delay < 0) delay = defaultBackoffMs(job.attempts);
    const r = await base()
      .set({ status: 'queued', last_error: message, locked_by: null, locked_until: null, run_at: new Date(now.getTime() + delay), updated_at: now })
      .executeTakeFirst();
    if (applied(r)) log.info({ job_id: job.id, kind: job.kind, attempts: job.attempts, retry_in_ms: delay, err: message }, 'job will retry');
    else log.warn({ job_id: job.id, kind: job.kind, err: message }, 'job failed after its lease was taken over; outcome discarded');
  }

  async function execute(c: Claim) {
    const handler = handlers.get(c.job.kind)!;
    if (c.reclaimed && c.job.attempts > c.job.max_attempts) {
      // Its final attempt's worker died mid-run: nothing left to retry with.
      await fail(c, handler, new PermanentJobError(`worker died during the final attempt (lease expired after ${c.job.max_attempts} attempts)`));
      return;
    }
    const stopRenewing = renewLease(c);
    let result: unknown;
    try {
      result = await handler.run({ ...c.job });
    } catch (err) {
      stopRenewing();
      await fail(c, handler, err);
      return;
    }
    stopRenewing();
    // A failure to record success is not a job failure: the lease lapses and the job runs again.
    await finish(c, result);
  }

  async function runOne(): Promise<boolean> {
    const c = await claim();
    if (!c) return false;
    await execute(c);
    return true;
  }

  /** One worker slot: claims and runs jobs until none is due. Finding work lets another slot join. */
  function spawnWorker() {
    workers++;
    const p: Promise<void> = (async () => {
      while (!stopping) {
        const c = await claim();
        if (!c) return;
        if (workers < config.JOBS_CONCURRENCY && !stopping) spawnWorker();
        await execute(c);
      }
    })()
      .catch((err: unknown) => log.error({ err }, 'job worker error'))
      .finally(() => {
        workers--;
        inFlight.delete(p);
      });
    inFlight.add(p);
  }

  // An idle poll costs one claim query; a backlog ramps up to JOBS_CONCURRENCY slots.
  function tick() {
    if (!stopping && timer && workers < config.JOBS_CONCURRENCY) spawnWorker();
  }

  return {
    enqueue,
    register(kind, handler) {
      handlers.set(kind, handler);
    },
    start() {
      if (timer) return;
      stopping = false;
      timer = setInterval(tick, config.JOBS_POLL_MS);
      timer.unref();
      setImmediate(tick);
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = null;
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async drain({ maxJobs = 1000 } = {}) {
      let n = 0;
      while (n < maxJobs && (await runOne())) n++;
      return n;
    },
    async runNow(executor, dedupeKeys) {
      if (dedupeKeys.length === 0) return 0;
      const now = clock.now();
      // One statement, so a job that turns from running to queued meanwhile is caught either way:
      // a queued one is made due, a running one (about to defer itself on the state that just
      // changed) is marked so its deferral becomes "due now".
      const r = await executor.updateTable('jobs')
        .set({
          run_at: sql<Date>`CASE WHEN status = 'queued' THEN ${now}::timestamptz ELSE run_at END`,
          wake_requested: sql<boolean>`status = 'running'`,
          updated_at: now,
        })
        .where('dedupe_key', 'in', dedupeKeys)
        .where((eb) => eb.or([eb('status', '=', 'running'), eb.and([eb('status', '=', 'queued'), eb('run_at', '>', now)])]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
