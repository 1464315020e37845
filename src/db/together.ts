import { sql, type Compilable, type Kysely, type OperationNodeSource } from 'kysely';

/** A write built with Kysely (insert, update, delete, with or without RETURNING), not yet executed. */
export type Write = OperationNodeSource & Compilable;

/**
 * Runs independent writes as one statement, `WITH w0 AS (…), w1 AS (…) SELECT 1`: one round trip
 * instead of one per write. Postgres runs every data-modifying CTE exactly once and to completion,
 * and the statement is atomic, so the writes commit together even outside a transaction.
 *
 * Only for writes that do not read each other's rows: they all see the snapshot taken when the
 * statement began. Foreign keys between them hold (the checks run at the end of the statement), and
 * a unique or check violation in any of them fails the whole statement. A write must not carry a
 * WITH of its own that modifies data (Postgres allows those at the top level only).
 */
// Any schema: a Transaction is a Kysely.
export async function executeTogether(ex: Kysely<any>, writes: Write[]): Promise<void> {
  if (writes.length === 0) return;
  if (writes.length === 1 && writes[0]) {
    await ex.executeQuery(writes[0].compile());
    return;
  }
  const ctes = sql.join(writes.map((w, i) => sql`${sql.raw(`w${i}`)} AS (${w})`));
  await sql`WITH ${ctes} SELECT 1`.execute(ex);
}
