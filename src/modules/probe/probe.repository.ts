import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';

/** The cheapest round trip: SELECT 1. */
export async function selectOne(db: Executor): Promise<boolean> {
  const r = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
  return r.rows[0].one === 1;
}
