import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, concurrentStatement, migrate } from '../../src/db/migrate.js';
import { createDb } from '../../src/db/database.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';

// src/db/migrate.ts: versioned files once, function files again whenever their text changes.
describe('migrator', () => {
  let testDb: TestDb;
  let dir: string;
  const functionText = (name: string, body: string) =>
    `CREATE OR REPLACE FUNCTION ${name}(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ ${body} $$;\n`;
  const fn = (answer: string) => functionText('mt_key', `SELECT '${answer}' || p`);
  const writeFunction = (name: string, body: string) => writeFileSync(path.join(dir, 'functions', `${name}.sql`), functionText(name, body));
  const writeMigration = (name: string, text: string) => writeFileSync(path.join(dir, name), text);

  beforeAll(async () => {
    testDb = await createTestDb(); // migrated from the project's own files
    dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  });
  afterAll(async () => {
    await testDb?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a database at the current files is left alone', async () => {
    expect(await migrate(testDb.handle, dir)).toEqual([]);
  });

  it('a new function file and a migration that indexes it are applied, the function first', async () => {
    writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('old:'));
    writeFileSync(
      path.join(dir, '29990101000000_mt_table.sql'),
      'CREATE TABLE mt_rows (v text NOT NULL);\nINSERT INTO mt_rows SELECT g::text FROM generate_series(1, 50) g;\nCREATE INDEX mt_rows_key_idx ON mt_rows (mt_key(v));\n',
    );
    expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql', '29990101000000_mt_table.sql']);
    const recorded = await sql<{ name: string }>`SELECT name FROM schema_functions WHERE name = 'mt_key.sql'`.execute(testDb.handle.db);
    expect(recorded.rows).toHaveLength(1);
    expect(await migrate(testDb.handle, dir)).toEqual([]);
  });

  const readThroughIndex = (column: string, key: string) =>
    testDb.handle.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT count(*) FROM mt_rows WHERE ${sql.raw(column)} = ${key}`.execute(trx);
      const n = await sql<{ n: number }>`SELECT count(*)::int AS n FROM mt_rows WHERE ${sql.raw(column)} = ${key}`.execute(trx);
      return { plan: plan.rows.map((r) => r['QUERY PLAN']).join('\n'), n: n.rows[0]!.n };
    });
  const filenodes = async () =>
    Object.fromEntries(
      (
        await sql<{ name: string; file: string }>`SELECT relname AS name, pg_relation_filenode(oid)::text AS file FROM pg_class
          WHERE relname IN ('mt_rows_key_idx', 'mt_rows_outer_idx', 'mt_rows_other_idx')`.execute(testDb.handle.db)
      ).rows.map((r) => [r.name, r.file]),
    );
  const recordedSum = async () =>
    (await sql<{ checksum: string }>`SELECT checksum FROM schema_functions WHERE name = 'mt_key.sql'`.execute(testDb.handle.db)).rows[0]
      ?.checksum;

  it('a changed comment in a function file an index is built on is applied, and the index is left alone', async () => {
    const before = await filenodes();
    const sum = await recordedSum();
    writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), `-- The key of a row.\n${fn('old:')}`);
    expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql']);
    expect(await recordedSum()).not.toBe(sum);
    expect(await filenodes()).toEqual(before);
  });

  it.skipIf(!usingPostgres())(
    'on PostgreSQL a changed function an index is built on is refused, and nothing of it is applied',
    async () => {
      const sum = await recordedSum();
      const before = await filenodes();
      writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('new:'));
      await expect(migrate(testDb.handle, dir)).rejects.toThrow(/index mt_rows_key_idx: an index is never rebuilt in place.*new name/);
      expect(await recordedSum()).toBe(sum);
      expect(await filenodes()).toEqual(before);
      expect((await sql<{ k: string }>`SELECT mt_key('7') AS k`.execute(testDb.handle.db)).rows[0]!.k).toBe('old:7');
      expect((await readThroughIndex('mt_key(v)', 'old:7')).n).toBe(1);
      writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('old:'));
    },
  );

  it.skipIf(usingPostgres())(
    'on the embedded database a changed function file is applied again and the indexes over it are rebuilt',
    async () => {
      writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('new:'));
      expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql']);
      // Read through the index only: a stale index would still hold the 'old:' keys.
      const fresh = await readThroughIndex('mt_key(v)', 'new:7');
      expect(fresh.plan).toMatch(/mt_rows_key_idx/);
      expect(fresh.n).toBe(1);
      expect((await readThroughIndex('mt_key(v)', 'old:7')).n).toBe(0);
    },
  );

  it('the indexes over a function that calls the changed one are rebuilt (embedded) or named in the refusal (PostgreSQL), the others left alone', async () => {
    writeFunction('mt_outer', "SELECT public.mt_key(p) || '!'");
    writeFunction('mt_other', "SELECT 'x' || p");
    writeMigration(
      '29990102000000_mt_more.sql',
      'CREATE INDEX mt_rows_outer_idx ON mt_rows (mt_outer(v));\nCREATE INDEX mt_rows_other_idx ON mt_rows (mt_other(v));\n',
    );
    await migrate(testDb.handle, dir);
    const before = await filenodes();
    const current = (await sql<{ k: string }>`SELECT mt_outer('7') AS k`.execute(testDb.handle.db)).rows[0]!.k;
    writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('newer:'));
    if (usingPostgres()) {
      await expect(migrate(testDb.handle, dir)).rejects.toThrow(/index mt_rows_key_idx, mt_rows_outer_idx: /);
      expect(await filenodes()).toEqual(before);
      expect((await readThroughIndex('mt_outer(v)', current)).n).toBe(1);
      writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn(current.slice(0, -2)));
      return;
    }
    expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql']);
    const after = await filenodes();
    expect(after.mt_rows_key_idx).not.toBe(before.mt_rows_key_idx);
    expect(after.mt_rows_outer_idx).not.toBe(before.mt_rows_outer_idx);
    expect(after.mt_rows_other_idx).toBe(before.mt_rows_other_idx);
    // Read through the outer index only: a stale one would still hold the old key.
    expect((await readThroughIndex('mt_outer(v)', 'newer:7!')).n).toBe(1);
    expect((await readThroughIndex('mt_outer(v)', current)).n).toBe(0);
  });

  it('a changed function takes a new name: its index is built by a no-transaction migration, valid, and read', async () => {
    writeFunction('mt_key_v2', "SELECT 'v2:' || p");
    writeMigration(
      '29990103000000_mt_key_v2.sql',
      '-- migrate: no-transaction\n-- The key index over the new function, built beside the old one.\nCREATE INDEX CONCURRENTLY IF NOT EXISTS mt_rows_key_v2_idx ON mt_rows (mt_key_v2(v));\n',
    );
    writeMigration('29990104000000_mt_key_v1_gone.sql', '-- migrate: no-transaction\nDROP INDEX CONCURRENTLY IF EXISTS mt_rows_key_idx;\n');
    expect(await migrate(testDb.handle, dir)).toEqual([
      'functions/mt_key_v2.sql',
      '29990103000000_mt_key_v2.sql',
      '29990104000000_mt_key_v1_gone.sql',
    ]);
    const built = await readThroughIndex('mt_key_v2(v)', 'v2:7');
    expect(built.plan).toMatch(/mt_rows_key_v2_idx/);
    expect(built.n).toBe(1);
    const left = await sql<{ name: string }>`SELECT relname AS name FROM pg_class WHERE relname LIKE 'mt_rows_key%' ORDER BY 1`.execute(
      testDb.handle.db,
    );
    expect(left.rows.map((r) => r.name)).toEqual(['mt_rows_key_v2_idx']);
    const recorded = await sql<{
      name: string;
    }>`SELECT name FROM schema_migrations WHERE name >= '29990103' AND name < '29990105' ORDER BY 1`.execute(testDb.handle.db);
    expect(recorded.rows.map((r) => r.name)).toEqual(['29990103000000_mt_key_v2.sql', '29990104000000_mt_key_v1_gone.sql']);
  });

  it('an index left invalid by an interrupted concurrent build is built again, not kept', async () => {
    // What a build that failed half-way leaves: the index exists, marked invalid, and the file is not recorded.
    await sql`CREATE INDEX mt_rows_half_idx ON mt_rows (v)`.execute(testDb.handle.db);
    await sql`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'mt_rows_half_idx'::regclass`.execute(testDb.handle.db);
    writeFileSync(
      path.join(dir, '29990105000000_mt_half.sql'),
      '-- migrate: no-transaction\nCREATE INDEX CONCURRENTLY IF NOT EXISTS mt_rows_half_idx ON mt_rows (v);\n',
    );
    expect(await migrate(testDb.handle, dir)).toEqual(['29990105000000_mt_half.sql']);
    const valid = await sql<{ v: boolean }>`SELECT indisvalid AS v FROM pg_index WHERE indexrelid = 'mt_rows_half_idx'::regclass`.execute(
      testDb.handle.db,
    );
    expect(valid.rows[0]!.v).toBe(true);
  });

  it('a no-transaction file holds one concurrent index build or drop, and nothing else runs', async () => {
    expect(concurrentStatement('a.sql', '-- migrate: no-transaction\nCREATE UNIQUE INDEX CONCURRENTLY x_idx ON t (mt(v));\n')).toEqual({
      statement: 'CREATE UNIQUE INDEX CONCURRENTLY x_idx ON t (mt(v))',
      builds: 'x_idx',
    });
    expect(concurrentStatement('b.sql', '-- migrate: no-transaction\nDROP INDEX CONCURRENTLY IF EXISTS x_idx;')).toEqual({
      statement: 'DROP INDEX CONCURRENTLY IF EXISTS x_idx',
      builds: null,
    });
    expect(() => concurrentStatement('c.sql', 'CREATE INDEX CONCURRENTLY a ON t (v); DROP TABLE t;')).toThrow(/one statement/);
    expect(() => concurrentStatement('d.sql', 'CREATE INDEX a ON t (v)')).toThrow(/CREATE INDEX CONCURRENTLY or DROP INDEX CONCURRENTLY/);
    expect(() => concurrentStatement('e.sql', 'UPDATE t SET v = 1')).toThrow(/CREATE INDEX CONCURRENTLY or DROP INDEX CONCURRENTLY/);
    writeFileSync(path.join(dir, '29990106000000_mt_bad.sql'), '-- migrate: no-transaction\nDROP TABLE mt_rows;\n');
    await expect(migrate(testDb.handle, dir)).rejects.toThrow(
      /29990106000000_mt_bad.sql: a no-transaction migration holds one CREATE INDEX/,
    );
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM mt_rows`.execute(testDb.handle.db)).rows[0]!.n).toBe(50);
    rmSync(path.join(dir, '29990106000000_mt_bad.sql'));
  });

  it('a batches file runs its statement in short transactions, each from the key the last one answered, until done', async () => {
    writeMigration('29990107000000_mt_w.sql', 'ALTER TABLE mt_rows ADD COLUMN w text;\n');
    writeMigration(
      '29990108000000_mt_w_backfill.sql',
      `-- migrate: batches
-- w for every row, seven rows (in v order) per transaction.
WITH b AS (SELECT v FROM mt_rows WHERE $1::text IS NULL OR v > $1::text ORDER BY v LIMIT 7),
u AS (UPDATE mt_rows m SET w = 'x' || m.v FROM b WHERE m.v = b.v AND m.w IS NULL)
SELECT max(v) AS last FROM b;
`,
    );
    // On PostgreSQL through a pool of one connection, which the migration lock's session holds: every
    // read of the migrator (and each batch) runs on that session, or it would wait for itself.
    const one = usingPostgres() ? await createDb({ databaseUrl: testDb.url!, poolSize: 1 }) : testDb.handle;
    try {
      expect(await migrate(one, dir)).toEqual(['29990107000000_mt_w.sql', '29990108000000_mt_w_backfill.sql']);
    } finally {
      if (one !== testDb.handle) await one.close();
    }
    const r = await sql<{ done: number; batches: number }>`SELECT count(*) FILTER (WHERE w = 'x' || v)::int AS done,
      count(DISTINCT xmin::text)::int AS batches FROM mt_rows`.execute(testDb.handle.db);
    // 50 rows, 7 per batch: 8 transactions wrote them.
    expect(r.rows[0]).toEqual({ done: 50, batches: 8 });
    expect(await migrate(testDb.handle, dir)).toEqual([]);

    writeMigration('29990109000000_mt_no_key.sql', '-- migrate: batches\nUPDATE mt_rows SET w = v;\n');
    await expect(migrate(testDb.handle, dir)).rejects.toThrow(
      /29990109000000_mt_no_key.sql: a batches migration takes the last key as \$1/,
    );
    rmSync(path.join(dir, '29990109000000_mt_no_key.sql'));
    writeMigration('29990110000000_mt_stuck.sql', "-- migrate: batches\nSELECT coalesce($1::text, '1') AS last;\n");
    await expect(migrate(testDb.handle, dir)).rejects.toThrow(/29990110000000_mt_stuck.sql: a batch answered the key it was given/);
    rmSync(path.join(dir, '29990110000000_mt_stuck.sql'));
    const recorded = await sql<{ name: string }>`SELECT name FROM schema_migrations WHERE name >= '29990109' ORDER BY 1`.execute(
      testDb.handle.db,
    );
    expect(recorded.rows).toEqual([]);
  });

  it('a function counts as changed through every function that calls it, and only through those', async () => {
    const { affectedFunctions } = await import('../../src/db/migrate.js');
    const file = (name: string, body: string) => ({ text: `CREATE OR REPLACE FUNCTION ${name}(p text) RETURNS text AS $$ ${body} $$;` });
    const files = [
      file('a', 'SELECT p'),
      file('b', 'SELECT a(p)'),
      file('c', 'SELECT b(p)'),
      file('ab', 'SELECT p'),
      file('d', 'SELECT ab(p)'),
    ];
    expect(affectedFunctions(files, [files[0]!]).sort()).toEqual(['a', 'b', 'c']);
    expect(affectedFunctions(files, [files[3]!]).sort()).toEqual(['ab', 'd']);
    // A comment that names a function is not a call: e names a in its comment only.
    const commented = [...files, { text: `-- Works like a(p), see a.sql.\n${file('e', 'SELECT p -- not a(p)').text}` }];
    expect(affectedFunctions(commented, [files[0]!]).sort()).toEqual(['a', 'b', 'c']);
    // '--' inside a string literal starts no comment: f still calls a after it.
    const literal = [...files, file('f', "SELECT regexp_split_to_array(p, '--') || a(p)")];
    expect(affectedFunctions(literal, [files[0]!]).sort()).toEqual(['a', 'b', 'c', 'f']);
  });
});
