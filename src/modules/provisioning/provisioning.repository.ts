import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { locationsWithBuilding, subscriptionsWithPlan } from '../../db/joins.js';
import { PORT_JOB_KIND } from '../subscriptions/index.js';
import { firstRow } from '../../lib/present.js';

/**
 * Subscription statuses that count as "existing" for idempotency (and the predicate of the occupancy
 * unique indexes). Occupancy itself is subscription_occupies (the subscriptions module).
 */
const NON_TERMINAL = ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'] as const;

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

/** Everything provider-initiated provisioning decides on, read in one call (provisioning_explicit_snapshot). */
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
  return firstRow(r.rows);
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
