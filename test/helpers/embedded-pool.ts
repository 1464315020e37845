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
  /** The tables that own a sequence: emptied on every reset. */
  always: string[];
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
 * What any change of schema, planner statistics, roles, comments or large objects shows in the system
 * catalogs: each catalog's row count and newest row version (every insert or update writes a row with
 * its transaction's id, every delete lowers the count), and pg_class in full less the columns that
 * storage rewrites (TRUNCATE, VACUUM) without any change of schema. A third of the time of hashing
 * every catalog row (which a release did before), and it tells the same changes.
 */
let catalogStateSql: string | undefined;
async function catalogState(pglite: PGlite): Promise<string> {
  if (!catalogStateSql) {
    const { rows } = await pglite.query<{ t: string }>(
      `SELECT relname AS t FROM pg_class WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r' ORDER BY 1`,
    );
    catalogStateSql = rows
      .map(({ t }) =>
        t === 'pg_class'
          ? `SELECT 'pg_class:' || md5(string_agg(r, '|' ORDER BY r)) AS h FROM (SELECT (x.oid, x.relname, x.relnamespace,
               x.reltype, x.relowner, x.relam, x.reltoastrelid, x.relhasindex, x.relpersistence, x.relkind, x.relnatts,
               x.relchecks, x.relhasrules, x.relhastriggers, x.relrowsecurity, x.relforcerowsecurity, x.relreplident,
               x.relispartition, x.relacl, x.reloptions, x.relpartbound)::text AS r FROM pg_catalog.pg_class x) c`
          : `SELECT '${t}:' || count(*) || ':' || coalesce(max(x.xmin::text::bigint), 0) AS h FROM pg_catalog.${t} x`,
      )
      .join(' UNION ALL ');
  }
  const { rows } = await pglite.query<{ h: string }>(catalogStateSql);
  return rows
    .map((r) => r.h)
    .sort()
    .join('\n');
}

/**
 * Empties every table a test wrote to and puts back the template's rows; the session's settings and
 * state go too, and the tables' planner statistics. Tables that are empty are left alone (TRUNCATE costs per table), except those that own
 * a sequence: a rolled-back insert advances it, and RESTART IDENTITY puts it back.
 */
async function reset(pglite: PGlite, b: Pick<Baseline, 'tables' | 'seeds' | 'always'>): Promise<void> {
  await pglite.exec('ROLLBACK'); // a test that failed mid-transaction
  await pglite.exec('DISCARD ALL');
  // The planner statistics of the tables (the demo loader analyzes what it loaded): the template has none.
  await pglite.exec(`DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)`);
  const { rows } = await pglite.query<{ t: string }>(
    b.tables.map((t) => `SELECT '${t}' AS t WHERE EXISTS (SELECT 1 FROM "${t}")`).join(' UNION ALL '),
  );
  const dirty = new Set([...rows.map((r) => r.t), ...b.always]);
  if (dirty.size) await pglite.exec(`TRUNCATE ${[...dirty].map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
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
  const { rows: owners } = await pglite.query<{ name: string }>(
    `SELECT DISTINCT c.relname AS name FROM pg_depend d
       JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S' JOIN pg_class c ON c.oid = d.refobjid
      WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')`,
  );
  const b = { tables: tables.map((t) => t.name), seeds, always: owners.map((o) => o.name) };
  // The baseline is taken after one reset, so that what a reset itself rewrites never counts as a change.
  await reset(pglite, b);
  return { pglite, baseline: { ...b, catalogs: await catalogState(pglite) }, uses: 0 };
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
        if ((await catalogState(pglite)) === baseline.catalogs) {
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
