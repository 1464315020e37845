import type { Db } from '../../db/database.js';
import { hitBucket } from './rate-limit.repository.js';

export interface RateLimitCounterDeps {
  db: Db;
}

/** A hit on a limiter bucket, counted in Postgres so several processes share one budget. */
export type RateLimitCounter = (key: string, windowMs: number) => Promise<{ current: number; ttl: number }>;

/** The shared store behind RATE_LIMIT_STORE=postgres; the database's clock times the windows. */
export function createRateLimitCounter({ db }: RateLimitCounterDeps): RateLimitCounter {
  return (key, windowMs) => hitBucket(db, key, windowMs);
}
