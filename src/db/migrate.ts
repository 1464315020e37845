import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { DbHandle } from './database.js';

// The SQL files stay at the repository root: two levels up from src/db/ (tsx), three from the
// compiled dist/src/db/ (`npm run build`), so one copy serves both.
const here = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR =
  [path.resolve(here, '../../migrations'), path.resolve(here, '../../../migrations')].find((d) => existsSync(d)) ??
  path.resolve(here, '../../migrations');

const MIGRATION_LOCK = 727_001; // an arbitrary constant shared by every process of this service
const SAFE_NAME = /^[\w.-]+$/;

async function sqlFiles(dir: string): Promise<string[]> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.sql')).sort();
  for (const f of files) if (!SAFE_NAME.test(f)) throw new Error(`migration file name not allowed: ${f}`);
  return files;
}

const checksum = (text: string) => createHash('sha256').update(text).digest('hex');

/** The names a function file defines (`CREATE OR REPLACE FUNCTION name(`), for the index rebuild. */
const definedFunctions = (text: string) => [...text.matchAll(/CREATE\s+OR\s+REPLACE\s+FUNCTION\s+(\w+)\s*\(/gi)].map((m) => m[1]!);

/**
 * A file's text without its `--` comments: a comment that names a function does not call it. A
 * string literal is kept whole ('--' in a literal starts no comment).
 */
const withoutComments = (text: string) => text.replace(/'(?:[^']|'')*'|--[^\n]*/g, (m) => (m.startsWith("'") ? m : ''));

/**
 * The functions whose answers may change with the changed files: those the files define, and every
 * function of a file that names one of them, again and again (an index over agent_search_name_keys
 * depends on agent_search_name_words, which it calls; PostgreSQL records no dependency between the
 * bodies of functions, so the texts tell).
 */
export function affectedFunctions(files: { text: string }[], changed: { text: string }[]): string[] {
  const affected = new Set(changed.flatMap((f) => definedFunctions(withoutComments(f.text))));
  for (let grew = true; grew;) {
    grew = false;
    for (const f of files) {
      const code = withoutComments(f.text);
      const names = definedFunctions(code);
      if (names.every((n) => affected.has(n)) || ![...affected].some((a) => new RegExp(`\\b${a}\\b`).test(code))) continue;
      for (const n of names) affected.add(n);
      grew = true;
    }
  }
  return [...affected];
}

/** What the files ask for: the versioned migrations' names, and each function file's checksum. */
export async function expectedSchema(dir = MIGRATIONS_DIR): Promise<{ migrations: string[]; functions: Map<string, string> }> {
  const functionsDir = path.join(dir, 'functions');
  const functionFiles = await sqlFiles(functionsDir);
  const sums = await Promise.all(functionFiles.map(async (f) => checksum(await readFile(path.join(functionsDir, f), 'utf8'))));
  return { migrations: await sqlFiles(dir), functions: new Map(functionFiles.map((f, i) => [f, sums[i]!])) };
}

/**
 * Brings the schema up to date, under one advisory lock:
 * 1. every file of migrations/functions/ whose text changed since it was last applied (or that is
 *    new) is applied again, recorded with its checksum in `schema_functions`. Function bodies are not
 *    checked at creation (check_function_bodies off), so the files need no order among themselves
 *    and may refer to tables a pending migration creates. When a file changed, every index whose
 *    expression calls one of its functions, or a function that calls one (affectedFunctions), is
 *    rebuilt in the same transaction: an index over an IMMUTABLE function would otherwise keep the old
 *    function's answers. The others are left alone (a rebuild at a million rows takes minutes and
 *    blocks the table's reads and writes).
 * 2. every migrations/*.sql not yet recorded in `schema_migrations` is applied, in name order, each
 *    in its own transaction together with its row. These are never edited once a release is tagged.
 * Returns the names applied (functions as `functions/<file>`).
 */
export async function migrate(handle: DbHandle, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await sqlFiles(dir);
  const functionsDir = path.join(dir, 'functions');
  const functionFiles = await sqlFiles(functionsDir);
  return handle.withScriptSession(MIGRATION_LOCK, async (run) => {
    await run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE IF NOT EXISTS schema_functions (
      name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const ran: string[] = [];

    const known = await sql<{ name: string; checksum: string }>`SELECT name, checksum FROM schema_functions`.execute(handle.db);
    const applied = new Map(known.rows.map((r) => [r.name, r.checksum]));
    const texts = await Promise.all(functionFiles.map((f) => readFile(path.join(functionsDir, f), 'utf8')));
    const changed = functionFiles
      .map((f, i) => ({ file: f, text: texts[i]!, sum: checksum(texts[i]!) }))
      .filter((f) => applied.get(f.file) !== f.sum);
    if (changed.length > 0) {
      const rebuild = affectedFunctions(
        texts.map((text) => ({ text })),
        changed,
      );
      const statements = changed.map(
        (f) => `${f.text}\n;INSERT INTO schema_functions (name, checksum) VALUES ('${f.file}', '${f.sum}')
          ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now();`,
      );
      // Only a database that has such indexes has anything to rebuild (a new one has no tables yet).
      const reindex = `DO $reindex$ DECLARE r record; BEGIN
        FOR r IN SELECT DISTINCT d.objid::regclass AS idx FROM pg_depend d
          JOIN pg_proc p ON p.oid = d.refobjid AND d.refclassid = 'pg_proc'::regclass
          JOIN pg_index i ON i.indexrelid = d.objid AND d.classid = 'pg_class'::regclass
          WHERE p.proname = ANY (ARRAY[${rebuild.map((n) => `'${n}'`).join(', ')}]::text[])
        LOOP EXECUTE format('REINDEX INDEX %s', r.idx); END LOOP; END $reindex$;`;
      await run(`SET LOCAL check_function_bodies = off;\n${statements.join('\n')}\n${reindex}`);
      ran.push(...changed.map((f) => `functions/${f.file}`));
    }

    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(handle.db);
    const migrated = new Set(done.rows.map((r) => r.name));
    for (const file of files) {
      if (migrated.has(file)) continue;
      const text = await readFile(path.join(dir, file), 'utf8');
      await run(`${text}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');`);
      ran.push(file);
    }
    return ran;
  });
}
