// The subscriptions table's shared reads and its state changes. The processes decide (billing
// activates, suspends and restores; cancellation ends; plan change, the partner's status route and
// the billing-day change set their column) and run these inside their own transactions; each
// process keeps its own locking read beside its rules. A new subscription's insert is built here
// and sent by provisioning with its other writes (newSubscriptionWrites).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import type { Write } from '../../db/together.js';
import { auditWrite, type AuditInput } from '../audit/index.js';

export function findSubscription(db: Executor, id: string) {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The subscription a provider knows by its own id (a completion's idempotent replay). */
export function findSubscriptionByExternalId(db: Executor, providerId: string, externalId: string) {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'subscriber_id', 'status'])
    .where('provider_id', '=', providerId)
    .where('external_subscription_id', '=', externalId)
    .executeTakeFirst();
}

/** PENDING_INSTALL → ACTIVE. */
export function activateIfPendingInstall(trx: Transaction<DB>, subscriptionId: string, now: Date) {
  return trx
    .updateTable('subscriptions')
    .set({ status: 'ACTIVE', activated_at: now, updated_at: now })
    .where('id', '=', subscriptionId)
    .where('status', '=', 'PENDING_INSTALL')
    .returning(['provider_id', 'location_id'])
    .executeTakeFirst();
}

/** SUSPENDED for non-payment → ACTIVE. */
export function restoreIfSuspendedForNonPayment(trx: Transaction<DB>, subscriptionId: string, now: Date) {
  return trx
    .updateTable('subscriptions')
    .set({ status: 'ACTIVE', suspended_reason: null, updated_at: now })
    .where('id', '=', subscriptionId)
    .where('status', '=', 'SUSPENDED')
    .where('suspended_reason', '=', 'non_payment')
    .returning(['provider_id', 'location_id'])
    .executeTakeFirst();
}

/** ACTIVE → SUSPENDED for non-payment (dunning). */
export async function suspendForNonPayment(trx: Transaction<DB>, subscriptionId: string, now: Date) {
  await trx
    .updateTable('subscriptions')
    .set({ status: 'SUSPENDED', suspended_reason: 'non_payment', updated_at: now })
    .where('id', '=', subscriptionId)
    .execute();
}

/** Cancelled now, the service ending on `endDate`. */
export async function markCancelled(trx: Transaction<DB>, id: string, endDate: string, now: Date) {
  await trx
    .updateTable('subscriptions')
    .set({ status: 'CANCELLED', canceled_at: now, ended_at: endDate, suspended_reason: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The port was reset after the subscription ended (once). */
export async function markPortReset(ex: Executor, id: string, now: Date) {
  await ex
    .updateTable('subscriptions')
    .set({ port_reset_at: now, updated_at: now })
    .where('id', '=', id)
    .where('port_reset_at', 'is', null)
    .execute();
}

/** A plan change's new plan version. */
export const setSubscriptionPlan = (trx: Transaction<DB>, subscriptionId: string, planVersionId: string, now: Date) =>
  trx.updateTable('subscriptions').set({ plan_version_id: planVersionId, updated_at: now }).where('id', '=', subscriptionId).execute();

/** The port a confirmed install was wired to. */
export async function attachPort(trx: Transaction<DB>, subscriptionId: string, locationId: string, now: Date) {
  await trx.updateTable('subscriptions').set({ location_id: locationId, updated_at: now }).where('id', '=', subscriptionId).execute();
}

/** A new billing day, effective from a month, keeping the previous one for the months before. */
export async function setBillingDay(
  trx: Transaction<DB>,
  subscriptionId: string,
  d: { billingDay: number; effectiveFrom: string; previous: number },
  now: Date,
) {
  await trx
    .updateTable('subscriptions')
    .set({
      billing_day: d.billingDay,
      billing_day_effective_from: d.effectiveFrom,
      previous_billing_day: d.previous,
      updated_at: now,
    })
    .where('id', '=', subscriptionId)
    .execute();
}

/** The partner's suspend (reason provider) or restore. */
export const setSubscriptionStatus = (
  trx: Transaction<DB>,
  id: string,
  to: { status: 'ACTIVE' | 'SUSPENDED'; suspended_reason: 'provider' | null },
  now: Date,
) =>
  trx
    .updateTable('subscriptions')
    .set({ ...to, updated_at: now })
    .where('id', '=', id)
    .execute();

export type SubscriptionOrigin = 'checkout_session' | 'explicit' | 'anonymous' | 'provider_initiated' | 'bulk';

export interface NewSubscription {
  id: string;
  providerId: string;
  subscriberId: string;
  planVersionId: string;
  buildingId: string;
  unitId: string | null;
  locationId: string | null;
  status: 'ACTIVE' | 'PENDING_INSTALL';
  origin: SubscriptionOrigin;
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
export function newSubscriptionWrites(trx: Executor, row: NewSubscription, audit: AuditInput): Write[] {
  return [trx.insertInto('subscriptions').values(subscriptionValues(row)), auditWrite(trx, audit)];
}
