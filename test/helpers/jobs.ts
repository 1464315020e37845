import { sql, type Kysely } from 'kysely';
import type { DB } from '../../src/db/types.js';
import type { JobRecord } from '../../src/jobs/types.js';

/** One call of the claim (migrations/functions/jobs_claim_v2.sql) as the queue makes it, leased for a minute from `now`. */
export async function claimJobs(db: Kysely<DB>, o: { now: Date; kinds: string[]; limit: number; token?: string }) {
  const r = await sql<JobRecord & { prev_status: string }>`
    SELECT * FROM jobs_claim_v2(${o.kinds}::text[], ${o.now}::timestamptz, ${o.limit}::integer, ${o.token ?? 'test-token'}::text,
      ${new Date(o.now.getTime() + 60_000)}::timestamptz)`.execute(db);
  return r.rows;
}
