import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.js';

export type Rows = { [K in keyof DB]: Insertable<DB[K]>[] };

// Parents before children, so one pass of multi-row inserts satisfies every foreign key.
const INSERT_ORDER = [
  'providers',
  'api_keys',
  'users',
  'subscribers',
  'buildings',
  'units',
  'locations',
  'coverage_addresses',
  'plans',
  'plan_versions',
  'checkout_sessions',
  'subscriptions',
  'plan_changes',
  'invoices',
  'invoice_lines',
  'billing_documents',
  'pending_adjustments',
  'credit_notes',
  'install_jobs',
  'modem_status',
  'status_events',
  'usage_monthly',
  'tickets',
  'ticket_comments',
  'customer_notes',
  'sim_switch_ports',
] as const satisfies readonly (keyof DB)[];

export type SeedTable = (typeof INSERT_ORDER)[number];

export function emptyRows(): Pick<Rows, SeedTable> {
  return Object.fromEntries(INSERT_ORDER.map((t) => [t, []])) as unknown as Pick<Rows, SeedTable>;
}

// Postgres takes at most 65,535 bind parameters per statement.
const MAX_PARAMS = 30_000;

/** Inserts every table's rows with multi-row INSERTs; returns the row count per table. */
export async function insertRows(trx: Transaction<DB>, rows: Pick<Rows, SeedTable>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of INSERT_ORDER) {
    const list = rows[table] as Record<string, unknown>[];
    counts[table] = list.length;
    if (list.length === 0) continue;
    const columns = Math.max(...list.slice(0, 20).map((r) => Object.keys(r).length));
    const chunk = Math.max(1, Math.floor(MAX_PARAMS / columns));
    for (let i = 0; i < list.length; i += chunk) {
      await trx
        .insertInto(table)
        .values(list.slice(i, i + chunk))
        .execute();
    }
  }
  return counts;
}

/**
 * Gives the planner statistics of the tables just loaded. Postgres's autovacuum would take a minute
 * or more to; the embedded database has no autovacuum and never would: without statistics its
 * planner filters every row through the search's key function instead of reading the name index
 * (a demo search took 0.4-0.9 s on 292 customers, 20-40 ms with them).
 */
export async function analyzeLoaded(db: Kysely<DB>): Promise<void> {
  await sql.raw(`ANALYZE ${INSERT_ORDER.map((t) => `"${t}"`).join(', ')}`).execute(db);
}

/** Serialises concurrent loaders (two `npm start` on one DATABASE_URL) for the transaction's length. */
export async function lockDemo(trx: Transaction<DB>) {
  await sql`SELECT pg_advisory_xact_lock(727002)`.execute(trx);
}
