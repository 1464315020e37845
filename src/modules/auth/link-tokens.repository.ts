import type { Executor } from '../../db/executor.js';

/** What a single-use link is for (link_tokens.purpose). */
export type LinkPurpose = 'password_reset' | 'activation' | 'staff_invite' | 'booking' | 'payment';

export async function insertLinkToken(
  db: Executor,
  t: {
    id: string;
    purpose: LinkPurpose;
    tokenHash: Buffer;
    userId: string | null;
    subscriberId: string | null;
    referenceId: string | null;
    expiresAt: Date;
  },
) {
  await db
    .insertInto('link_tokens')
    .values({
      id: t.id,
      purpose: t.purpose,
      token_hash: t.tokenHash,
      user_id: t.userId,
      subscriber_id: t.subscriberId,
      reference_id: t.referenceId,
      expires_at: t.expiresAt,
    })
    .execute();
}

export function findLinkTokenByHash(db: Executor, tokenHash: Buffer, purposes: LinkPurpose[]) {
  return db.selectFrom('link_tokens').selectAll().where('token_hash', '=', tokenHash).where('purpose', 'in', purposes).executeTakeFirst();
}

/** Marks the token used only if unused and unexpired, so two concurrent uses cannot both succeed. */
export function consumeLinkTokenByHash(db: Executor, tokenHash: Buffer, purposes: LinkPurpose[], now: Date) {
  return db
    .updateTable('link_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Outstanding links of one user with these purposes stop working. */
export async function invalidateUserLinks(db: Executor, userId: string, purposes: LinkPurpose[], now: Date) {
  await db
    .updateTable('link_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .where('purpose', 'in', purposes)
    .execute();
}

/** Outstanding payment links of these invoices stop working. */
export async function invalidatePaymentLinks(db: Executor, invoiceIds: string[], now: Date) {
  if (!invoiceIds.length) return;
  await db
    .updateTable('link_tokens')
    .set({ used_at: now })
    .where('purpose', '=', 'payment')
    .where('used_at', 'is', null)
    .where('reference_id', 'in', invoiceIds)
    .execute();
}

/** Gives a consumed link back (the use it was consumed for did not happen). */
export async function releaseLinkToken(db: Executor, id: string) {
  await db.updateTable('link_tokens').set({ used_at: null }).where('id', '=', id).execute();
}
