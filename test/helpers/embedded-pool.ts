// Embedded (PGlite) test databases. Opening one from the template dump costs most of a second of CPU,
// and the suite opens over a hundred; so each worker keeps the instances its files have finished
// with, emptied back to the template's state, and hands them out again. An instance whose schema or
// planner statistics a test changed (CREATE, ALTER, ANALYZE) is closed instead of reused.
import { readFileSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { openEmbedded } from '../../src/db/database.js';
import { embeddedTemplateFile } from './template.js';

/** What the template holds beyond empty tables: the rows migrations insert. */
interface Baseline {
  tables: string[];
  seeds: { table: string; rows: unknown[] }[];
  fingerprint: string;
}

interface Idle {
  pglite: PGlite;
  baseline: Baseline;
}

// TEST_EMBEDDED_POOL=0 opens every database afresh (to tell a test's order dependence from the reuse).
const KEEP = process.env.TEST_EMBEDDED_POOL === '0' ? 0 : 2;
// On globalThis: a file that calls vi.resetModules() loads this module again, and must find the same pool.
const POOL_KEY = Symbol.for('netsvc.test.embeddedPool');
const idle: Idle[] = ((globalThis as Record<symbol, unknown>)[POOL_KEY] ??= []) as Idle[];

// Everything a test could change in the schema or in what the planner knows, for user objects only
// (OIDs from 16384): a new object has a new OID, an altered one other columns or another body.
const FINGERPRINT = `
  SELECT md5(string_agg(x, ';' ORDER BY x)) AS f FROM (
    SELECT 'c' || oid || relname || relkind::text || relnatts || relpages || reltuples FROM pg_class WHERE oid >= 16384
    UNION ALL SELECT 'a' || attrelid || attnum || atttypid || attnotnull || attisdropped || atthasdef FROM pg_attribute WHERE attrelid >= 16384
    UNION ALL SELECT 'p' || oid || md5(prosrc) || coalesce(proconfig::text, '') FROM pg_proc WHERE oid >= 16384
    UNION ALL SELECT 't' || oid || tgenabled::text FROM pg_trigger WHERE oid >= 16384
    UNION ALL SELECT 'k' || oid FROM pg_constraint WHERE oid >= 16384
    UNION ALL SELECT 'd' || oid FROM pg_attrdef WHERE oid >= 16384
    UNION ALL SELECT 'y' || oid FROM pg_type WHERE oid >= 16384
    UNION ALL SELECT 'e' || oid FROM pg_enum WHERE oid >= 16384
    UNION ALL SELECT 'n' || oid FROM pg_namespace WHERE oid >= 16384
    UNION ALL SELECT 'x' || oid FROM pg_extension WHERE oid >= 16384
    UNION ALL SELECT 'v' || oid FROM pg_event_trigger
    UNION ALL SELECT 's' || count(*) FROM pg_statistic WHERE starelid >= 16384
    UNION ALL SELECT 'r' || count(*) FROM pg_db_role_setting
  ) q(x)`;

async function fingerprint(pglite: PGlite): Promise<string> {
  return (await pglite.query<{ f: string }>(FINGERPRINT)).rows[0].f;
}

/** Empties every table and puts back the template's rows; the session's settings and state go too. */
async function reset(pglite: PGlite, b: Pick<Baseline, 'tables' | 'seeds'>): Promise<void> {
  await pglite.exec('ROLLBACK'); // a test that failed mid-transaction
  await pglite.exec('DISCARD ALL');
  await pglite.exec(`TRUNCATE ${b.tables.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
  for (const s of b.seeds) {
    await pglite.query(`INSERT INTO "${s.table}" SELECT * FROM json_populate_recordset(NULL::"${s.table}", $1)`, [JSON.stringify(s.rows)]);
  }
}

async function openFresh(): Promise<Idle> {
  const pglite = await openEmbedded('memory://', new Blob([readFileSync(embeddedTemplateFile())]));
  const { rows: tables } = await pglite.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  const seeds = [];
  for (const { name } of tables) {
    const { rows } = await pglite.query(`SELECT * FROM "${name}"`);
    if (rows.length) seeds.push({ table: name, rows });
  }
  const b = { tables: tables.map((t) => t.name), seeds };
  await reset(pglite, b);
  return { pglite, baseline: { ...b, fingerprint: await fingerprint(pglite) } };
}

/**
 * An embedded database in the template's state, and its release. The instance handed out refuses
 * every call once released, so a late query of a finished file never reaches the next file's data.
 */
export async function leaseEmbedded(): Promise<{ pglite: PGlite; release(): Promise<void> }> {
  const lease = idle.pop() ?? (await openFresh());
  let released = false;
  const guarded = new Proxy(lease.pglite, {
    get(target, prop) {
      if (prop === 'close') return release;
      const v = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (released) throw new Error('this test database was released');
        return v.apply(target, args);
      };
    },
  });
  async function release() {
    if (released) return;
    released = true;
    const { pglite, baseline } = lease;
    try {
      if (pglite.closed) return;
      await reset(pglite, baseline);
      if (idle.length < KEEP && (await fingerprint(pglite)) === baseline.fingerprint) {
        idle.push(lease);
        return;
      }
    } catch {
      /* not reusable */
    }
    await pglite.close().catch(() => undefined);
  }
  return { pglite: guarded, release };
}
