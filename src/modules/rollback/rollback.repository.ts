// The rollback links of change-confirmation mails (migration 20261126070000), and the reads a
// rollback decides on. Only the SHA-256 of a link's token is stored.
import type { Transaction, Updateable } from 'kysely';
import type { DB, Subscribers } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { SUBSCRIBER_CONTACT_COLUMNS } from '../../db/columns.js';

export type ContactColumns = Record<string, string | null>;

export interface NewRollbackLink {
  id: string;
  token_hash: Buffer;
  provider_id: string;
  subscriber_id: string;
  expires_at: Date;
  created_at: Date;
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
] as const;

/** The link with this token hash, used or not (the page tells "used" from "expired" from "unknown"). */
export const findRollbackLink = (db: Executor, tokenHash: Buffer) =>
  db.selectFrom('rollback_links').select(LINK_COLUMNS).where('token_hash', '=', tokenHash).executeTakeFirst();

export type RollbackLinkRow = NonNullable<Awaited<ReturnType<typeof findRollbackLink>>>;

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

/** The change a plan link undoes, with its plans' names and prices (for the page and the rollback). */
export const findPlanChangeForRollback = (db: Executor, planChangeId: string) =>
  db
    .selectFrom('plan_changes as pc')
    .innerJoin('plan_versions as f', 'f.id', 'pc.from_plan_version_id')
    .innerJoin('plan_versions as t', 't.id', 'pc.to_plan_version_id')
    .selectAll('pc')
    .select([
      'f.name as from_name',
      'f.monthly_price_cents as from_price_cents',
      't.name as to_name',
      't.monthly_price_cents as to_price_cents',
      'f.currency',
    ])
    .where('pc.id', '=', planChangeId)
    .executeTakeFirst();

/** Whether the subscription changed plan again after `planChangeId` (any source, a rollback included). */
export async function changedSince(db: Executor, subscriptionId: string, planChangeId: string, at: Date): Promise<boolean> {
  const row = await db
    .selectFrom('plan_changes')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('id', '<>', planChangeId)
    .where('created_at', '>=', at)
    .executeTakeFirst();
  return Boolean(row);
}

/** The subscription's plan now (for the page). */
export const currentPlanOf = (db: Executor, subscriptionId: string) =>
  db.selectFrom('subscriptions').select(['plan_version_id', 'status']).where('id', '=', subscriptionId).executeTakeFirst();

/** Where a change-confirmation mail goes: the contract email on file, and the greeting. */
export const findMailContact = (db: Executor, subscriberId: string) =>
  db.selectFrom('subscribers').select(['email', 'first_name']).where('id', '=', subscriberId).executeTakeFirstOrThrow();

/** The contact columns a rollback restores or compares (names from customers.changes FIELD_COLUMNS). */
const CONTACT_COLUMNS = [...SUBSCRIBER_CONTACT_COLUMNS, 'invoice_phone_e164'] as const;
export type ContactColumn = (typeof CONTACT_COLUMNS)[number];
export const isContactColumn = (c: string): c is ContactColumn => (CONTACT_COLUMNS as readonly string[]).includes(c);

/** The customer's current values of these contact columns. */
export async function readContactColumns(db: Executor, subscriberId: string, cols: ContactColumn[]): Promise<ContactColumns> {
  if (cols.length === 0) return {};
  const row = await db.selectFrom('subscribers').select(cols).where('id', '=', subscriberId).executeTakeFirstOrThrow();
  return row as ContactColumns;
}

/** Sets contact columns back (a rollback); the email's unique index may refuse it. */
export const writeContactColumns = (
  trx: Transaction<DB>,
  subscriberId: string,
  values: Partial<Record<ContactColumn, string | null>>,
  now: Date,
) =>
  // The values were read from these very columns, so a NOT NULL column gets no null back.
  trx
    .updateTable('subscribers')
    .set({ ...values, updated_at: now } as Updateable<Subscribers>)
    .where('id', '=', subscriberId)
    .execute();
