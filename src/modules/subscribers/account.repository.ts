// Reads and writes of the subscriber self-service (the subscriber record is subscribers.user_id = JWT sub).
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { SavedCard } from '../../adapters/types.js';
import type { Executor } from '../../db/executor.js';
import { subscriptionsWithPlan } from '../../db/joins.js';
import { BUILDING_ADDRESS_COLUMNS, INVOICE_SUMMARY_COLUMNS, PLAN_PRICE_COLUMNS, SUBSCRIPTION_BILLING_COLUMNS } from '../../db/columns.js';

/** The subscriber record of a login; with several (one per provider), the oldest. */
export function findSubscriberByUser(ex: Executor, userId: string) {
  return ex
    .selectFrom('subscribers')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export type SubscriberRow = NonNullable<Awaited<ReturnType<typeof findSubscriberByUser>>>;

export function subscriptionsOf(ex: Executor, subscriberId: string) {
  return subscriptionsWithPlan(ex)
    .leftJoin('buildings as b', 'b.id', 's.building_id')
    .leftJoin('units as u', 'u.id', 's.unit_id')
    .select([
      ...SUBSCRIPTION_BILLING_COLUMNS,
      's.created_at',
      'pv.id as plan_version_id',
      ...PLAN_PRICE_COLUMNS,
      'pv.download_mbps',
      'pv.upload_mbps',
      ...BUILDING_ADDRESS_COLUMNS,
      'u.label as unit_label',
    ])
    .where('s.subscriber_id', '=', subscriberId)
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id')
    .execute();
}

/**
 * The sessions created with this login's token. A session completed by someone else (the link was
 * passed on and the buyer used their own email) shows no subscription id: that subscription is the
 * buyer's, not this login's.
 */
export function checkoutSessionsOfUser(ex: Executor, userId: string) {
  return ex
    .selectFrom('checkout_sessions as c')
    .innerJoin('plan_versions as pv', 'pv.id', 'c.plan_version_id')
    .leftJoin('subscriptions as s', 's.id', 'c.subscription_id')
    .leftJoin('subscribers as sr', (j) => j.onRef('sr.id', '=', 's.subscriber_id').on('sr.user_id', '=', userId))
    .select(['c.id', 'c.status', 'c.created_at', 'c.completed_at', 'pv.id as plan_version_id', ...PLAN_PRICE_COLUMNS])
    .select((eb) => eb.case().when('sr.id', 'is not', null).then(eb.ref('c.subscription_id')).else(null).end().as('subscription_id'))
    .where('c.user_id', '=', userId)
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id')
    .execute();
}

export function invoicesOf(ex: Executor, subscriberId: string) {
  return ex
    .selectFrom('invoices')
    .select([...INVOICE_SUMMARY_COLUMNS, 'subscription_id'])
    .where('subscriber_id', '=', subscriberId)
    .where('status', '<>', 'draft')
    .orderBy('invoice_date', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export function linesOf(ex: Executor, invoiceIds: string[]) {
  if (!invoiceIds.length) return Promise.resolve([]);
  return ex
    .selectFrom('invoice_lines')
    .select(['invoice_id', 'position', 'kind', 'description', 'amount_cents'])
    .where('invoice_id', 'in', invoiceIds)
    .orderBy('invoice_id')
    .orderBy('position')
    .execute();
}

export function usageOf(ex: Executor, subscriptionIds: string[], fromMonth: string) {
  if (!subscriptionIds.length) return Promise.resolve([]);
  return ex
    .selectFrom('usage_monthly')
    .select(['subscription_id', 'month', 'download_bytes', 'upload_bytes'])
    .where('subscription_id', 'in', subscriptionIds)
    .where('month', '>=', fromMonth)
    .execute();
}

export function statusEventsOf(ex: Executor, subscriberId: string, limit: number) {
  return ex
    .selectFrom('status_events')
    .select(['id', 'kind', 'description', 'started_at', 'resolved_at', 'subscription_id'])
    .where('subscriber_id', '=', subscriberId)
    .orderBy('started_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The caller's own subscription, locked (billing-day change). */
export function lockOwnSubscription(trx: Transaction<DB>, subscriberIds: string[], subscriptionId: string) {
  return trx
    .selectFrom('subscriptions')
    .selectAll()
    .where('id', '=', subscriptionId)
    .where('subscriber_id', 'in', subscriberIds)
    .forUpdate()
    .executeTakeFirst();
}

/** Every subscriber record of a login (a login may be a customer of several providers). */
export async function subscriberIdsOfUser(ex: Executor, userId: string): Promise<string[]> {
  return (await ex.selectFrom('subscribers').select('id').where('user_id', '=', userId).execute()).map((r) => r.id);
}

/** The saved card; `endSetup` also closes the card setup that produced it. */
export async function saveCard(ex: Executor, subscriberId: string, card: SavedCard, now: Date, endSetup = false) {
  await ex
    .updateTable('subscribers')
    .set({
      card_payment_method_id: card.payment_method_id,
      card_brand: card.brand,
      card_last4: card.last4,
      card_exp_month: card.exp_month,
      card_exp_year: card.exp_year,
      ...(endSetup ? { card_setup_id: null, card_setup_secret_hash: null } : {}),
      updated_at: now,
    })
    .where('id', '=', subscriberId)
    .execute();
}

export async function startCardSetup(ex: Executor, subscriberId: string, setupId: string, secretHash: Buffer, now: Date) {
  await ex
    .updateTable('subscribers')
    .set({ card_setup_id: setupId, card_setup_secret_hash: secretHash, updated_at: now })
    .where('id', '=', subscriberId)
    .execute();
}

export function findSubscriberProvider(ex: Executor, subscriberId: string) {
  return ex.selectFrom('subscribers').select(['id', 'provider_id']).where('id', '=', subscriberId).executeTakeFirst();
}

/** The subscriber whose card setup in progress is this one (a processor's setup-succeeded event). */
export function findSubscriberByCardSetup(ex: Executor, setupId: string) {
  return ex
    .selectFrom('subscribers')
    .innerJoin('providers as p', 'p.id', 'subscribers.provider_id')
    .select(['subscribers.id', 'p.card_processor_account'])
    .where('subscribers.card_setup_id', '=', setupId)
    .executeTakeFirst();
}

/** The provider's subscriber with this email (case-insensitive), if any. */
export function findSubscriberByEmail(db: Executor, providerId: string, email: string) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'user_id', 'email', 'first_name', 'last_name', 'customer_number'])
    .where('provider_id', '=', providerId)
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}
