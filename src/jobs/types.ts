import type { Executor } from '../db/executor.js';
import type { Write } from '../db/together.js';

export interface EnqueueOptions {
  kind: string;
  payload?: Record<string, unknown>;
  /** Not before this instant (default: now). */
  runAt?: Date;
  /** A second enqueue with the same key is a no-op (returns the existing job). */
  dedupeKey?: string;
  providerId?: string | null;
  subscriptionId?: string | null;
  maxAttempts?: number;
}

export interface JobRecord {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number; // including the current one
  max_attempts: number;
  provider_id: string | null;
  subscription_id: string | null;
}

/** Thrown by a handler that must not be retried (bad payload, a final business refusal). */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

/**
 * Thrown by a handler that cannot do its work yet for a reason outside the job (an older webhook
 * of the same subscription still pending, a provider without a webhook URL): the job runs again
 * at `runAt` and this run does not count as an attempt (nor as a failure; last_error is kept).
 */
export class DeferJob extends Error {
  override name = 'DeferJob';
  constructor(
    readonly runAt: Date,
    reason = 'deferred',
  ) {
    super(reason);
  }
}

export interface JobHandler {
  run(job: JobRecord): Promise<unknown>;
  /** Delay before attempt `attempt + 1` after a failure; default exponential with jitter. */
  backoffMs?(attempt: number, err: unknown): number;
  /** Called once when the job fails for good (attempts exhausted or permanent error). */
  onFailed?(job: JobRecord, err: unknown): Promise<void>;
  /**
   * Runs this kind in a lane of its own with this many slots, instead of in the JOBS_CONCURRENCY
   * slots all other kinds share. For I/O-bound kinds (webhook delivery): a slow receiver then
   * cannot occupy the slots provisioning, mail and billing need, nor the other way round.
   */
  concurrency?: number;
}

export interface JobQueue {
  enqueue(executor: Executor, opts: EnqueueOptions): Promise<{ id: string }>;
  /**
   * The enqueue as a write not yet run, to send with others in one statement (db/together.ts).
   * `id` is the new job's: only for a job without a dedupe key or with one no job can hold yet
   * (a key made from an id just drawn); for a key that may exist, enqueue() finds the existing job.
   */
  enqueueWrite(executor: Executor, opts: EnqueueOptions): { id: string; write: Write };
  register(kind: string, handler: JobHandler): void;
  /** Starts the polling worker (no-op when already started). */
  start(): void;
  /** The polling worker is started and not stopping (GET /readyz). */
  isRunning(): boolean;
  /**
   * Stops claiming and waits for in-flight jobs. With `releaseAfterMs`, jobs still running after
   * that long are handed back (queued again, this attempt not counted) so another process takes
   * them at once instead of after their lease; their late outcome is discarded (fenced).
   */
  stop(opts?: { releaseAfterMs?: number }): Promise<void>;
  /** Tests and scripts: runs due jobs until none is due; returns how many ran. */
  drain(opts?: { maxJobs?: number }): Promise<number>;
  /**
   * Makes the queued jobs with these dedupe keys due now (the thing they waited for happened).
   * A job running at this moment is marked instead: if that run ends in DeferJob, it is due at
   * once rather than at the deferral's time. Finished and unknown keys are left alone.
   * Returns how many jobs were moved or marked.
   */
  runNow(executor: Executor, dedupeKeys: string[]): Promise<number>;
}
