// A new subscriber and its login (a subscriber login without a password), as provisioning and
// checkout completion create them: step by step inside a transaction, or as writes sent in one
// statement with the subscription's (bench/README.md measures the one-statement path).
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import type { Write } from '../../db/together.js';
import { newId } from '../../lib/ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/errors.js';
import { firstRow } from '../../lib/present.js';

/** A new subscriber's row, as the service has it (its login, `user_id`, is decided by each insert). */
export interface NewSubscriber {
  id: string;
  providerId: string;
  customerNumber: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  phoneE164: string | null;
  at: Date;
}

const subscriberValues = <U>(row: NewSubscriber, userId: U) => ({
  id: row.id,
  provider_id: row.providerId,
  user_id: userId,
  customer_number: row.customerNumber,
  first_name: row.firstName,
  last_name: row.lastName,
  email: row.email,
  phone: row.phone,
  phone_e164: row.phoneE164,
  created_at: row.at,
  updated_at: row.at,
});

/** A subscriber login without a password (set later through a set-password link). */
const subscriberLoginValues = (row: { id: string; email: string; firstName: string; lastName: string; at: Date }) => ({
  id: row.id,
  email: row.email,
  role: 'subscriber' as const,
  password_hash: null,
  first_name: row.firstName,
  last_name: row.lastName,
  created_at: row.at,
});

/**
 * Inserts unless any unique index says otherwise ((provider, lower(email)) or (provider,
 * customer_number)); DO NOTHING keeps a concurrent duplicate from aborting the transaction.
 */
export async function insertSubscriberIfAbsent(trx: Transaction<DB>, row: NewSubscriber & { userId: string | null }): Promise<boolean> {
  const r = await trx
    .insertInto('subscribers')
    .values(subscriberValues(row, row.userId))
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return Boolean(r);
}

/**
 * A new subscriber and its login in one statement: the subscriber login of the email is created
 * (without a password) unless one exists, then the subscriber row is inserted, linked to it when it
 * is a subscriber login. Nothing is inserted (and `inserted` is false) when any unique index of
 * subscribers says no (the email was taken meanwhile, or the customer number is), and when the
 * existing login was committed after this statement began (`loginSeen` false: the statement's
 * snapshot cannot see it, so the caller takes the step-by-step path that re-reads).
 * Inside a transaction a failed statement would abort it, hence "insert nothing" here; outside one,
 * newSubscriberWrites applies the same login rule but fails instead, so that the writes sent with it
 * go too.
 */
export async function insertNewSubscriber(trx: Transaction<DB>, row: NewSubscriber): Promise<{ inserted: boolean; loginSeen: boolean }> {
  const r = await sql<{ login_seen: boolean; inserted: boolean }>`
    WITH u AS (
      INSERT INTO users (id, email, role, password_hash, first_name, last_name, created_at)
      VALUES (${newId()}, ${row.email}, 'subscriber', NULL, ${row.firstName}, ${row.lastName}, ${row.at})
      ON CONFLICT DO NOTHING
      RETURNING id, role
    ), login AS (
      SELECT u.id, u.role FROM u
      UNION ALL
      SELECT users.id, users.role FROM users WHERE lower(users.email) = lower(${row.email}) AND NOT EXISTS (SELECT 1 FROM u)
    ), s AS (
      INSERT INTO subscribers (id, provider_id, user_id, customer_number, first_name, last_name, email, phone, phone_e164, created_at, updated_at)
      SELECT ${row.id}, ${row.providerId}, (SELECT login.id FROM login WHERE login.role = 'subscriber' LIMIT 1), ${row.customerNumber},
        ${row.firstName}, ${row.lastName}, ${row.email}, ${row.phone}, ${row.phoneE164}, ${row.at}, ${row.at}
      WHERE EXISTS (SELECT 1 FROM login)
      ON CONFLICT DO NOTHING
      RETURNING id
    )
    SELECT EXISTS (SELECT 1 FROM login) AS login_seen, EXISTS (SELECT 1 FROM s) AS inserted`.execute(trx);
  const seen = firstRow(r.rows);
  return { inserted: seen.inserted, loginSeen: seen.login_seen };
}

/**
 * A new subscriber and its login as two writes for executeTogether, to go out in one statement with
 * the subscription's writes (no transaction: one statement is atomic). The login `userId` is created
 * (without a password) unless a login with the email exists; the subscriber is linked to the existing
 * one when it is a subscriber login, to none when it is staff.
 *
 * The statement fails, writing nothing, whenever the careful path (findOrCreateSubscriber in a
 * transaction) is needed: the email or the customer number was taken meanwhile (a unique violation on
 * subscribers), or a login with the email was committed after the statement began (the subscriber
 * then names `userId`, which was not inserted: subscribers_user_id_fkey). See isNewSubscriberConflict.
 */
export function newSubscriberWrites(ex: Executor, row: NewSubscriber & { userId: string }): Write[] {
  const existing = sql`(SELECT u.id, u.role FROM users u WHERE lower(u.email) = lower(${row.email}))`;
  return [
    ex
      .insertInto('users')
      .values(subscriberLoginValues({ ...row, id: row.userId }))
      .onConflict((oc) => oc.doNothing()),
    ex.insertInto('subscribers').values(
      subscriberValues(
        row,
        sql<string | null>`CASE WHEN NOT EXISTS (SELECT 1 FROM ${existing} e) THEN ${row.userId}::uuid
        ELSE (SELECT e.id FROM ${existing} e WHERE e.role = 'subscriber') END`,
      ),
    ),
  ];
}

/** The failures of newSubscriberWrites' statement after which the careful path finds or creates the subscriber. */
export function isNewSubscriberConflict(err: unknown): boolean {
  return (
    isUniqueViolation(err, 'subscribers_provider_email_key') ||
    isUniqueViolation(err, 'subscribers_provider_customer_number_key') ||
    isForeignKeyViolation(err, 'subscribers_user_id_fkey')
  );
}

export async function insertUserIfAbsent(
  trx: Transaction<DB>,
  row: { id: string; email: string; firstName: string; lastName: string; at: Date },
) {
  await trx
    .insertInto('users')
    .values(subscriberLoginValues(row))
    .onConflict((oc) => oc.doNothing())
    .execute();
}
