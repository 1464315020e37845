// The rollback links of change-confirmation mails (migrations/20261126070000_rollback_links.sql), and the reads a
// rollback decides on. Only the SHA-256 of a link's token is stored.
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

export type ContactColumns = Record<string, string | null>;

export interface NewRollbackLink {
  id: string;
  token_hash: Buffer;
  provider_id: string;
  subscriber_id: string;
  expires_at: Date;
  created_at: Date;
  mailed_to: string;
  link:
    | { kind: 'plan'; plan_change_id: string }
    | { kind: 'contact'; contact_type: 'contract' | 'invoice'; restore: ContactColumns; expected: ContactColumns };
}

export const insertRollbackLink = (trx: Executor, r: NewRollbackLink) => {
  const { link, ...row } = r;
  return trx
    .insertInto('rollback_links')
    .values({
      ...row,
      kind: link.kind,
      plan_change_id: link.kind === 'plan' ? link.plan_change_id : null,
      contact_type: link.kind === 'contact' ? link.contact_type : null,
      restore: link.kind === 'contact' ? JSON.stringify(link.restore) : null,
      expected: link.kind === 'contact' ? JSON.stringify(link.expected) : null,
    })
    .execute();
};

const LINK_COLUMNS = [
  'id',
  'provider_id',
  'subscriber_id',
  'kind',
  'plan_change_id',
  'contact_type',
  'restore',
  'expected',
  'expires_at',
  'used_at',
  'created_at',
] as const;

/** The link with this token hash, used or not (the page tells "used" from "expired" from "unknown"). */
export const findRollbackLink = (db: Executor, tokenHash: Buffer) =>
  db.selectFrom('rollback_links').select(LINK_COLUMNS).where('token_hash', '=', tokenHash).executeTakeFirst();

export type RollbackLinkRow = NonNullable<Awaited<ReturnType<typeof findRollbackLink>>>;

/**
 * The unused contact links of the same customer and contact type made at or after `since`, newest
 * first: the later edits a link's undo may have to walk back through (see resolveContactUndo).
 */
export const findLaterContactLinks = (
  db: Executor,
  link: { id: string; subscriber_id: string; contact_type: string | null; created_at: Date | string },
) =>
  db
    .selectFrom('rollback_links')
    .select(['id', 'restore', 'expected', 'created_at'])
    .where('subscriber_id', '=', link.subscriber_id)
    .where('kind', '=', 'contact')
    .where('contact_type', '=', link.contact_type)
    .where('id', '<>', link.id)
    .where('used_at', 'is', null)
    .where('created_at', '>=', new Date(link.created_at))
    .orderBy('created_at', 'desc')
    .execute();

/** Marks the links used (the later links of an undone chain), whatever their state. */
export const useRollbackLinks = (trx: Transaction<DB>, ids: string[], now: Date) =>
  ids.length === 0
    ? Promise.resolve()
    : trx.updateTable('rollback_links').set({ used_at: now }).where('id', 'in', ids).where('used_at', 'is', null).execute();

/** Marks the link used if it is unused and unexpired; undefined when another use won or it expired. */
export const consumeRollbackLink = (trx: Transaction<DB>, id: string, now: Date) =>
  trx
    .updateTable('rollback_links')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();

/** Where a change-confirmation mail goes: the contract email on file, and the greeting. */
export const findMailContact = (db: Executor, subscriberId: string) =>
  db.selectFrom('subscribers').select(['email', 'first_name']).where('id', '=', subscriberId).executeTakeFirstOrThrow();

/** The customer's confirmation links made since `since`, newest first, with the plan change a plan link undoes. */
export const recentLinks = (db: Executor, providerId: string, subscriberId: string, since: Date, limit: number) =>
  db
    .selectFrom('rollback_links as l')
    .leftJoin('plan_changes as pc', 'pc.id', 'l.plan_change_id')
    .leftJoin('plan_versions as f', 'f.id', 'pc.from_plan_version_id')
    .leftJoin('plan_versions as t', 't.id', 'pc.to_plan_version_id')
    .select([
      'l.id',
      'l.kind',
      'l.contact_type',
      'l.restore',
      'l.created_at',
      'l.expires_at',
      'l.used_at',
      'l.mailed_to',
      'pc.id as plan_change_id',
      'pc.subscription_id',
      'f.name as from_name',
      't.name as to_name',
    ])
    .where('l.provider_id', '=', providerId)
    .where('l.subscriber_id', '=', subscriberId)
    .where('l.created_at', '>=', since)
    .orderBy('l.created_at', 'desc')
    .orderBy('l.id', 'desc')
    .limit(limit)
    .execute();

/** One of the customer's links, locked until the transaction ends (a resend rotates its token). */
export const lockSubscriberLink = (trx: Transaction<DB>, providerId: string, subscriberId: string, id: string) =>
  trx
    .selectFrom('rollback_links')
    .select(LINK_COLUMNS)
    .select('mailed_to')
    .where('id', '=', id)
    .where('provider_id', '=', providerId)
    .where('subscriber_id', '=', subscriberId)
    .forUpdate()
    .executeTakeFirst();

/** A new token for a link (the one in the earlier mail stops working; the expiry stays). */
export const rotateLinkToken = (trx: Transaction<DB>, id: string, tokenHash: Buffer) =>
  trx.updateTable('rollback_links').set({ token_hash: tokenHash }).where('id', '=', id).execute();

/**
 * The contract email the customer had before the agent's contact changes since `since` (the restore
 * value of the earliest contract link that changed the email), undefined when none changed it.
 */
export async function contractEmailBefore(db: Executor, subscriberId: string, since: Date): Promise<string | undefined> {
  const rows = await db
    .selectFrom('rollback_links')
    .select(['restore'])
    .where('subscriber_id', '=', subscriberId)
    .where('kind', '=', 'contact')
    .where('contact_type', '=', 'contract')
    .where('created_at', '>=', since)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const email = (r.restore as Record<string, unknown> | null)?.email;
    if (typeof email === 'string' && email) return email;
  }
  return undefined;
}
