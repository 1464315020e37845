// Embedded (PGlite) test databases. Opening one from the template dump costs most of a second of CPU,
// and the suite opens over a hundred; so each worker keeps the instances its files have finished
// with, emptied back to the template's state, and hands them out again. An instance whose catalogs a
// test changed (any DDL, ANALYZE, a comment, a role, a large object) is closed instead of reused.
import { readFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { openEmbedded } from '../../src/db/database.js';
import { embeddedTemplateFile } from './template.js';

/** The template's state beyond empty tables: the rows migrations insert, and its catalogs' hash. */
interface Baseline {
  tables: string[];
  /** Each seeded table's rows as JSON text, read and written by the server: no value passes through a JS parser. */
  seeds: { table: string; json: string }[];
  catalogs: string;
}

interface Idle {
  pglite: PGlite;
  baseline: Baseline;
  uses: number;
}

// TEST_EMBEDDED_POOL=0 opens every database afresh and never resets one (to tell a test's order
// dependence from the reuse).
const POOLED = process.env.TEST_EMBEDDED_POOL !== '0';
const KEEP = 2;
// PGlite never vacuums: each reset leaves dead catalog rows behind, so an instance retires after a while.
const MAX_USES = 30;
// On globalThis: a file that calls vi.resetModules() loads this module again, and must find the same pool.
const POOL_KEY = Symbol.for('netsvc.test.embeddedPool');
const idle: Idle[] = ((globalThis as Record<symbol, unknown>)[POOL_KEY] ??= []) as Idle[];

/**
 * A hash of every row of every system catalog, less the columns that storage rewrites (TRUNCATE,
 * VACUUM) without any change of schema: whatever a test changes in the schema, in the planner's
 * statistics, in roles, comments or large objects shows here.
 */
let catalogHashSql: string | undefined;
async function catalogHash(pglite: PGlite): Promise<string> {
  if (!catalogHashSql) {
    const { rows } = await pglite.query<{ t: string }>(
      `SELECT relname AS t FROM pg_class WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r' ORDER BY 1`,
    );
    catalogHashSql = rows
      .map(({ t }) => {
        const row =
          t === 'pg_class'
            ? `(x.oid, x.relname, x.relnamespace, x.reltype, x.relowner, x.relam, x.reltoastrelid, x.relhasindex,
                x.relpersistence, x.relkind, x.relnatts, x.relchecks, x.relhasrules, x.relhastriggers, x.relrowsecurity,
                x.relforcerowsecurity, x.relreplident, x.relispartition, x.relacl, x.reloptions, x.relpartbound)::text`
            : t === 'pg_database'
              ? `(x.oid, x.datname, x.datacl, x.datallowconn)::text`
              : `x::text`;
        return `SELECT '${t}:' || coalesce(md5(string_agg(${row}, '|' ORDER BY ${row})), '') AS h FROM pg_catalog.${t} x`;
      })
      .join(' UNION ALL ');
  }
  const { rows } = await pglite.query<{ h: string }>(catalogHashSql);
  return rows
    .map((r) => r.h)
    .sort()
    .join('\n');
}

/** Empties every table and puts back the template's rows; the session's settings and state go too. */
async function reset(pglite: PGlite, b: Pick<Baseline, 'tables' | 'seeds'>): Promise<void> {
  await pglite.exec('ROLLBACK'); // a test that failed mid-transaction
  await pglite.exec('DISCARD ALL');
  await pglite.exec(`TRUNCATE ${b.tables.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
  for (const s of b.seeds) {
    await pglite.query(`INSERT INTO "${s.table}" SELECT * FROM json_populate_recordset(NULL::"${s.table}", $1::text::json)`, [s.json]);
  }
}

const openTemplate = () => openEmbedded('memory://', new Blob([readFileSync(embeddedTemplateFile())]));

async function openPooled(): Promise<Idle> {
  const pglite = await openTemplate();
  const { rows: tables } = await pglite.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  const seeds = [];
  for (const { name } of tables) {
    const { rows } = await pglite.query<{ json: string | null }>(`SELECT json_agg(t)::text AS json FROM "${name}" t`);
    if (rows[0]!.json) seeds.push({ table: name, json: rows[0]!.json });
  }
  const b = { tables: tables.map((t) => t.name), seeds };
  // The baseline is taken after one reset, so that what a reset itself rewrites never counts as a change.
  await reset(pglite, b);
  return { pglite, baseline: { ...b, catalogs: await catalogHash(pglite) }, uses: 0 };
}

const RELEASED = () => new Error('this test database was released');
// Calls that leave callbacks inside PGlite itself, which a reset cannot take back.
const CALLBACKS = new Set<PropertyKey>(['listen', 'onNotification']);

/**
 * An embedded database in the template's state, and its release. The instance handed out refuses
 * every call once released (a late query of a finished file never reaches the next file's data),
 * and refuses to be patched (a spy on it would outlive the file).
 */
export async function leaseEmbedded(): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  const lease = POOLED ? (idle.pop() ?? (await openPooled())) : { pglite: await openTemplate(), baseline: undefined, uses: 0 };
  lease.uses++;
  let released = false;
  let reusable = POOLED;
  const refuse = () => {
    throw new TypeError('a test database is not patched: spy on the app or the module instead');
  };
  const guarded = new Proxy(lease.pglite, {
    get(target, prop) {
      if (prop === 'close') return release;
      if (prop === 'closed') return released || target.closed;
      const v = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      if (CALLBACKS.has(prop)) reusable = false;
      return (...args: unknown[]) => (released ? Promise.reject(RELEASED()) : v.apply(target, args));
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
  });
  async function release() {
    if (released) return;
    released = true;
    const { pglite, baseline } = lease;
    try {
      if (pglite.closed) return;
      if (reusable && baseline && lease.uses < MAX_USES && idle.length < KEEP) {
        await reset(pglite, baseline);
        if ((await catalogHash(pglite)) === baseline.catalogs) {
          idle.push(lease);
          return;
        }
      }
    } catch {
      /* not reusable */
    }
    await pglite.close().catch(() => undefined);
  }
  return { pglite: guarded, release };
}
