import { present } from '../lib/present.js';
/**
 * The Standard Webhooks retry schedule: the first attempt at once, then these delays after each
 * failed attempt; after the last one fails the delivery is marked failed (10 attempts in all).
 */
export const WEBHOOK_RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;

export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/** Jitter is added, never subtracted: at most 10 % of the step and at most 5 minutes. */
const WEBHOOK_JITTER_FRACTION = 0.1;
const WEBHOOK_JITTER_CAP_MS = 5 * 60_000;

/** A Retry-After longer than this is capped (the longest step of the schedule). */
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/** Statuses whose Retry-After header is honoured. */
export const RETRY_AFTER_STATUSES = new Set([429, 502, 504]);

/**
 * Delay before the next attempt after failed attempt number `attempt` (1-based), or null when it
 * was the last. A Retry-After (ms) is honoured as a floor: never sooner than the receiver asked,
 * never sooner than the schedule.
 */
export function nextRetryDelayMs(attempt: number, retryAfterMs: number | null = null, random: () => number = Math.random): number | null {
  if (attempt >= WEBHOOK_MAX_ATTEMPTS) return null;
  const step = present(WEBHOOK_RETRY_DELAYS_MS[attempt - 1], `the delay after attempt ${attempt}`);
  const jitter = Math.floor(random() * Math.min(step * WEBHOOK_JITTER_FRACTION, WEBHOOK_JITTER_CAP_MS));
  const scheduled = step + jitter;
  if (retryAfterMs === null) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/** Retry-After as delta-seconds or an HTTP date (relative to `now`); null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
