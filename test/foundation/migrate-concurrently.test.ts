import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database.js';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { createProvider } from '../helpers/factories.js';

// src/db/migrate.ts on PostgreSQL: an index over a new function is built while `subscribers` is
// read and written, and two processes that migrate at once both finish.
describe.skipIf(!usingPostgres())('migrator, concurrent index builds (PostgreSQL)', () => {
  let testDb: TestDb;
  let dir: string;
  let providerId: string;
  // Each row costs the build at least 2 ms (pg_sleep sleeps no less), so a build over the table
  // lasts longer than the writer's 1 s lock_timeout on any machine.
  const ROWS = 700;

  beforeAll(async () => {
    testDb = await createTestDb();
    dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'functions', 'mt_slow_key.sql'),
      'CREATE OR REPLACE FUNCTION mt_slow_key(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN PERFORM pg_sleep(0.002); RETURN lower(p); END $$;\n',
    );
    await migrate(testDb.handle, dir);
    providerId = (await createProvider(testDb.handle.db)).id;
    await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, email)
      SELECT gen_random_uuid(), ${providerId}, 'First' || g, 'Last' || g, 'c' || g || '@example.test'
      FROM generate_series(1, ${ROWS}) g`.execute(testDb.handle.db);
  });
  afterAll(async () => {
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Writes to `subscribers` (an update and an insert, each its own transaction) from a connection
   * whose lock_timeout is 1 s, until `work` ends: any write that waits longer for a lock fails.
   */
  async function writingThroughout(work: () => Promise<unknown>) {
    const writer = new pg.Client({ connectionString: testDb.url });
    await writer.connect();
    await writer.query(`SET lock_timeout = '1s'`);
    const target = (await writer.query<{ id: string }>('SELECT id FROM subscribers LIMIT 1')).rows[0]!.id;
    let done = false;
    let writes = 0;
    const failures: string[] = [];
    const loop = (async () => {
      for (let i = 0; !done; i++) {
        try {
          await writer.query('UPDATE subscribers SET first_name = $1 WHERE id = $2', [`Writer${i}`, target]);
          await writer.query(
            `INSERT INTO subscribers (id, provider_id, first_name, last_name, email) VALUES (gen_random_uuid(), $1, 'New', $2, $3)`,
            [providerId, `Writer${i}`, `w${i}@example.test`],
          );
          writes += 2;
        } catch (err) {
          failures.push(String(err));
        }
      }
    })();
    try {
      await work();
    } finally {
      done = true;
      await loop;
      await writer.end();
    }
    return { writes, failures };
  }

  it('an index over a new function is built concurrently: writes go on and none waits a second', async () => {
    writeFileSync(
      path.join(dir, '29990201000000_mt_slow_idx.sql'),
      '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS subscribers_mt_slow_idx ON subscribers (mt_slow_key(last_name));\n',
    );
    const result = await writingThroughout(() => migrate(testDb.handle, dir));
    expect(result.failures).toEqual([]);
    expect(result.writes).toBeGreaterThan(10);
    const index = await sql<{ valid: boolean }>`SELECT indisvalid AS valid FROM pg_index
      WHERE indexrelid = 'subscribers_mt_slow_idx'::regclass`.execute(testDb.handle.db);
    expect(index.rows).toEqual([{ valid: true }]);
    // Every row written during the build is in the index (read through it alone).
    const counted = await testDb.handle.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      const viaIndex = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscribers
        WHERE mt_slow_key(last_name) = ANY (ARRAY(SELECT lower(last_name) FROM subscribers WHERE last_name LIKE 'Writer%'))`.execute(trx);
      const all = await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscribers WHERE last_name LIKE 'Writer%'`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT 1 FROM subscribers WHERE mt_slow_key(last_name) = 'writer1'`.execute(
        trx,
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/subscribers_mt_slow_idx/);
      return { viaIndex: viaIndex.rows[0]!.n, all: all.rows[0]!.n };
    });
    expect(counted.viaIndex).toBe(counted.all);
  });

  it('the same build inside a transaction (what the migrator no longer does) makes a writer wait past 1 s', async () => {
    // The writer is the measure: this shows it catches a build that blocks the table.
    await sql`DELETE FROM subscribers WHERE first_name = 'New'`.execute(testDb.handle.db);
    const blocking = await writingThroughout(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await sql`CREATE INDEX subscribers_mt_blocking_idx ON subscribers (mt_slow_key(first_name))`.execute(testDb.handle.db);
    });
    expect(blocking.failures.some((f) => /lock timeout/.test(f))).toBe(true);
    await sql`DROP INDEX subscribers_mt_blocking_idx`.execute(testDb.handle.db);
  });

  it('two processes migrating at once both finish, one of them building the index', async () => {
    writeFileSync(
      path.join(dir, '29990202000000_mt_email_idx.sql'),
      '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS subscribers_mt_email_idx ON subscribers (upper(email));\n',
    );
    const second = await createDb({ databaseUrl: testDb.url, poolSize: 2 });
    try {
      const [a, b] = await Promise.all([migrate(testDb.handle, dir), migrate(second, dir)]);
      expect([...a, ...b]).toEqual(['29990202000000_mt_email_idx.sql']);
    } finally {
      await second.close();
    }
  });
});
