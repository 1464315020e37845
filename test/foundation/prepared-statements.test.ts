import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';

// src/db/prepared.ts: Kysely's statements run as named prepared statements on real Postgres.
// One connection (pool of 1), so pg_prepared_statements shows what that connection prepared.
describe.skipIf(!usingPostgres())('prepared statements (real Postgres)', () => {
  let testDb: TestDb;
  let handle: DbHandle;
  const prepared = async () =>
    (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(handle.db)).rows.map((r) => r.statement);

  beforeAll(async () => {
    testDb = await createTestDb();
    handle = await createDb({ databaseUrl: testDb.url!, poolSize: 1 });
    await sql`CREATE TABLE prep_probe (a int)`.execute(handle.db);
    await sql`INSERT INTO prep_probe VALUES (1)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle?.close();
    await testDb?.drop();
  });

  it('prepares a parameterised statement once per connection and reuses it', async () => {
    const q = () =>
      handle.db
        .selectFrom('prep_probe' as never)
        .select('a' as never)
        .where('a' as never, '=', 1 as never);
    const { sql: text } = q().compile();
    await q().execute();
    await q().execute();
    expect((await prepared()).filter((s) => s === text)).toHaveLength(1);
  });

  it('leaves transaction control unnamed', async () => {
    await handle.db.transaction().execute(async (trx) => sql`SELECT ${1}::int AS one`.execute(trx));
    expect((await prepared()).some((s) => /^(begin|commit)/i.test(s))).toBe(false);
  });

  it('a migration that changes a SELECT * result: repeated once outside a transaction, fails only the call in one', async () => {
    const read = (db = handle.db) =>
      db
        .selectFrom('prep_probe' as never)
        .selectAll()
        .where('a' as never, '=', 1 as never)
        .execute();
    expect(await read()).toEqual([{ a: 1 }]);
    const other = await createDb({ databaseUrl: testDb.url!, poolSize: 1 });
    try {
      await sql`ALTER TABLE prep_probe ADD COLUMN b int`.execute(other.db);
      expect(await read()).toEqual([{ a: 1, b: null }]); // no error reaches the caller

      await sql`ALTER TABLE prep_probe ADD COLUMN c int`.execute(other.db);
      await expect(handle.db.transaction().execute((trx) => read(trx))).rejects.toMatchObject({ code: '0A000' });
      expect(await read()).toEqual([{ a: 1, b: null, c: null }]); // the connection recovered
    } finally {
      await other.close();
    }
  });

  it('stops naming past 500 statements on one connection; the rest still run', async () => {
    const fresh = await createDb({ databaseUrl: testDb.url!, poolSize: 1 });
    try {
      for (let i = 0; i < 520; i++) {
        const r = await sql<{ n: number }>`SELECT ${i}::int + ${sql.raw(String(i))} AS n`.execute(fresh.db);
        expect(r.rows[0]!.n).toBe(2 * i);
      }
      const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(fresh.db);
      expect(count.rows[0]!.n).toBe(500);
    } finally {
      await fresh.close();
    }
  });
});
