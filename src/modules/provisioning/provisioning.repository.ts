import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { locationsWithBuilding, subscriptionsWithPlan } from '../../db/joins.js';
import { auditWrite, type AuditInput } from '../audit/audit.repository.js';
import type { Write } from '../../db/together.js';
import { newId } from '../../lib/ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/errors.js';

/**
 * Subscription statuses that count as "existing" for idempotency (and the predicate of the occupancy
 * unique indexes). Occupancy itself is subscription_occupies (occupancy.repository.ts).
 */
const NON_TERMINAL = ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'] as const;
export { PORT_JOB_KIND } from './port-job.js';
import { PORT_JOB_KIND } from './port-job.js';

export function findPlanVersion(db: Executor, providerId: string, id: string) {
  return db
    .selectFrom('plan_versions')
    .select(['id', 'provider_id', 'name', 'active', 'download_mbps', 'upload_mbps', 'monthly_price_cents', 'currency'])
    .where('id', '=', id)
    .where('provider_id', '=', providerId)
    .executeTakeFirst();
}

const BUILDING_COLS = ['b.id as building_id', 'b.line_type', 'b.in_coverage', 'b.country'] as const;

export function findLocationById(db: Executor, id: string) {
  return locationsWithBuilding(db)
    .select(['l.id', 'l.unit_id', 'l.switch_port', 'l.provider_id', ...BUILDING_COLS])
    .where('l.id', '=', id)
    .executeTakeFirst();
}

export function findUnit(db: Executor, providerId: string, unitId: string) {
  return db
    .selectFrom('units as u')
    .innerJoin('buildings as b', 'b.id', 'u.building_id')
    .select(['u.id', ...BUILDING_COLS])
    .where('u.id', '=', unitId)
    .where('b.provider_id', '=', providerId)
    .executeTakeFirst();
}

export function findBuilding(db: Executor, id: string) {
  return db.selectFrom('buildings as b').select(BUILDING_COLS).where('b.id', '=', id).executeTakeFirst();
}

/** A location of the unit with a switch port (the port an install connects). */
export function findPortLocationOfUnit(db: Executor, unitId: string) {
  return db
    .selectFrom('locations')
    .select(['id', 'switch_port'])
    .where('unit_id', '=', unitId)
    .where('switch_port', 'is not', null)
    .orderBy('created_at')
    .executeTakeFirst();
}

/** Everything provider-initiated provisioning decides on, read in one call (migration 1220). */
export interface ExplicitSnapshot {
  plan_found: boolean;
  plan_active: boolean;
  target_found: boolean;
  location_id: string | null;
  unit_id: string | null;
  switch_port: string | null;
  building_id: string | null;
  line_type: string | null;
  in_coverage: boolean | null;
  country: string | null;
  /** The subscription of the idempotency key (subscriber email, plan version, port or unit), if any. */
  existing_id: string | null;
  existing_subscriber_id: string | null;
  /** A subscription occupies the unit or the port (subscription_occupies: live, or cancelled before its ended_at). */
  occupied: boolean;
  subscriber_id: string | null;
  subscriber_email: string | null;
  subscriber_first_name: string | null;
}

/**
 * Plan version, port (locationHash, delivery mode direct) or unit (unitId, home_drop) with its
 * building, the subscriber of the email, the existing subscription of the idempotency key and the
 * occupancy of the unit/port: one statement, planned once per connection (provisioning_explicit_snapshot).
 */
export async function explicitSnapshot(
  db: Executor,
  k: { providerId: string; planVersionId: string; locationHash: string | null; unitId: string | null; email: string; today: string },
): Promise<ExplicitSnapshot> {
  const r = await sql<ExplicitSnapshot>`
    SELECT * FROM provisioning_explicit_snapshot(${k.providerId}, ${k.planVersionId}, ${k.locationHash}, ${k.unitId}, ${k.email}, ${k.today}::date)`.execute(
    db,
  );
  return r.rows[0];
}

// Subscribers ---------------------------------------------------------------------------------

export function findSubscriberByEmail(db: Executor, providerId: string, email: string) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'user_id', 'email', 'first_name', 'last_name', 'customer_number'])
    .where('provider_id', '=', providerId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** A new subscriber's row, as the service has it (its login, `user_id`, is decided by each insert). */
interface NewSubscriber {
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
  return { inserted: r.rows[0].inserted, loginSeen: r.rows[0].login_seen };
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

// Subscriptions -------------------------------------------------------------------------------

export type Origin = 'checkout_session' | 'explicit' | 'anonymous' | 'provider_initiated' | 'bulk';

export interface NewSubscription {
  id: string;
  providerId: string;
  subscriberId: string;
  planVersionId: string;
  buildingId: string;
  unitId: string | null;
  locationId: string | null;
  status: 'ACTIVE' | 'PENDING_INSTALL';
  origin: Origin;
  macAddress: string | null;
  checkoutSessionId: string | null;
  externalSubscriptionId: string | null;
  at: Date;
}

function subscriptionValues(row: NewSubscription) {
  return {
    id: row.id,
    provider_id: row.providerId,
    subscriber_id: row.subscriberId,
    plan_version_id: row.planVersionId,
    building_id: row.buildingId,
    unit_id: row.unitId,
    location_id: row.locationId,
    status: row.status,
    // CKO-03 and CKO-04 are billed by the provider: this service never invoices them.
    service_billed: false,
    origin: row.origin,
    mac_address: row.macAddress,
    checkout_session_id: row.checkoutSessionId,
    external_subscription_id: row.externalSubscriptionId,
    activated_at: row.status === 'ACTIVE' ? row.at : null,
    created_at: row.at,
    updated_at: row.at,
  };
}

/**
 * The subscription's insert and the audit entry that describes its creation, not yet run: the
 * caller sends them together with its other writes (db/together.ts). A partial unique index refusing
 * the subscription (a unit or port taken meanwhile) fails the whole statement, as the caller expects.
 */
export function subscriptionWrites(trx: Executor, row: NewSubscription, audit: AuditInput): Write[] {
  return [trx.insertInto('subscriptions').values(subscriptionValues(row)), auditWrite(trx, audit)];
}

/** The (subscriber email, plan version, location-or-unit) idempotency key of provisioning. */
export function findExistingProvisioned(
  db: Executor,
  k: { providerId: string; email: string; planVersionId: string; locationId: string | null; unitId: string | null },
) {
  let q = db
    .selectFrom('subscriptions as s')
    .innerJoin('subscribers as sb', 'sb.id', 's.subscriber_id')
    .select(['s.id', 's.subscriber_id', 's.status', 's.location_id', 's.unit_id'])
    .where('s.provider_id', '=', k.providerId)
    .where(sql`lower(sb.email)`, '=', k.email.toLowerCase())
    .where('s.plan_version_id', '=', k.planVersionId)
    .where('s.status', 'in', NON_TERMINAL);
  if (k.locationId) q = q.where('s.location_id', '=', k.locationId);
  else if (k.unitId) q = q.where('s.unit_id', '=', k.unitId);
  else return Promise.resolve(undefined);
  return q.orderBy('s.created_at', 'desc').executeTakeFirst();
}

export function findSubscriptionByExternalId(db: Executor, providerId: string, externalId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'subscriber_id', 'status'])
    .where('provider_id', '=', providerId)
    .where('external_subscription_id', '=', externalId)
    .executeTakeFirst();
}

export function findSubscription(db: Executor, id: string) {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What the port job sends the switch: the subscription's port and its plan's bandwidth. */
export function findPortWork(db: Executor, subscriptionId: string) {
  return subscriptionsWithPlan(db)
    .leftJoin('locations as l', 'l.id', 's.location_id')
    .select([
      's.id',
      's.status',
      's.provider_id',
      's.subscriber_id',
      's.mac_address',
      's.location_id',
      'l.switch_id',
      'l.switch_port',
      'l.vlan_id',
      'pv.download_mbps',
      'pv.upload_mbps',
    ])
    .where('s.id', '=', subscriptionId)
    .executeTakeFirst();
}

export async function attachPort(trx: Transaction<DB>, subscriptionId: string, locationId: string, now: Date) {
  await trx.updateTable('subscriptions').set({ location_id: locationId, updated_at: now }).where('id', '=', subscriptionId).execute();
}

export function lockSubscription(trx: Transaction<DB>, id: string) {
  return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function hasInstallJob(db: Executor, subscriptionId: string) {
  return db.selectFrom('install_jobs').select(['id', 'status', 'kind']).where('subscription_id', '=', subscriptionId).executeTakeFirst();
}

// Jobs ----------------------------------------------------------------------------------------

export function latestPortJob(db: Executor, subscriptionId: string) {
  return (
    db
      .selectFrom('jobs')
      .select(['id', 'status'])
      .where('subscription_id', '=', subscriptionId)
      .where('kind', '=', PORT_JOB_KIND)
      // The same order as the agent's latestProvisioningJobs: both name one job "the latest".
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst()
  );
}

export function findProvisioningJob(db: Executor, providerId: string, jobId: string) {
  return db
    .selectFrom('jobs')
    .select(['id', 'kind', 'status', 'attempts', 'last_error', 'subscription_id', 'created_at', 'updated_at'])
    .where('id', '=', jobId)
    .where('provider_id', '=', providerId)
    .where('kind', '=', PORT_JOB_KIND)
    .executeTakeFirst();
}

/**
 * Switch jobs that take a port away (the ended_at reset of a cancelled subscription, the captive portal of a
 * non-payment suspension) and are running now on this port: each checked its state before calling the switch, so
 * its call may still land after ours and undo the port we are about to provision.
 */
const PORT_TAKING_JOB_KINDS = ['cancellation.port_reset', 'billing.captive_portal'] as const;

export function runningPortTakingJob(db: Executor, locationId: string) {
  return db
    .selectFrom('jobs as j')
    .innerJoin('subscriptions as s', 's.id', 'j.subscription_id')
    .select(['j.id', 'j.kind'])
    .where('j.status', '=', 'running')
    .where('j.kind', 'in', [...PORT_TAKING_JOB_KINDS])
    .where('s.location_id', '=', locationId)
    .executeTakeFirst();
}
