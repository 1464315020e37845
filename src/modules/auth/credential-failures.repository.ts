import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

/** The advisory-lock class of credential subjects (the two-key form: apart from the one-key locks elsewhere). */
const LOCK_CLASS = 727100;

/** What a subject's earlier failures say to the attempt being recorded. */
export interface PriorFailures {
  /** This network's failures since `networkSince`, oldest first. */
  network: Date[];
  /** Every network's failures since `accountSince`. */
  account: number;
}

/**
 * Stores an attempt as a failure before its check runs, and answers the subject's earlier failures.
 * Attempts of one subject queue on an advisory lock, so each one counts every attempt before it:
 * concurrent guesses cannot all read the same count.
 */
export function recordAttempt(
  db: Db,
  a: { id: string; subject: string; network: string; at: Date; networkSince: Date; accountSince: Date },
): Promise<PriorFailures> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_CLASS}, hashtext(${a.subject}))`.execute(trx);
    const fromNetwork = await trx
      .selectFrom('credential_failures')
      .select('failed_at')
      .where('subject', '=', a.subject)
      .where('network', '=', a.network)
      .where('failed_at', '>', a.networkSince)
      .orderBy('failed_at')
      .execute();
    const all = await trx
      .selectFrom('credential_failures')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('subject', '=', a.subject)
      .where('failed_at', '>', a.accountSince)
      .executeTakeFirstOrThrow();
    await trx.insertInto('credential_failures').values({ id: a.id, subject: a.subject, network: a.network, failed_at: a.at }).execute();
    return { network: fromNetwork.map((r) => new Date(r.failed_at)), account: Number(all.n) };
  });
}

/** Takes an attempt back: it succeeded, or it was refused without a check. */
export async function deleteAttempt(db: Db, id: string): Promise<void> {
  await db.deleteFrom('credential_failures').where('id', '=', id).execute();
}
