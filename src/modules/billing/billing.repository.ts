// The billing process's reads: the subscription it bills (locked), the records a run or a payment
// decides on, the run's candidates and dunning's overdue list. The writes of invoices, credit notes
// and adjustments are the invoices owner's.
import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { subscriptionsWithPlan } from '../../db/joins.js';
import { PLAN_PRICE_COLUMNS, SUBSCRIPTION_BILLING_COLUMNS } from '../../db/columns.js';

export type Trx = Transaction<DB>;

/** A subscription with what billing needs, locked for the rest of the transaction. */
export function lockSubscriptionForBilling(trx: Trx, subscriptionId: string) {
  return subscriptionsWithPlan(trx)
    .innerJoin('subscribers as sb', 'sb.id', 's.subscriber_id')
    .innerJoin('providers as p', 'p.id', 's.provider_id')
    .select([
      ...SUBSCRIPTION_BILLING_COLUMNS,
      ...PLAN_PRICE_COLUMNS,
      'sb.email',
      'sb.first_name',
      'sb.last_name',
      'sb.invoice_email',
      'sb.card_payment_method_id',
      'p.name as provider_name',
      'p.card_processor_account',
      'p.payment_grace_days',
    ])
    .where('s.id', '=', subscriptionId)
    .forUpdate('s')
    .executeTakeFirst();
}

export type BillingSubscription = NonNullable<Awaited<ReturnType<typeof lockSubscriptionForBilling>>>;

export function findFirstInvoice(ex: Executor, subscriptionId: string) {
  return ex.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).where('kind', '=', 'first').executeTakeFirst();
}

export function findInvoice(ex: Executor, invoiceId: string) {
  return ex.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
}

export function pendingAdjustments(trx: Trx, subscriptionId: string) {
  return trx
    .selectFrom('pending_adjustments')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Open credit notes of the subscription, and the subscriber's notes not tied to a subscription. */
export function openCreditNotes(trx: Trx, subscriptionId: string, subscriberId: string) {
  return trx
    .selectFrom('credit_notes')
    .selectAll()
    .where('state', '=', 'open')
    .where((eb) =>
      eb.or([
        eb('subscription_id', '=', subscriptionId),
        eb.and([eb('subscription_id', 'is', null), eb('subscriber_id', '=', subscriberId)]),
      ]),
    )
    .orderBy('issued_at')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Service-billed subscriptions the run of `month` may still have to invoice: in service during
 * the month (ACTIVE, SUSPENDED, or CANCELLED with service past the month's 1st), or cancelled
 * earlier with adjustments still pending (their closing invoice). Those already invoiced for the
 * month are left out; the per-subscription transaction checks again under lock.
 */
export async function billingCandidates(ex: Executor, month: string, limit: number, afterId: string | null) {
  let q = ex
    .selectFrom('subscriptions as s')
    .select(['s.id'])
    .where('s.service_billed', '=', true)
    .where((eb) =>
      eb.or([
        eb('s.status', 'in', ['ACTIVE', 'SUSPENDED']),
        eb.and([eb('s.status', '=', 'CANCELLED'), eb('s.ended_at', '>', month)]),
        eb.and([
          eb('s.status', '=', 'CANCELLED'),
          eb.exists(
            eb
              .selectFrom('pending_adjustments as pa')
              .select(sql`1`.as('one'))
              .whereRef('pa.subscription_id', '=', 's.id')
              .where('pa.status', '=', 'pending'),
          ),
        ]),
      ]),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('invoices as i')
            .select(sql`1`.as('one'))
            .whereRef('i.subscription_id', '=', 's.id')
            .where('i.period_start', '=', month)
            .where('i.status', '<>', 'void'),
        ),
      ),
    )
    .orderBy('s.id')
    .limit(limit);
  if (afterId) q = q.where('s.id', '>', afterId);
  return (await q.execute()).map((r) => r.id);
}

/** Open invoices of service-billed, ACTIVE subscriptions whose due date is before `cutoff`. */
export function overdueSubscriptions(ex: Executor, today: string) {
  return ex
    .selectFrom('invoices as i')
    .innerJoin('subscriptions as s', 's.id', 'i.subscription_id')
    .innerJoin('providers as p', 'p.id', 's.provider_id')
    .select(['s.id as subscription_id', 'i.id as invoice_id'])
    .where('i.status', '=', 'open')
    .where('s.status', '=', 'ACTIVE')
    .where('s.service_billed', '=', true)
    .where(sql<boolean>`i.due_date + p.payment_grace_days < ${today}::date`)
    .orderBy('i.due_date')
    .execute();
}

/** Does the subscription still have an open invoice past due date plus grace? */
export async function hasOverdueInvoice(ex: Executor, subscriptionId: string, today: string, graceDays: number) {
  const r = await ex
    .selectFrom('invoices')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'open')
    .where(sql<boolean>`due_date + ${graceDays}::int < ${today}::date`)
    .executeTakeFirst();
  return Boolean(r);
}

// Payment and non-payment: each write changes state only from the state it expects, so a
// concurrent payment or suspension makes it a no-op (no row returned).
