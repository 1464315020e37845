// The claim's plan must not depend on the statistics of the jobs table. jobs_claim_v2 runs with a generic
// plan, made once per connection and kept until the table's statistics change; made while the table
// was empty (a new deployment, or a bench database loaded and vacuumed with no job), it joined
// "the rows to claim" against a whole read of jobs, once per claim. A burst of 20,000 webhooks then
// drained at 185-337 a second instead of about 2,000 (bench/README.md), until an ANALYZE of jobs
// replanned it. Every read of jobs in the claim is an index walk or a TID scan, whatever the statistics say;
// jobs_run_now's key lookup, planned then too, stays one as well.
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';
import { claimJobs } from '../helpers/jobs.js';

let t: TestApp;
let providerId: string;
beforeAll(async () => {
  t = await buildTestApp();
  providerId = (await createProvider(t.db)).id;
});
afterAll(() => t.close());

const claim = (db: Kysely<DB>, kinds: string[], limit: number) => claimJobs(db, { now: t.clock.now(), kinds, limit });

/** Rows of jobs the current transaction has read so far, by sequential and index scans. */
async function rowsReadOfJobs(db: Kysely<DB>) {
  const r = await sql<{ n: string }>`
    SELECT seq_tup_read + idx_tup_fetch AS n FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

describe('jobs_claim_v2: a plan made while the table was empty', () => {
  it('claims from a burst of 2,000 reading a few rows, not the whole table', async () => {
    await sql`DELETE FROM jobs`.execute(t.db);
    // The statistics of an empty table, as after a fresh load, a restore or a new deployment's first VACUUM.
    await sql`VACUUM ANALYZE jobs`.execute(t.db);
    const now = t.clock.now();
    const later = new Date(now.getTime() + 3_600_000); // the last job of the burst is due in an hour
    await t.db.connection().execute(async (conn) => {
      // The connection makes its generic plan now, with the table empty.
      expect(await claim(conn, ['test.plans.burst'], 16)).toEqual([]);
      await sql`
        INSERT INTO jobs (id, kind, provider_id, payload, status, run_at, created_at, updated_at, dedupe_key)
        SELECT gen_random_uuid(), 'test.plans.burst', ${providerId}::uuid, '{}'::jsonb, 'queued',
          CASE WHEN g = 2000 THEN ${later}::timestamptz ELSE ${now}::timestamptz END, ${now}::timestamptz,
          ${now}::timestamptz, 'test.plans.' || g
        FROM generate_series(1, 2000) AS g`.execute(conn);
      // jobs_run_now makes its plan now too: no job has that key.
      const none = await sql<{ n: number }>`SELECT jobs_run_now(ARRAY['nothing.queued'], ${t.clock.now()}::timestamptz) AS n`.execute(conn);
      expect(none.rows).toEqual([{ n: 0 }]);
      for (const kinds of [['test.plans.burst'], ['test.plans.other']]) {
        await conn.transaction().execute(async (trx) => {
          const got = await claim(trx, kinds, 16);
          // 16 claimed: the 16 it locks and updates, and the heads; 2,000 or more when it reads the table.
          const read = await rowsReadOfJobs(trx);
          expect({ kinds, claimed: got.length, readFew: read <= 100, read }).toEqual({
            kinds,
            claimed: kinds[0] === 'test.plans.burst' ? 16 : 0,
            readFew: true,
            read,
          });
        });
      }
      // jobs_run_now, its plan also made while the table was empty: the job due in an hour woken by its key.
      await conn.transaction().execute(async (trx) => {
        const r = await sql<{ n: number }>`SELECT jobs_run_now(ARRAY['test.plans.2000'], ${t.clock.now()}::timestamptz) AS n`.execute(trx);
        const read = await rowsReadOfJobs(trx);
        expect({ woken: r.rows[0]!.n, readFew: read <= 100, read }).toEqual({ woken: 1, readFew: true, read });
      });
    });
  });
});
