import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { firstRow } from '../../lib/present.js';

/** Counts one hit on `key`'s window (opened, or reopened once over) and answers the hits and the ms left. */
export async function hitBucket(db: Executor, key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
  const r = await sql<{ hits: number; ttl_ms: number }>`
    INSERT INTO rate_limit_buckets AS b (bucket, hits, window_ends_at)
    VALUES (${key}, 1, clock_timestamp() + ${windowMs} * interval '1 millisecond')
    ON CONFLICT (bucket) DO UPDATE SET
      hits = CASE WHEN b.window_ends_at <= clock_timestamp() THEN 1 ELSE b.hits + 1 END,
      window_ends_at = CASE WHEN b.window_ends_at <= clock_timestamp()
        THEN clock_timestamp() + ${windowMs} * interval '1 millisecond' ELSE b.window_ends_at END
    RETURNING hits, (extract(epoch FROM window_ends_at - clock_timestamp()) * 1000)::int AS ttl_ms`.execute(db);
  const row = firstRow(r.rows);
  return { current: row.hits, ttl: Math.max(0, row.ttl_ms) };
}
