import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { subscriptionsWithPlan } from '../../db/joins.js';
import { INVOICE_SUMMARY_COLUMNS, PLAN_PRICE_COLUMNS, SERVICE_BUILDING_COLUMNS, SUBSCRIBER_CONTACT_COLUMNS } from '../../db/columns.js';
import { isUuid } from '../../lib/ids.js';
import { sessionOf, type SessionRow } from '../verified-sessions/index.js';

// Every query here is scoped to the caller's provider: a customer of another provider is
// indistinguishable from one that does not exist.

const CUSTOMER_COLUMNS = [
  'id',
  'provider_id',
  'user_id',
  'customer_number',
  ...SUBSCRIBER_CONTACT_COLUMNS,
  'invoice_street',
  'invoice_house_number',
  'invoice_postal_code',
  'invoice_city',
  'invoice_country',
] as const;

/** The customer columns every /agent read and write starts from (never internal ones). */
export interface OwnedSubscriberRow {
  id: string;
  provider_id: string;
  user_id: string | null;
  customer_number: string | null;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  phone_e164: string | null;
  invoice_first_name: string | null;
  invoice_last_name: string | null;
  invoice_email: string | null;
  invoice_phone: string | null;
  invoice_street: string | null;
  invoice_house_number: string | null;
  invoice_postal_code: string | null;
  invoice_city: string | null;
  invoice_country: string | null;
}

/**
 * The customer if it belongs to the provider; undefined for another provider's or an unknown id.
 * Through agent_owned_customer (migrations/functions/: the same row, a prepared generic plan), since every
 * /agent customer route runs it first.
 */
export async function findOwnedSubscriber(db: Executor, providerId: string, customerId: string): Promise<OwnedSubscriberRow | undefined> {
  if (!isUuid(customerId)) return undefined;
  const r = await sql<OwnedSubscriberRow>`SELECT * FROM agent_owned_customer(${providerId}::uuid, ${customerId}::uuid)`.execute(db);
  return r.rows[0];
}

/**
 * The owned customer and, in the same statement, the verified session stored under `tokenHash`
 * (undefined when there is none, whoever it belongs to, or no hash was given): the verified /agent
 * routes check both on every request, and one round trip instead of two is most of what a slim read
 * costs besides its own query.
 *
 * `source` names the function that answers "this provider's customer": agent_owned_customer (the
 * customer row) or agent_customer_profile (the same row with the profile's portal login and
 * subscriptions), so the profile route reads ownership, session and its answer in one statement.
 */
export async function findOwnedSubscriberWithSession<S extends OwnedSource = 'agent_owned_customer'>(
  db: Executor,
  providerId: string,
  customerId: string,
  tokenHash: Buffer | null,
  source?: S,
): Promise<{ customer: OwnedRow<S>; session: SessionRow | undefined } | undefined> {
  if (!isUuid(customerId)) return undefined;
  const r = await ownedWithSessionSql(providerId, customerId, tokenHash, source).execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  const { session_provider_id, session_subscriber_id, session_expires_at, ...customer } = row;
  const session = sessionOf({ session_provider_id, session_subscriber_id, session_expires_at });
  const owned = (source === 'agent_customer_profile' ? profileOf(customer as unknown as ProfileRow) : customer) as OwnedRow<S>;
  return { customer: owned, session };
}

/** The statement of findOwnedSubscriberWithSession (also run under EXPLAIN by bench/search/explain.ts). */
export function ownedWithSessionSql(providerId: string, customerId: string, tokenHash: Buffer | null, source?: OwnedSource) {
  const fn = sql.raw(source ?? 'agent_owned_customer');
  return sql<
    Record<string, unknown> & { session_provider_id: string | null; session_subscriber_id: string | null; session_expires_at: Date | null }
  >`
    SELECT c.*, s.provider_id AS session_provider_id, s.subscriber_id AS session_subscriber_id, s.expires_at AS session_expires_at
    FROM ${fn}(${providerId}::uuid, ${customerId}::uuid) c
    LEFT JOIN verified_sessions s ON s.token_hash = ${tokenHash}`;
}

export type OwnedSource = 'agent_owned_customer' | 'agent_customer_profile';
type OwnedRow<S extends OwnedSource> = S extends 'agent_customer_profile' ? Profile : OwnedSubscriberRow;

/** Same, holding the row lock until the transaction ends (serialises per-customer writes). */
export async function lockOwnedSubscriber(trx: Transaction<DB>, providerId: string, customerId: string) {
  if (!isUuid(customerId)) return undefined;
  return trx
    .selectFrom('subscribers')
    .select(CUSTOMER_COLUMNS)
    .where('id', '=', customerId)
    .where('provider_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

/** A customer of the provider with this email (tickets opened by email are linked to it). */
export function findSubscriberIdByEmail(db: Executor, providerId: string, email: string) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'email'])
    .where('provider_id', '=', providerId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export interface ContactPatch {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
  phone_e164?: string | null;
  invoice_first_name?: string;
  invoice_last_name?: string;
  invoice_email?: string;
  invoice_phone?: string;
  invoice_phone_e164?: string | null;
}

export async function updateContact(trx: Transaction<DB>, customerId: string, patch: ContactPatch, now: Date) {
  await trx
    .updateTable('subscribers')
    .set({ ...patch, updated_at: now })
    .where('id', '=', customerId)
    .execute();
}

/** Subscriptions with plan and service location (building address + unit label). */
export function listSubscriptions(db: Executor, customerId: string) {
  return subscriptionsWithPlan(db)
    .leftJoin('locations as l', 'l.id', 's.location_id')
    .leftJoin('buildings as b', (j) => j.on((eb) => eb('b.id', '=', eb.fn.coalesce('s.building_id', 'l.building_id'))))
    .leftJoin('units as u', (j) => j.on((eb) => eb('u.id', '=', eb.fn.coalesce('s.unit_id', 'l.unit_id'))))
    .select(SUBSCRIPTION_COLUMNS)
    .where('s.subscriber_id', '=', customerId)
    .orderBy('s.created_at', 'asc')
    .orderBy('s.id', 'asc')
    .execute();
}

const SUBSCRIPTION_COLUMNS = [
  's.id',
  's.status',
  's.service_billed',
  's.billing_day',
  's.billing_day_effective_from',
  's.previous_billing_day',
  's.suspended_reason',
  's.activated_at',
  's.canceled_at',
  's.ended_at',
  's.created_at',
  's.plan_version_id',
  ...PLAN_PRICE_COLUMNS,
  'pv.download_mbps',
  'pv.upload_mbps',
  ...SERVICE_BUILDING_COLUMNS,
  'u.id as unit_id',
  'u.label as unit_label',
] as const;

/**
 * Everything the verified profile shows, in one call of agent_customer_profile (functions/agent_customer_profile.sql, a
 * prepared generic plan): the customer (of this provider), its subscriptions as listSubscriptions
 * reads them (as JSON: timestamps arrive as ISO strings), and whether a portal login exists and has
 * a password.
 */
export async function findProfile(db: Executor, providerId: string, customerId: string): Promise<Profile | undefined> {
  if (!isUuid(customerId)) return undefined;
  const r = await sql<ProfileRow>`SELECT * FROM agent_customer_profile(${providerId}::uuid, ${customerId}::uuid)`.execute(db);
  return r.rows[0] && profileOf(r.rows[0]);
}

type ProfileRow = OwnedSubscriberRow & {
  portal_user_id: string | null;
  portal_password_set: boolean | null;
  subscriptions: unknown;
};

export type Profile = Omit<ProfileRow, 'subscriptions'> & { subscriptions: SubscriptionRow[] };

function profileOf(row: ProfileRow): Profile {
  const subscriptions = (typeof row.subscriptions === 'string' ? JSON.parse(row.subscriptions) : row.subscriptions) as SubscriptionRow[];
  return { ...row, subscriptions };
}

export type SubscriptionRow = Awaited<ReturnType<typeof listSubscriptions>>[number];

/** Whether the customer has a portal login and whether its password was ever chosen. */
export async function createPortalUser(
  trx: Transaction<DB>,
  u: { id: string; email: string; firstName: string; lastName: string; now: Date },
) {
  await trx
    .insertInto('users')
    .values({ id: u.id, email: u.email, role: 'subscriber', first_name: u.firstName, last_name: u.lastName, created_at: u.now })
    .execute();
}

export async function linkUser(trx: Transaction<DB>, customerId: string, userId: string, now: Date) {
  await trx.updateTable('subscribers').set({ user_id: userId, updated_at: now }).where('id', '=', customerId).execute();
}

/** Invoices of the customer (never the processor's payment-intent id). */
export function listInvoices(db: Executor, customerId: string, o: { status: 'open' | 'paid'; limit: number }) {
  let q = db
    .selectFrom('invoices')
    .select([...INVOICE_SUMMARY_COLUMNS, 'payment_method', 'payment_reference'])
    .where('subscriber_id', '=', customerId)
    .where('status', '=', o.status);
  q =
    o.status === 'paid'
      ? q.orderBy('paid_at', 'desc').orderBy('invoice_date', 'desc')
      : q.orderBy('due_date', 'asc').orderBy('invoice_date', 'asc');
  return q.orderBy('id').limit(o.limit).execute();
}

export async function openBalance(db: Executor, customerId: string) {
  const r = await db
    .selectFrom('invoices')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<string | number>('total_cents'), eb.lit(0)).as('total'),
      eb.fn.countAll<string | number>().as('n'),
    ])
    .where('subscriber_id', '=', customerId)
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  return { totalCents: Number(r.total), count: Number(r.n) };
}

export async function countPaidInvoices(db: Executor, customerId: string) {
  const r = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('subscriber_id', '=', customerId)
    .where('status', '=', 'paid')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Monthly invoices already issued for these subscriptions for one month (its 1st). */
export function invoicedSubscriptions(db: Executor, subscriptionIds: string[], periodStart: string) {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('invoices')
    .select('subscription_id')
    .where('subscription_id', 'in', subscriptionIds)
    .where('period_start', '=', periodStart)
    .where('kind', '=', 'monthly')
    .execute();
}

export function findInvoiceOfSubscriber(db: Executor, customerId: string, invoiceId: string) {
  if (!isUuid(invoiceId)) return Promise.resolve(undefined);
  return db
    .selectFrom('invoices')
    .select(['id', 'invoice_number', 'status', 'subscriber_id', 'provider_id', 'total_cents', 'currency', 'invoice_date', 'due_date'])
    .where('id', '=', invoiceId)
    .where('subscriber_id', '=', customerId)
    .executeTakeFirst();
}

/** The latest provisioning job of each subscription (status only; errors stay internal). */
export function latestProvisioningJobs(db: Executor, subscriptionIds: string[]) {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('jobs')
    .select(['subscription_id', 'kind', 'status', 'attempts', 'max_attempts', 'created_at', 'updated_at', 'finished_at'])
    .distinctOn('subscription_id')
    .where('subscription_id', 'in', subscriptionIds)
    .where('kind', 'like', 'provisioning.%')
    .orderBy('subscription_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function modemStatuses(db: Executor, subscriptionIds: string[]) {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('modem_status')
    .select(['subscription_id', 'state', 'last_seen_at', 'signal_dbm', 'uptime_seconds', 'updated_at'])
    .where('subscription_id', 'in', subscriptionIds)
    .execute();
}

export function installJobs(db: Executor, subscriptionIds: string[]) {
  if (subscriptionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('install_jobs')
    .select(['subscription_id', 'kind', 'status', 'move_in_date', 'booking_starts_at', 'booking_ends_at', 'updated_at'])
    .where('subscription_id', 'in', subscriptionIds)
    .execute();
}

/** Unresolved incidents plus those resolved since `since`, newest first. */
export function recentIncidents(db: Executor, customerId: string, since: Date) {
  return db
    .selectFrom('status_events')
    .select(['id', 'subscription_id', 'kind', 'description', 'started_at', 'resolved_at'])
    .where('subscriber_id', '=', customerId)
    .where((eb) => eb.or([eb('resolved_at', 'is', null), eb('resolved_at', '>=', since)]))
    .orderBy('started_at', 'desc')
    .limit(20)
    .execute();
}
