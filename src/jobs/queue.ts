import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { newId, randomToken } from '../lib/ids.js';
import { PermanentJobError, type EnqueueOptions, type Executor, type JobHandler, type JobQueue, type JobRecord } from './types.js';

export interface QueueDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Pick<Config, 'JOBS_POLL_MS' | 'JOBS_CONCURRENCY' | 'JOBS_LEASE_SECONDS'>;
}

export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(5 * 60_000, 1000 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

export function createJobQueue({ db, clock, log, config }: QueueDeps): JobQueue {
  const handlers = new Map<string, JobHandler>();
  const workerId = `${hostname()}:${process.pid}:${randomToken(4)}`;
  let timer: NodeJS.Timeout | null = null;
  let running = 0;
  let stopping = false;
  const inFlight = new Set<Promise<void>>();

  async function enqueue(executor: Executor, opts: EnqueueOptions) {
    const id = newId();
    const row = await executor
      .insertInto('jobs')
      .values({
        id,
        kind: opts.kind,
        payload: JSON.stringify(opts.payload ?? {}),
        run_at: opts.runAt ?? clock.now(),
        dedupe_key: opts.dedupeKey ?? null,
        provider_id: opts.providerId ?? null,
        subscription_id: opts.subscriptionId ?? null,
        max_attempts: opts.maxAttempts ?? 8,
        created_at: clock.now(),
        updated_at: clock.now(),
      })
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (row) return { id: row.id };
    const existing = await executor.selectFrom('jobs').select('id').where('dedupe_key', '=', opts.dedupeKey!).executeTakeFirstOrThrow();
    return { id: existing.id };
  }

  /**
   * Claims one due job: queued and due, or running with a lapsed lease (its process died).
   * SKIP LOCKED lets several workers and processes claim side by side without waiting.
   */
  async function claim(): Promise<JobRecord | null> {
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + config.JOBS_LEASE_SECONDS * 1000);
    const kinds = [...handlers.keys()];
    if (kinds.length === 0) return null;
    const r = await sql<JobRecord>`
      UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
        locked_until = ${leaseUntil}, updated_at = ${now}
      WHERE id = (
        SELECT id FROM jobs
        WHERE kind = ANY(${kinds}) AND (
          (status = 'queued' AND run_at <= ${now}) OR (status = 'running' AND locked_until < ${now}))
        ORDER BY run_at, created_at
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, payload, attempts, max_attempts, provider_id, subscription_id`.execute(db);
    return r.rows[0] ?? null;
  }

  async function finish(job: JobRecord, result: unknown) {
    await db.updateTable('jobs')
      .set({ status: 'succeeded', result: JSON.stringify(result ?? null), locked_by: null, locked_until: null, last_error: null, finished_at: clock.now(), updated_at: clock.now() })
      .where('id', '=', job.id).where('locked_by', '=', workerId).execute();
  }

  async function fail(job: JobRecord, handler: JobHandler, err: unknown) {
    const message = err instanceof Error ? err.message : String(err);
    const final = err instanceof PermanentJobError || job.attempts >= job.max_attempts;
    const now = clock.now();
    if (final) {
      await db.updateTable('jobs')
        .set({ status: 'failed', last_error: message, locked_by: null, locked_until: null, finished_at: now, updated_at: now })
        .where('id', '=', job.id).execute();
      log.warn({ job_id: job.id, kind: job.kind, attempts: job.attempts, err: message }, 'job failed for good');
      await handler.onFailed?.(job, err).catch((e: unknown) => log.error({ err: e, job_id: job.id }, 'onFailed hook threw'));
    } else {
      const delay = handler.backoffMs ? handler.backoffMs(job.attempts, err) : defaultBackoffMs(job.attempts);
      await db.updateTable('jobs')
        .set({ status: 'queued', last_error: message, locked_by: null, locked_until: null, run_at: new Date(now.getTime() + delay), updated_at: now })
        .where('id', '=', job.id).execute();
      log.info({ job_id: job.id, kind: job.kind, attempts: job.attempts, retry_in_ms: delay, err: message }, 'job will retry');
    }
  }

  async function runOne(): Promise<boolean> {
    const job = await claim();
    if (!job) return false;
    const handler = handlers.get(job.kind)!;
    try {
      const result = await handler.run(job);
      await finish(job, result);
    } catch (err) {
      await fail(job, handler, err);
    }
    return true;
  }

  function tick() {
    if (stopping) return;
    while (running < config.JOBS_CONCURRENCY) {
      running++;
      const p = runOne()
        .then((didWork) => {
          if (didWork && !stopping) setImmediate(tick);
        })
        .catch((err: unknown) => log.error({ err }, 'job worker error'))
        .finally(() => {
          running--;
          inFlight.delete(p);
        });
      inFlight.add(p);
      break; // one claim per tick per slot keeps an idle poll to one query
    }
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
      await Promise.allSettled([...inFlight]);
    },
    async drain({ maxJobs = 1000 } = {}) {
      let n = 0;
      while (n < maxJobs && (await runOne())) n++;
      return n;
    },
  };
}
