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

/** Issues for the customer since `since` (the per-customer issue limit), oldest first. */
export function recentIssues(trx: Transaction<DB>, subscriberId: string, since: Date) {
  return trx
    .selectFrom('verification_codes')
    .select(['id', 'created_at'])
    .where('subscriber_id', '=', subscriberId)
    .where('created_at', '>', since)
    .orderBy('created_at', 'asc')
    .execute();
}

/** A new code replaces every earlier one that is still usable. */
export async function supersedeOpenCodes(trx: Transaction<DB>, subscriberId: string) {
  await trx
    .updateTable('verification_codes')
    .set({ superseded: true })
    .where('subscriber_id', '=', subscriberId)
    .where('superseded', '=', false)
    .where('consumed_at', 'is', null)
    .execute();
}

export async function supersedeCode(trx: Transaction<DB>, codeId: string) {
  await trx.updateTable('verification_codes').set({ superseded: true }).where('id', '=', codeId).execute();
}

export async function insertCode(
  trx: Transaction<DB>,
  c: { id: string; providerId: string; subscriberId: string; channel: 'email' | 'sms'; codeHash: Buffer; expiresAt: Date; now: Date },
) {
  await trx
    .insertInto('verification_codes')
    .values({
      id: c.id,
      provider_id: c.providerId,
      subscriber_id: c.subscriberId,
      channel: c.channel,
      code_hash: c.codeHash,
      expires_at: c.expiresAt,
      created_at: c.now,
    })
    .execute();
}

/**
 * The customer's current code, row-locked: concurrent checks of one code run one after another,
 * so the attempt counter cannot be outrun. A code consumed by a check that committed first no
 * longer qualifies when the lock is granted (the row is re-read), so it answers "no code".
 */
export function lockCurrentCode(trx: Transaction<DB>, providerId: string, subscriberId: string) {
  return trx
    .selectFrom('verification_codes')
    .select(['id', 'code_hash', 'attempts', 'expires_at', 'channel'])
    .where('provider_id', '=', providerId)
    .where('subscriber_id', '=', subscriberId)
    .where('superseded', '=', false)
    .where('consumed_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export async function recordWrongAttempt(trx: Transaction<DB>, codeId: string): Promise<number> {
  const r = await trx
    .updateTable('verification_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', codeId)
    .returning('attempts')
    .executeTakeFirstOrThrow();
  return r.attempts;
}

export async function consumeCode(trx: Transaction<DB>, codeId: string, now: Date) {
  await trx.updateTable('verification_codes').set({ consumed_at: now }).where('id', '=', codeId).execute();
}

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
