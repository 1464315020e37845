import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { executeTogether } from '../../src/db/together.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

// src/db/together.ts: independent writes sent as one statement, on both databases.
describe('executeTogether', () => {
  let testDb: TestDb;
  // Tables of this test only; the schema's own are not needed to prove the statement's semantics.
  const db = () =>
    testDb.handle.db.withTables<{
      tg_parent: { id: number; name: string };
      tg_child: { id: number; parent_id: number };
    }>();
  const rows = async () => ({
    parents: (await db().selectFrom('tg_parent').select('id').orderBy('id').execute()).map((r) => r.id),
    children: (await db().selectFrom('tg_child').select('id').orderBy('id').execute()).map((r) => r.id),
  });

  beforeAll(async () => {
    testDb = await createTestDb();
    await sql`CREATE TABLE tg_parent (id int PRIMARY KEY, name text NOT NULL UNIQUE)`.execute(testDb.handle.db);
    await sql`CREATE TABLE tg_child (id int PRIMARY KEY, parent_id int NOT NULL REFERENCES tg_parent (id))`.execute(testDb.handle.db);
  });
  afterAll(async () => {
    await testDb?.drop();
  });
  beforeEach(async () => {
    await sql`TRUNCATE tg_child, tg_parent`.execute(testDb.handle.db);
  });

  it('runs every write, and a foreign key to a row another write of the statement inserts holds', async () => {
    await executeTogether(db(), [
      db().insertInto('tg_child').values({ id: 10, parent_id: 1 }),
      db().insertInto('tg_parent').values({ id: 1, name: 'a' }),
      db().insertInto('tg_parent').values({ id: 2, name: 'b' }).returning('id'),
    ]);
    expect(await rows()).toEqual({ parents: [1, 2], children: [10] });
  });

  it('is one statement: a violation in the last write leaves the earlier ones unwritten, outside a transaction too', async () => {
    await db().insertInto('tg_parent').values({ id: 1, name: 'taken' }).execute();
    await expect(
      executeTogether(db(), [
        db().insertInto('tg_parent').values({ id: 2, name: 'new' }),
        db().insertInto('tg_child').values({ id: 20, parent_id: 1 }),
        db().insertInto('tg_parent').values({ id: 3, name: 'taken' }),
      ]),
    ).rejects.toThrow(/unique/i);
    expect(await rows()).toEqual({ parents: [1], children: [] });
  });

  it('inside a transaction, the writes commit or roll back with it', async () => {
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await executeTogether(trx, [
            trx.insertInto('tg_parent').values({ id: 5, name: 'e' }),
            trx.insertInto('tg_child').values({ id: 50, parent_id: 5 }),
          ]);
          throw new Error('abort');
        }),
    ).rejects.toThrow('abort');
    expect(await rows()).toEqual({ parents: [], children: [] });
    await db()
      .transaction()
      .execute((trx) =>
        executeTogether(trx, [
          trx.insertInto('tg_parent').values({ id: 6, name: 'f' }),
          trx.insertInto('tg_child').values({ id: 60, parent_id: 6 }),
        ]),
      );
    expect(await rows()).toEqual({ parents: [6], children: [60] });
  });

  it('runs a single write as itself, and nothing for none', async () => {
    await executeTogether(db(), []);
    await executeTogether(db(), [db().updateTable('tg_parent').set({ name: 'x' })]);
    await executeTogether(db(), [db().insertInto('tg_parent').values({ id: 7, name: 'g' })]);
    expect(await rows()).toEqual({ parents: [7], children: [] });
  });
});
