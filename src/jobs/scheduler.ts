import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import type { JobQueue } from './types.js';

interface RecurringOptions {
  /** Shifts the slot boundaries: a daily job with offsetMs 2 h runs from 02:00 UTC. Default 0. */
  offsetMs?: number;
  maxAttempts?: number;
}

export interface Scheduler {
  /**
   * Registers a recurring kind: once per slot of `intervalMs` (slot = floor((now - offset) / interval))
   * a job of `kind` is enqueued with dedupeKey `<kind>:<slot>`, so any number of processes ticking
   * together enqueue it once. The job's payload is `payload` plus `scheduled_at` (the slot's start,
   * ISO 8601). Registering a kind again replaces its schedule. The kind's handler is registered on
   * the job queue as usual.
   */
  every(kind: string, intervalMs: number, payload?: Record<string, unknown>, opts?: RecurringOptions): void;
  /** Enqueues the current slot of every recurring kind (tests call this; start() calls it on a timer). */
  tick(): Promise<{ kind: string; slot: number; jobId: string }[]>;
  /** Ticks now and then at every slot boundary (at least every 15 s). No-op when started. */
  start(): void;
  stop(): void;
}

interface Entry {
  intervalMs: number;
  offsetMs: number;
  payload: Record<string, unknown>;
  maxAttempts?: number;
}

const MAX_SLEEP_MS = 15_000;

/**
 * Recurring jobs without a leader: every process ticks, the dedupe key settles who enqueued.
 * A slot missed while no process ran is not made up; the next slot runs as usual.
 */
export function createScheduler({
  db,
  jobs,
  clock,
  log,
}: {
  db: Db;
  jobs: Pick<JobQueue, 'enqueue'>;
  clock: Clock;
  log: FastifyBaseLogger;
}): Scheduler {
  const entries = new Map<string, Entry>();
  let timer: NodeJS.Timeout | null = null;
  let started = false;

  const slotOf = (e: Entry, nowMs: number) => Math.floor((nowMs - e.offsetMs) / e.intervalMs);

  async function tick() {
    const now = clock.now();
    const out: { kind: string; slot: number; jobId: string }[] = [];
    for (const [kind, e] of entries) {
      const slot = slotOf(e, now.getTime());
      const scheduledAt = new Date(slot * e.intervalMs + e.offsetMs);
      const { id } = await jobs.enqueue(db, {
        kind,
        payload: { ...e.payload, scheduled_at: scheduledAt.toISOString() },
        dedupeKey: `${kind}:${slot}`,
        runAt: now,
        ...(e.maxAttempts ? { maxAttempts: e.maxAttempts } : {}),
      });
      out.push({ kind, slot, jobId: id });
    }
    return out;
  }

  function nextDelay(): number {
    const nowMs = clock.now().getTime();
    let delay = MAX_SLEEP_MS;
    for (const e of entries.values()) {
      const nextStart = (slotOf(e, nowMs) + 1) * e.intervalMs + e.offsetMs;
      delay = Math.min(delay, nextStart - nowMs + 50);
    }
    return Math.max(250, delay);
  }

  function loop() {
    if (!started) return;
    tick()
      .catch((err: unknown) => log.error({ err }, 'scheduler tick failed'))
      .finally(() => {
        if (!started) return;
        timer = setTimeout(loop, nextDelay());
        timer.unref();
      });
  }

  return {
    every(kind, intervalMs, payload = {}, opts = {}) {
      if (!kind) throw new Error('scheduler.every: kind is required');
      if (!Number.isInteger(intervalMs) || intervalMs < 1000)
        throw new Error('scheduler.every: intervalMs must be an integer of at least 1000');
      const offsetMs = opts.offsetMs ?? 0;
      if (!Number.isInteger(offsetMs) || offsetMs < 0 || offsetMs >= intervalMs)
        throw new Error('scheduler.every: offsetMs must be an integer in [0, intervalMs)');
      entries.set(kind, { intervalMs, offsetMs, payload, maxAttempts: opts.maxAttempts });
      if (started && timer) {
        // A shorter interval may need an earlier wake-up than the one pending.
        clearTimeout(timer);
        timer = setTimeout(loop, 0);
        timer.unref();
      }
    },
    tick,
    start() {
      if (started) return;
      started = true;
      loop();
    },
    stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
