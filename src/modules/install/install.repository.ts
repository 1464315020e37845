import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { BUILDING_ADDRESS_COLUMNS } from '../../db/columns.js';

export type InstallStatus = 'CREATED' | 'BOOKING_HELD' | 'BOOKING_SENT' | 'BOOKED' | 'SHIPPED' | 'COMPLETED' | 'CANCELLED';

export async function insertInstallJob(
  trx: Transaction<DB>,
  row: {
    id: string;
    providerId: string;
    subscriptionId: string;
    unitId: string | null;
    kind: 'technician_visit' | 'cpe_shipment';
    status: InstallStatus;
    moveInDate: string | null;
    at: Date;
  },
) {
  await trx
    .insertInto('install_jobs')
    .values({
      id: row.id,
      provider_id: row.providerId,
      subscription_id: row.subscriptionId,
      unit_id: row.unitId,
      kind: row.kind,
      status: row.status,
      move_in_date: row.moveInDate,
      created_at: row.at,
      updated_at: row.at,
    })
    .execute();
}

export function lockInstallJob(trx: Transaction<DB>, id: string) {
  return trx.selectFrom('install_jobs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export function lockInstallJobOfSubscription(trx: Transaction<DB>, subscriptionId: string) {
  return trx.selectFrom('install_jobs').selectAll().where('subscription_id', '=', subscriptionId).forUpdate().executeTakeFirst();
}

export async function updateInstallJob(
  trx: Transaction<DB>,
  id: string,
  patch: {
    status?: InstallStatus;
    booking_starts_at?: Date | null;
    booking_ends_at?: Date | null;
    booking_invite_sent_at?: Date;
    at: Date;
  },
) {
  const { at, ...rest } = patch;
  await trx
    .updateTable('install_jobs')
    .set({ ...rest, updated_at: at })
    .where('id', '=', id)
    .execute();
}

/** Bookings of the provider per window start (ISO string → count) in [from, to). */
export async function bookedCounts(db: Executor, providerId: string, from: Date, to: Date, excludeJobId?: string) {
  let q = db
    .selectFrom('install_jobs')
    .select(['booking_starts_at', (eb) => eb.fn.countAll<string>().as('n')])
    .where('provider_id', '=', providerId)
    .where('status', '=', 'BOOKED')
    .where('booking_starts_at', '>=', from)
    .where('booking_starts_at', '<', to)
    .groupBy('booking_starts_at');
  if (excludeJobId) q = q.where('id', '<>', excludeJobId);
  const rows = await q.execute();
  return new Map(rows.map((r) => [new Date(r.booking_starts_at!).toISOString(), Number(r.n)]));
}

/** Serialises bookings of one provider (capacity check and insert) without blocking FK inserts. */
export async function lockProviderCalendar(trx: Transaction<DB>, providerId: string) {
  await trx.selectFrom('providers').select('id').where('id', '=', providerId).forNoKeyUpdate().execute();
}

/** An install job (`j`) with its subscription (`s`) and subscriber (`sb`). */
const jobsWithSubscriber = (db: Executor) =>
  db
    .selectFrom('install_jobs as j')
    .innerJoin('subscriptions as s', 's.id', 'j.subscription_id')
    .innerJoin('subscribers as sb', 'sb.id', 's.subscriber_id');

/** Everything the booking page shows, by the install job id a booking link points at. */
export function findBookingContext(db: Executor, installJobId: string) {
  return jobsWithSubscriber(db)
    .innerJoin('providers as p', 'p.id', 'j.provider_id')
    .leftJoin('units as u', 'u.id', 'j.unit_id')
    .leftJoin('buildings as b', 'b.id', 's.building_id')
    .leftJoin('building_calendars as c', 'c.building_id', 's.building_id')
    .select([
      'j.id',
      'j.provider_id',
      'j.status',
      'j.kind',
      'j.move_in_date',
      'j.booking_starts_at',
      'j.booking_ends_at',
      'sb.first_name',
      'sb.email',
      'p.name as provider_name',
      'p.support_email',
      'p.branding',
      'u.label as unit_label',
      ...BUILDING_ADDRESS_COLUMNS,
      'c.time_zone',
    ])
    .where('j.id', '=', installJobId)
    .executeTakeFirst();
}

/** The calendar of a unit's building: its time zone and booking window (the view building_calendars). */
export function findUnitCalendar(db: Executor, unitId: string) {
  return db
    .selectFrom('units as u')
    .leftJoin('building_calendars as c', 'c.building_id', 'u.building_id')
    .select(['c.time_zone', 'c.booking_window_days'])
    .where('u.id', '=', unitId)
    .executeTakeFirst();
}

/** The held invitation's install job with its subscriber and subscription status (the scheduled release). */
export function findInvitationTarget(db: Executor, installJobId: string) {
  return jobsWithSubscriber(db)
    .select(['j.status', 'sb.id as subscriber_id', 'sb.email', 'sb.first_name', 's.status as subscription_status'])
    .where('j.id', '=', installJobId)
    .executeTakeFirst();
}

/** The install job of a subscription with what the shipment needs (locked: the caller writes it). */
export function lockShipmentTarget(trx: Transaction<DB>, subscriptionId: string) {
  return trx
    .selectFrom('install_jobs as j')
    .innerJoin('subscriptions as s', 's.id', 'j.subscription_id')
    .select([
      'j.id',
      'j.provider_id',
      'j.status',
      'j.kind',
      'j.carrier',
      'j.tracking_reference',
      'j.shipped_at',
      's.status as subscription_status',
    ])
    .where('j.subscription_id', '=', subscriptionId)
    .forUpdate('j')
    .executeTakeFirst();
}

export async function markShipped(trx: Transaction<DB>, id: string, s: { carrier: string; trackingReference: string; at: Date }) {
  await trx
    .updateTable('install_jobs')
    .set({ status: 'SHIPPED', carrier: s.carrier, tracking_reference: s.trackingReference, shipped_at: s.at, updated_at: s.at })
    .where('id', '=', id)
    .execute();
}

/** An installation not done yet is called off. */
export async function cancelOpenInstallJobs(trx: Transaction<DB>, subscriptionId: string, now: Date) {
  await trx
    .updateTable('install_jobs')
    .set({ status: 'CANCELLED', updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', 'not in', ['COMPLETED', 'CANCELLED'])
    .execute();
}
