import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';

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
