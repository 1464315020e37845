// Reads and writes of the subscriber self-service (the subscriber record is subscribers.user_id = JWT sub).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

/** The subscriber record of a login; with several (one per provider), the oldest. */
export function findSubscriberByUser(ex: Executor, userId: string) {
  return ex.selectFrom('subscribers').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}

export type SubscriberRow = NonNullable<Awaited<ReturnType<typeof findSubscriberByUser>>>;

export function subscriptionsOf(ex: Executor, subscriberId: string) {
  return ex.selectFrom('subscriptions as s')
    .innerJoin('plan_versions as pv', 'pv.id', 's.plan_version_id')
    .leftJoin('buildings as b', 'b.id', 's.building_id')
    .leftJoin('units as u', 'u.id', 's.unit_id')
    .select([
      's.id', 's.status', 's.service_billed', 's.billing_day', 's.billing_day_effective_from', 's.previous_billing_day',
      's.activated_at', 's.canceled_at', 's.ended_at', 's.created_at', 's.suspended_reason',
      'pv.id as plan_version_id', 'pv.name as plan_name', 'pv.monthly_price_cents', 'pv.currency', 'pv.download_mbps', 'pv.upload_mbps',
      'b.street', 'b.house_number', 'b.postal_code', 'b.city', 'b.province', 'b.country', 'u.label as unit_label',
    ])
    .where('s.subscriber_id', '=', subscriberId)
    .orderBy('s.created_at', 'desc').orderBy('s.id')
    .execute();
}

export function checkoutSessionsOfUser(ex: Executor, userId: string) {
  return ex.selectFrom('checkout_sessions as c')
    .innerJoin('plan_versions as pv', 'pv.id', 'c.plan_version_id')
    .select(['c.id', 'c.status', 'c.subscription_id', 'c.created_at', 'c.completed_at', 'pv.id as plan_version_id', 'pv.name as plan_name', 'pv.monthly_price_cents', 'pv.currency'])
    .where('c.user_id', '=', userId)
    .orderBy('c.created_at', 'desc').orderBy('c.id')
    .execute();
}

export function findProvider(ex: Executor, providerId: string) {
  return ex.selectFrom('providers').select(['id', 'name', 'branding', 'support_email', 'currency']).where('id', '=', providerId).executeTakeFirst();
}

export function invoicesOf(ex: Executor, subscriberId: string) {
  return ex.selectFrom('invoices')
    .select(['id', 'invoice_number', 'kind', 'period_start', 'invoice_date', 'due_date', 'currency', 'total_cents', 'status', 'paid_at', 'subscription_id'])
    .where('subscriber_id', '=', subscriberId)
    .where('status', '<>', 'draft')
    .orderBy('invoice_date', 'desc').orderBy('created_at', 'desc').orderBy('id')
    .execute();
}

export function linesOf(ex: Executor, invoiceIds: string[]) {
  if (!invoiceIds.length) return Promise.resolve([]);
  return ex.selectFrom('invoice_lines').select(['invoice_id', 'position', 'kind', 'description', 'amount_cents'])
    .where('invoice_id', 'in', invoiceIds).orderBy('invoice_id').orderBy('position').execute();
}

export function usageOf(ex: Executor, subscriptionIds: string[], fromMonth: string) {
  if (!subscriptionIds.length) return Promise.resolve([]);
  return ex.selectFrom('usage_monthly').select(['subscription_id', 'month', 'download_bytes', 'upload_bytes'])
    .where('subscription_id', 'in', subscriptionIds).where('month', '>=', fromMonth)
    .execute();
}

export function statusEventsOf(ex: Executor, subscriberId: string, limit: number) {
  return ex.selectFrom('status_events').select(['id', 'kind', 'description', 'started_at', 'resolved_at', 'subscription_id'])
    .where('subscriber_id', '=', subscriberId)
    .orderBy('started_at', 'desc').orderBy('id')
    .limit(limit)
    .execute();
}

export function findUser(ex: Executor, userId: string) {
  return ex.selectFrom('users').select(['id', 'password_hash', 'role']).where('id', '=', userId).executeTakeFirst();
}

/** The caller's own subscription, locked (billing-day change). */
export function lockOwnSubscription(trx: Transaction<DB>, subscriberIds: string[], subscriptionId: string) {
  return trx.selectFrom('subscriptions').selectAll()
    .where('id', '=', subscriptionId).where('subscriber_id', 'in', subscriberIds)
    .forUpdate().executeTakeFirst();
}

/** Every subscriber record of a login (a login may be a customer of several providers). */
export async function subscriberIdsOfUser(ex: Executor, userId: string): Promise<string[]> {
  return (await ex.selectFrom('subscribers').select('id').where('user_id', '=', userId).execute()).map((r) => r.id);
}
