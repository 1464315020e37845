import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** The advisory-lock class of credential subjects (the two-key form: apart from the one-key locks elsewhere). */
const LOCK_CLASS = 727100;

/**
 * Stores an attempt as a failure before its check runs, and answers the subject's earlier failures
 * since `since`. Attempts of one subject queue on an advisory lock, so each one counts every
 * attempt before it: concurrent guesses cannot all read the same count.
 */
export function recordAttempt(db: Db, a: { id: string; subject: string; at: Date; since: Date }): Promise<Date[]> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${a.subject}))`.execute(trx);
    const rows = await trx
      .selectFrom('credential_failures')
      .select('failed_at')
      .where('subject', '=', a.subject)
      .where('failed_at', '>', a.since)
      .orderBy('failed_at')
      .execute();
    await trx.insertInto('credential_failures').values({ id: a.id, subject: a.subject, failed_at: a.at }).execute();
    return rows.map((r) => new Date(r.failed_at));
  });
}

/** Takes an attempt back: it succeeded, or it was refused without a check. */
export async function deleteAttempt(db: Db, id: string): Promise<void> {
  await db.deleteFrom('credential_failures').where('id', '=', id).execute();
}
