import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { firstRow } from '../../lib/present.js';

/** The cheapest round trip: SELECT 1. */
export async function selectOne(db: Executor): Promise<boolean> {
  const r = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
  return firstRow(r.rows).one === 1;
}
