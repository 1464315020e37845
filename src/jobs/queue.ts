import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Executor } from '../db/executor.js';
import type { Clock } from '../lib/clock.js';
import { newId, randomToken } from '../lib/ids.js';
import { jobOutcome } from '../ops/events.js';
import { runInJobContext } from '../ops/log-context.js';
import { createBatcher } from './batcher.js';
import { DeferJob, PermanentJobError, type EnqueueOptions, type JobHandler, type JobQueue, type JobRecord } from './types.js';

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
 * The durable queue. Jobs are rows; workers claim due ones in batches with FOR UPDATE SKIP LOCKED
 * and hold each under a lease (locked_until) that is renewed while its handler runs. A job whose worker died is
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
  const inFlight = new Set<Promise<void>>();
  /** Claims whose handler runs now, for stop() to hand back. */
  const running = new Set<Claim>();

  function checkEnqueue(opts: EnqueueOptions) {
    if (!opts.kind) throw new Error('enqueue: kind is required');
    if (opts.maxAttempts !== undefined && !(Number.isInteger(opts.maxAttempts) && opts.maxAttempts >= 1)) {
      throw new Error('enqueue: maxAttempts must be a positive integer');
    }
  }

  function insertJob(executor: Executor, opts: EnqueueOptions) {
    checkEnqueue(opts);
    const now = clock.now();
    const id = newId();
    const write = executor
      .insertInto('jobs')
      .values({
        id,
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
      .onConflict((oc) => oc.column('dedupe_key').doNothing());
    return { id, write };
  }

  async function enqueue(executor: Executor, opts: EnqueueOptions) {
    const row = await insertJob(executor, opts).write.returning('id').executeTakeFirst();
    if (row) return { id: row.id };
    if (opts.dedupeKey === undefined) throw new Error('enqueue: insert returned no row');
    const existing = await executor.selectFrom('jobs').select('id').where('dedupe_key', '=', opts.dedupeKey).executeTakeFirstOrThrow();
    return { id: existing.id };
  }

  /**
   * Claims up to `limit` due jobs in one statement: running ones whose lease lapsed (their process
   * died) first, then queued ones in run_at order. Both halves walk a partial index in order and stop
   * at `limit` (no sort of the whole backlog, whatever the table statistics say); SKIP LOCKED lets
   * several workers and processes claim side by side. All jobs of one claim share a fresh lock
   * token; every later write is fenced on (id, token), so a worker whose lease was taken over cannot
   * overwrite the new holder's outcome.
   */
  async function claim(limit: number, kinds: string[] = [...handlers.keys()]): Promise<Claim[]> {
    if (kinds.length === 0 || limit < 1) return [];
    const now = clock.now();
    const token = `${workerId}:${randomToken(6)}`;
    // jobs_claim_v2 (migrations/functions/jobs_claim_v2.sql): lapsed leases first, then due jobs in (run_at, created_at)
    // order, with a plan fixed to an ordered index walk that stops after `limit` rows.
    const r = await sql<JobRecord & { prev_status: string }>`
      SELECT * FROM jobs_claim_v2(${kinds}::text[], ${now}::timestamptz, ${limit}::integer, ${token}::text,
        ${new Date(now.getTime() + leaseMs)}::timestamptz)`.execute(db);
    return r.rows.map(({ prev_status, ...job }) => {
      const reclaimed = prev_status === 'running';
      if (reclaimed)
        log.warn({ job_id: job.id, kind: job.kind, attempts: job.attempts }, 'job lease lapsed (worker presumed dead); claimed again');
      return { job, token, reclaimed };
    });
  }

  /** Renews the lease while the handler runs, so a long job is not taken over by a second worker. */
  function renewLease(c: Claim): () => void {
    if (!renewEvery) return () => undefined;
    const t = setInterval(() => {
      const now = clock.now();
      db.updateTable('jobs')
        .set({ locked_until: new Date(now.getTime() + leaseMs), updated_at: now })
        .where('id', '=', c.job.id)
        .where('locked_by', '=', c.token)
        .where('status', '=', 'running')
        .execute()
        .catch((err: unknown) => log.warn({ err, job_id: c.job.id }, 'could not renew job lease'));
    }, renewEvery);
    t.unref();
    return () => clearInterval(t);
  }

  const applied = (r: { numUpdatedRows: bigint }) => r.numUpdatedRows > 0n;

  /**
   * Successes of concurrent jobs are recorded together (group commit): one fenced UPDATE per batch.
   * Returns per job whether it still held its claim.
   */
  const recordSuccess = createBatcher<{ c: Claim; result: unknown; at: Date }, boolean>(async (items) => {
    // One JSON parameter for the batch (native JSON.stringify, not per-element array escaping).
    const batch = JSON.stringify(
      items.map((i) => ({ id: i.c.job.id, token: i.c.token, result: i.result ?? null, at: i.at.toISOString() })),
    );
    const r = await sql<{ id: string }>`
      UPDATE jobs SET status = 'succeeded', result = v.result, locked_by = NULL, locked_until = NULL,
        last_error = NULL, finished_at = v.at, updated_at = v.at
      FROM jsonb_to_recordset(${batch}::jsonb) AS v(id uuid, token text, result jsonb, at timestamptz)
      WHERE jobs.id = v.id AND jobs.locked_by = v.token
        -- "still running", as a CASE so the plan is a primary-key lookup whatever the statistics
        -- say (a plain status = 'running' lets the planner walk jobs_lease_idx of the baseline).
        AND CASE jobs.status WHEN 'running' THEN true ELSE false END
      RETURNING jobs.id`.execute(db);
    const done = new Set(r.rows.map((row) => row.id));
    return items.map((i) => done.has(i.c.job.id));
  });

  async function finish(c: Claim, result: unknown) {
    if (!(await recordSuccess({ c, result, at: clock.now() }))) {
      log.warn({ job_id: c.job.id, kind: c.job.kind }, 'job finished after its lease was taken over; outcome discarded');
    } else jobOutcome(c.job.kind, 'succeeded');
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
      if (applied(r)) {
        jobOutcome(job.kind, 'deferred');
        log.debug({ job_id: job.id, kind: job.kind, run_at: err.runAt, reason: err.message }, 'job deferred');
      }
      return;
    }

    const message = err instanceof Error ? err.message : String(err);
    const final = err instanceof PermanentJobError || job.attempts >= job.max_attempts;
    if (final) {
      const r = await base()
        .set({
          status: 'failed',
          attempts: Math.min(job.attempts, job.max_attempts),
          last_error: message,
          locked_by: null,
          locked_until: null,
          finished_at: now,
          updated_at: now,
        })
        .executeTakeFirst();
      if (!applied(r)) {
        log.warn({ job_id: job.id, kind: job.kind, err: message }, 'job failed after its lease was taken over; outcome discarded');
        return;
      }
      jobOutcome(job.kind, 'failed');
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
      .set({
        status: 'queued',
        last_error: message,
        locked_by: null,
        locked_until: null,
        run_at: new Date(now.getTime() + delay),
        updated_at: now,
      })
      .executeTakeFirst();
    if (applied(r)) {
      jobOutcome(job.kind, 'retried');
      log.info({ job_id: job.id, kind: job.kind, attempts: job.attempts, retry_in_ms: delay, err: message }, 'job will retry');
    } else log.warn({ job_id: job.id, kind: job.kind, err: message }, 'job failed after its lease was taken over; outcome discarded');
  }

  /**
   * Runs the handler and records the outcome. `handlerDone` is called as soon as the handler
   * returned or threw: the worker slot is free then, while the outcome is still being recorded
   * (the job stays leased to this claim until it is).
   */
  async function execute(c: Claim, handlerDone: () => void = () => undefined) {
    const handler = handlers.get(c.job.kind)!;
    if (c.reclaimed && c.job.attempts > c.job.max_attempts) {
      handlerDone();
      // Its final attempt's worker died mid-run: nothing left to retry with.
      await fail(
        c,
        handler,
        new PermanentJobError(`worker died during the final attempt (lease expired after ${c.job.max_attempts} attempts)`),
      );
      return;
    }
    const stopRenewing = renewLease(c);
    let result: unknown;
    running.add(c);
    try {
      result = await runInJobContext(c.job, () => handler.run({ ...c.job }));
    } catch (err) {
      running.delete(c);
      handlerDone();
      try {
        await fail(c, handler, err);
      } finally {
        stopRenewing();
      }
      return;
    }
    running.delete(c);
    handlerDone();
    // A failure to record success is not a job failure: the lease lapses and the job runs again.
    try {
      await finish(c, result);
    } finally {
      stopRenewing();
    }
  }

  /** Shutdown: hands the still-running claims back as due now, uncounted (fenced on their token). */
  async function releaseRunning() {
    const now = clock.now();
    for (const c of [...running]) {
      const r = await db
        .updateTable('jobs')
        .set({
          status: 'queued',
          attempts: Math.max(0, c.job.attempts - 1),
          locked_by: null,
          locked_until: null,
          run_at: now,
          updated_at: now,
        })
        .where('id', '=', c.job.id)
        .where('locked_by', '=', c.token)
        .where('status', '=', 'running')
        .executeTakeFirst()
        .catch((err: unknown) =>
          log.warn({ err, job_id: c.job.id, kind: c.job.kind }, 'could not hand back a running job at shutdown; its lease will lapse'),
        );
      if (r && applied(r)) {
        jobOutcome(c.job.kind, 'released');
        log.warn({ job_id: c.job.id, kind: c.job.kind }, 'job still running at shutdown; handed back to the queue');
      }
    }
  }

  async function runOne(): Promise<boolean> {
    const [c] = await claim(1);
    if (!c) return false;
    await execute(c);
    return true;
  }

  // The background worker. Each lane has its slots: the shared lane JOBS_CONCURRENCY for every kind
  // without a `concurrency` of its own, and one lane per kind that has one. A claim takes as many
  // jobs of the lane's kinds as it has free slots (up to MAX_CLAIMS_IN_FLIGHT claims at once, so a
  // slow database round trip does not idle the slots). While the last claim filled every slot it
  // asked for, more work is probably waiting: a slot that frees up claims again at once (no
  // JOBS_POLL_MS sleep between jobs), batching with the slots that free up meanwhile. Once a claim
  // comes back short, the lane is drained and only the poll looks again: an idle poll costs one
  // claim query per lane.
  const MAX_CLAIMS_IN_FLIGHT = 2;
  interface Lane {
    kinds: string[];
    concurrency: number;
    /** Wait for this many free slots before claiming while jobs run, so a claim takes several. */
    minBatch: number;
    /** Slots running a handler or promised to a claim in flight. */
    reserved: number;
    claims: number;
    backlog: boolean;
  }
  const newLane = (concurrency: number, kinds: string[] = []): Lane => ({
    kinds,
    concurrency,
    minBatch: Math.max(1, Math.floor(concurrency / 4)),
    reserved: 0,
    claims: 0,
    backlog: false,
  });
  const shared = newLane(config.JOBS_CONCURRENCY);
  const lanes: Lane[] = [shared];

  function track(p: Promise<void>) {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  function pump(lane: Lane, fromPoll: boolean) {
    if (stopping || !timer || lane.claims >= MAX_CLAIMS_IN_FLIGHT || lane.kinds.length === 0) return;
    if (!fromPoll && !lane.backlog) return;
    const free = lane.concurrency - lane.reserved;
    // Wait for a few slots to free up so a claim takes several jobs, unless nothing runs at all.
    if (free < 1 || (lane.reserved > 0 && free < lane.minBatch)) return;
    lane.claims++;
    lane.reserved += free;
    track(
      claim(free, lane.kinds)
        .then((got) => {
          lane.reserved -= free - got.length;
          lane.backlog = got.length === free;
          for (const c of got) startJob(lane, c);
        })
        .catch((err: unknown) => {
          lane.reserved -= free;
          lane.backlog = false;
          log.error({ err }, 'job claim failed');
        })
        .finally(() => {
          lane.claims--;
          pump(lane, false);
        }),
    );
  }

  function startJob(lane: Lane, c: Claim) {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      lane.reserved--;
      pump(lane, false);
    };
    track(
      execute(c, release)
        .catch((err: unknown) => log.error({ err, job_id: c.job.id }, 'job worker error'))
        .finally(release),
    );
  }

  const pumpAll = () => {
    for (const lane of lanes) pump(lane, true);
  };

  return {
    enqueue,
    enqueueWrite: insertJob,
    register(kind, handler) {
      if (handler.concurrency !== undefined && !(Number.isInteger(handler.concurrency) && handler.concurrency >= 1)) {
        throw new Error(`register ${kind}: concurrency must be a positive integer`);
      }
      handlers.set(kind, handler);
      for (const lane of lanes) lane.kinds = lane.kinds.filter((k) => k !== kind);
      if (handler.concurrency) lanes.push(newLane(handler.concurrency, [kind]));
      else shared.kinds.push(kind);
    },
    start() {
      if (timer) return;
      stopping = false;
      timer = setInterval(pumpAll, config.JOBS_POLL_MS);
      timer.unref();
      setImmediate(pumpAll);
    },
    isRunning: () => timer !== null && !stopping,
    async stop({ releaseAfterMs } = {}) {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = null;
      const settled = (async () => {
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        return true;
      })();
      if (releaseAfterMs === undefined) return void (await settled);
      let wait: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (wait = setTimeout(() => resolve(false), releaseAfterMs)));
      const done = await Promise.race([settled, late]);
      clearTimeout(wait);
      if (!done) await releaseRunning();
    },
    async drain({ maxJobs = 1000 } = {}) {
      let n = 0;
      while (n < maxJobs && (await runOne())) n++;
      return n;
    },
    async runNow(executor, dedupeKeys) {
      if (dedupeKeys.length === 0) return 0;
      // jobs_run_now (migrations/functions/jobs_run_now.sql), one statement, so a job that turns from running to
      // queued meanwhile is caught either way: a queued one is made due, a running one (about to
      // defer itself on the state that just changed) is marked so its deferral becomes "due now".
      const r = await sql<{ n: number }>`SELECT jobs_run_now(${dedupeKeys}::text[], ${clock.now()}::timestamptz) AS n`.execute(executor);
      return Number(r.rows[0]?.n ?? 0);
    },
  };
}
