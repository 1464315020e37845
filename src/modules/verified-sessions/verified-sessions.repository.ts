// The verified_sessions table: the session a customer's one-time code opens (verification writes
// it) and the reads every verified /agent route and the plan-change snapshot make of it.
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

/** A stored verified session, as far as the check needs it. */
export interface SessionRow {
  provider_id: string;
  subscriber_id: string;
  expires_at: Date | string;
}

/** The columns a read that joins verified_sessions names `session_*`: the row, or undefined when none joined. */
export interface SessionColumns {
  session_provider_id: string | null;
  session_subscriber_id: string | null;
  session_expires_at: Date | null;
}
export const sessionOf = (c: SessionColumns): SessionRow | undefined =>
  c.session_provider_id && c.session_subscriber_id && c.session_expires_at
    ? { provider_id: c.session_provider_id, subscriber_id: c.session_subscriber_id, expires_at: c.session_expires_at }
    : undefined;

export async function insertSession(
  trx: Transaction<DB>,
  s: { id: string; providerId: string; subscriberId: string; tokenHash: Buffer; expiresAt: Date; now: Date },
) {
  await trx
    .insertInto('verified_sessions')
    .values({
      id: s.id,
      provider_id: s.providerId,
      subscriber_id: s.subscriberId,
      token_hash: s.tokenHash,
      expires_at: s.expiresAt,
      created_at: s.now,
    })
    .execute();
}

/** The verified session of a token hash (judge it with judgeSession). */
export function findSessionByHash(db: Executor, tokenHash: Buffer) {
  return db
    .selectFrom('verified_sessions')
    .select(['provider_id', 'subscriber_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}
