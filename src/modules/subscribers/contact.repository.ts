// The subscriber's contact columns as one set: what an agent's contact edit may change, what its
// rollback link stores, and the write that puts them back (a rollback, inside its transaction).
import type { Transaction, Updateable } from 'kysely';
import type { DB, Subscribers } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { SUBSCRIBER_CONTACT_COLUMNS } from '../../db/columns.js';
import type { ContactColumns } from '../rollback-links/index.js';

/** The contact columns a rollback restores or compares (names from subscriber-changes FIELD_COLUMNS). */
const CONTACT_COLUMNS = [...SUBSCRIBER_CONTACT_COLUMNS, 'invoice_phone_e164'] as const;
export type ContactColumn = (typeof CONTACT_COLUMNS)[number];
export const isContactColumn = (c: string): c is ContactColumn => (CONTACT_COLUMNS as readonly string[]).includes(c);

/** The customer's current values of these contact columns. */
export async function readContactColumns(db: Executor, subscriberId: string, cols: ContactColumn[]): Promise<ContactColumns> {
  if (cols.length === 0) return {};
  const row = await db.selectFrom('subscribers').select(cols).where('id', '=', subscriberId).executeTakeFirstOrThrow();
  return row;
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
