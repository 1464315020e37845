// DbHandle.warmUp (src/db/database.ts): every connection of the pool opens at start and runs the
// warm-up statements first (the search's PL/pgSQL function compiled before the first search), idle
// connections stay open, and a statement that fails never breaks the connection it ran on.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionWarmUp } from '../../src/container.js';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';

let testDb: TestDb;
beforeAll(async () => {
  testDb = await createTestDb();
});
afterAll(() => testDb.drop());

describe('the search warm-up statement', () => {
  it('runs on a migrated database and finds nothing (the nil provider)', async () => {
    const r = await testDb.handle.db.executeQuery(connectionWarmUp(testDb.handle.db)[0]!);
    expect(r.rows).toEqual([]);
  });
});

describe.skipIf(!usingPostgres())('warmUp on Postgres', () => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await createDb({ databaseUrl: testDb.url!, poolSize: 3 });
  });
  afterAll(() => handle.close());

  it('opens every connection of the pool, each having run the statements first; a failing one is skipped', async () => {
    const name = `warmed_${process.pid}`;
    const mark = sql`SELECT set_config('application_name', ${name}, false)`.compile(handle.db);
    const fails = sql`SELECT no_such_function()`.compile(handle.db);
    await handle.warmUp([fails, mark]);
    expect(handle.poolStats!()).toMatchObject({ total: 3, idle: 3 });
    const warmed = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${name}`.execute(handle.db);
    expect(warmed.rows[0]!.n).toBe(3);
    // The connections answer as before (the failed statement left no aborted transaction behind).
    const answers = await Promise.all([1, 2, 3].map((i) => sql<{ i: number }>`SELECT ${i}::int AS i`.execute(handle.db)));
    expect(answers.map((a) => a.rows[0]!.i)).toEqual([1, 2, 3]);
  });
});

describe.skipIf(usingPostgres())('warmUp on the embedded database', () => {
  it('is a no-op: its one in-process connection is warm after its first use', async () => {
    await expect(testDb.handle.warmUp(connectionWarmUp(testDb.handle.db))).resolves.toBeUndefined();
  });
});
