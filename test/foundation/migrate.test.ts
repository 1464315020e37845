import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

// src/db/migrate.ts: versioned files once, function files again whenever their text changes.
describe('migrator', () => {
  let testDb: TestDb;
  let dir: string;
  const fn = (answer: string) =>
    `CREATE OR REPLACE FUNCTION mt_key(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT '${answer}' || p $$;\n`;

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

  it('a changed function file is applied again and the indexes over it are rebuilt', async () => {
    writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('new:'));
    expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql']);
    // Read through the index only: a stale index would still hold the 'old:' keys.
    const found = await testDb.handle.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT count(*) FROM mt_rows WHERE mt_key(v) = 'new:7'`.execute(trx);
      const hits = await sql<{ n: number }>`SELECT count(*)::int AS n FROM mt_rows WHERE mt_key(v) = 'new:7'`.execute(trx);
      const stale = await sql<{ n: number }>`SELECT count(*)::int AS n FROM mt_rows WHERE mt_key(v) = 'old:7'`.execute(trx);
      return { plan: plan.rows.map((r) => r['QUERY PLAN']).join('\n'), hits: hits.rows[0]!.n, stale: stale.rows[0]!.n };
    });
    expect(found.plan).toMatch(/mt_rows_key_idx/);
    expect(found).toMatchObject({ hits: 1, stale: 0 });
  });

  it("rebuilds the indexes over a function that calls the changed one, and leaves the others' alone", async () => {
    writeFileSync(
      path.join(dir, 'functions', 'mt_outer.sql'),
      `CREATE OR REPLACE FUNCTION mt_outer(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT public.mt_key(p) || '!' $$;\n`,
    );
    writeFileSync(
      path.join(dir, 'functions', 'mt_other.sql'),
      `CREATE OR REPLACE FUNCTION mt_other(p text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'x' || p $$;\n`,
    );
    writeFileSync(
      path.join(dir, '29990102000000_mt_more.sql'),
      'CREATE INDEX mt_rows_outer_idx ON mt_rows (mt_outer(v));\nCREATE INDEX mt_rows_other_idx ON mt_rows (mt_other(v));\n',
    );
    await migrate(testDb.handle, dir);
    const files = async () =>
      Object.fromEntries(
        (
          await sql<{ name: string; file: string }>`SELECT relname AS name, pg_relation_filenode(oid)::text AS file FROM pg_class
            WHERE relname IN ('mt_rows_key_idx', 'mt_rows_outer_idx', 'mt_rows_other_idx')`.execute(testDb.handle.db)
        ).rows.map((r) => [r.name, r.file]),
      );
    const before = await files();
    writeFileSync(path.join(dir, 'functions', 'mt_key.sql'), fn('newer:'));
    expect(await migrate(testDb.handle, dir)).toEqual(['functions/mt_key.sql']);
    const after = await files();
    expect(after.mt_rows_key_idx).not.toBe(before.mt_rows_key_idx);
    expect(after.mt_rows_outer_idx).not.toBe(before.mt_rows_outer_idx);
    expect(after.mt_rows_other_idx).toBe(before.mt_rows_other_idx);
    // Read through the outer index only: a stale one would still hold 'new:7!'.
    const hits = await testDb.handle.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      const n = async (key: string) =>
        (await sql<{ n: number }>`SELECT count(*)::int AS n FROM mt_rows WHERE mt_outer(v) = ${key}`.execute(trx)).rows[0]!.n;
      return { fresh: await n('newer:7!'), stale: await n('new:7!') };
    });
    expect(hits).toEqual({ fresh: 1, stale: 0 });
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
