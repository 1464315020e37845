import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DbHandle, ScriptRunner, SessionQuery } from './database.js';

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

/** The first line of a versioned file that runs outside a transaction (migrations/README.md). */
const NO_TRANSACTION = /^--\s*migrate:\s*no-transaction\b/i;
const CONCURRENT_CREATE = /^CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+ON\s/i;
const CONCURRENT_DROP = /^DROP\s+INDEX\s+CONCURRENTLY\s+(?:IF\s+EXISTS\s+)?\w+$/i;
/** The first line of a versioned file that runs as a series of short transactions (migrations/README.md). */
const BATCHES = /^--\s*migrate:\s*batches\b/i;

/**
 * The one statement of a no-transaction file, and the index it builds (null: it drops one). Only a
 * concurrent index build or drop may run outside a transaction: anything else half-done by a
 * failure would stay half-done.
 */
export function concurrentStatement(file: string, text: string): { statement: string; builds: string | null } {
  const code = withoutComments(text).trim().replace(/;\s*$/, '').trim();
  if (code.includes(';')) throw new Error(`migrations/${file}: a no-transaction migration holds one statement`);
  const create = CONCURRENT_CREATE.exec(code);
  if (create) return { statement: code, builds: create[1]! };
  if (CONCURRENT_DROP.test(code)) return { statement: code, builds: null };
  throw new Error(`migrations/${file}: a no-transaction migration holds one CREATE INDEX CONCURRENTLY or DROP INDEX CONCURRENTLY`);
}

/**
 * Runs a no-transaction file: an index left invalid by an earlier, interrupted build of the same
 * name is dropped first (IF NOT EXISTS would otherwise keep it), and the build must end valid
 * before the file is recorded.
 */
async function runConcurrently(run: ScriptRunner, query: SessionQuery, file: string, text: string) {
  const { statement, builds } = concurrentStatement(file, text);
  const validity = async () =>
    (await query<{ valid: boolean }>('SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)', [builds]))[0]
      ?.valid;
  if (builds && (await validity()) === false) await run(`DROP INDEX CONCURRENTLY ${builds}`, { transaction: false });
  await run(statement, { transaction: false });
  if (builds && (await validity()) !== true) throw new Error(`migrations/${file}: index ${builds} was not built valid`);
  await run(`INSERT INTO schema_migrations (name) VALUES ('${file}')`);
}

/**
 * Runs a batches file: its one statement again and again, each run a transaction of its own, with $1
 * the key it answered the time before (NULL at first), until it answers NULL; then the file is
 * recorded. A backfill of every row in one transaction would hold them all locked until it commits.
 * An interrupted series starts again from the first batch (the statement skips rows already done).
 */
async function runBatches(run: ScriptRunner, query: SessionQuery, file: string, text: string) {
  const statement = withoutComments(text).trim().replace(/;\s*$/, '').trim();
  if (statement.includes(';')) throw new Error(`migrations/${file}: a batches migration holds one statement`);
  if (!statement.includes('$1')) throw new Error(`migrations/${file}: a batches migration takes the last key as $1`);
  let last: unknown = null;
  do {
    const [row] = await query<Record<string, unknown>>(statement, [last]);
    if (!row || Object.keys(row).length !== 1) throw new Error(`migrations/${file}: a batch answers one row of one column`);
    const next = Object.values(row)[0] ?? null;
    if (next !== null && next === last) throw new Error(`migrations/${file}: a batch answered the key it was given`);
    last = next;
  } while (last !== null);
  await run(`INSERT INTO schema_migrations (name) VALUES ('${file}')`);
}

const quoted = (names: string[]) => `ARRAY[${names.map((n) => `'${n}'`).join(', ')}]::text[]`;

/** Keeps the definitions of the functions the changed files define, to tell a changed function from a changed comment. */
const definitionsBefore = (changed: { text: string }[]) =>
  `CREATE TEMP TABLE migrate_definitions ON COMMIT DROP AS SELECT p.oid, pg_get_functiondef(p.oid) AS def FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.proname = ANY (${quoted(changed.flatMap((f) => definedFunctions(withoutComments(f.text))))});`;

/**
 * After the changed files are applied (same transaction): the indexes whose expressions call a
 * function whose definition changed, or a function that calls one (affectedFunctions). On
 * PostgreSQL such a change is refused (the transaction rolls back): rebuilding the index in place
 * blocks its table, and rebuilding it concurrently would let queries read the old index with the
 * new function meanwhile. The changed function takes a new name instead (migrations/README.md). The
 * embedded database serves one process, which is not serving while it migrates: there the indexes
 * are rebuilt in place.
 */
function indexesOverChanged(files: { text: string }[], changed: { text: string }[], embedded: boolean) {
  const checks = changed.map((f) => {
    const names = definedFunctions(withoutComments(f.text));
    return `IF EXISTS (SELECT 1 FROM pg_proc p LEFT JOIN migrate_definitions d ON d.oid = p.oid
        WHERE p.pronamespace = 'public'::regnamespace AND p.proname = ANY (${quoted(names)})
          AND d.def IS DISTINCT FROM pg_get_functiondef(p.oid)) THEN
      touched := touched || ${quoted(affectedFunctions(files, [f]))};
    END IF;`;
  });
  return `DO $migrate$ DECLARE touched text[] := '{}'; found text[]; i text; BEGIN
    ${checks.join('\n    ')}
    SELECT array_agg(DISTINCT d.objid::regclass::text ORDER BY d.objid::regclass::text) INTO found FROM pg_depend d
      JOIN pg_proc p ON p.oid = d.refobjid AND d.refclassid = 'pg_proc'::regclass
      JOIN pg_index x ON x.indexrelid = d.objid AND d.classid = 'pg_class'::regclass
      WHERE p.proname = ANY (touched);
    IF found IS NULL THEN RETURN; END IF;
    IF ${embedded ? 'false' : 'true'} THEN
      RAISE EXCEPTION 'a changed function file changes the answers of index %: an index is never rebuilt in place on PostgreSQL (it would block its table); define the changed function under a new name and build its index concurrently (migrations/README.md)',
        array_to_string(found, ', ');
    END IF;
    FOREACH i IN ARRAY found LOOP EXECUTE format('REINDEX INDEX %s', i); END LOOP;
  END $migrate$;`;
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
 *    and may refer to tables a pending migration creates. A change of the definition of a function
 *    that an index is built on, directly or through a function that calls it, is refused on
 *    PostgreSQL and rebuilds the index on the embedded database (indexesOverChanged).
 * 2. every migrations/*.sql not yet recorded in `schema_migrations` is applied, in name order, each
 *    in its own transaction together with its row, or, when its first line is
 *    `-- migrate: no-transaction`, as one concurrent index build or drop (runConcurrently), or, when
 *    it is `-- migrate: batches`, as one statement run in short transactions until done (runBatches). These
 *    are never edited once a release is tagged.
 * Returns the names applied (functions as `functions/<file>`).
 */
export async function migrate(handle: DbHandle, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await sqlFiles(dir);
  const functionsDir = path.join(dir, 'functions');
  const functionFiles = await sqlFiles(functionsDir);
  return handle.withScriptSession(MIGRATION_LOCK, async (run, query) => {
    await run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
    CREATE TABLE IF NOT EXISTS schema_functions (
      name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const ran: string[] = [];

    const known = await query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_functions');
    const applied = new Map(known.map((r) => [r.name, r.checksum]));
    const texts = await Promise.all(functionFiles.map((f) => readFile(path.join(functionsDir, f), 'utf8')));
    const changed = functionFiles
      .map((f, i) => ({ file: f, text: texts[i]!, sum: checksum(texts[i]!) }))
      .filter((f) => applied.get(f.file) !== f.sum);
    if (changed.length > 0) {
      const statements = changed.map(
        (f) => `${f.text}\n;INSERT INTO schema_functions (name, checksum) VALUES ('${f.file}', '${f.sum}')
          ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now();`,
      );
      await run(
        `SET LOCAL check_function_bodies = off;\n${definitionsBefore(changed)}\n${statements.join('\n')}\n${indexesOverChanged(
          texts.map((text) => ({ text })),
          changed,
          handle.kind === 'embedded',
        )}`,
      );
      ran.push(...changed.map((f) => `functions/${f.file}`));
    }

    const done = await query<{ name: string }>('SELECT name FROM schema_migrations');
    const migrated = new Set(done.map((r) => r.name));
    for (const file of files) {
      if (migrated.has(file)) continue;
      const text = await readFile(path.join(dir, file), 'utf8');
      if (NO_TRANSACTION.test(text)) await runConcurrently(run, query, file, text);
      else if (BATCHES.test(text)) await runBatches(run, query, file, text);
      else await run(`${text}\n;INSERT INTO schema_migrations (name) VALUES ('${file}');`);
      ran.push(file);
    }
    return ran;
  });
}
