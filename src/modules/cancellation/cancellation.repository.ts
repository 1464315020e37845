import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { subscriptionsWithPlan } from '../../db/joins.js';
import { PLAN_PRICE_COLUMNS, SUBSCRIPTION_BILLING_COLUMNS } from '../../db/columns.js';

function subscriptionQuery(ex: Executor, id: string) {
  return subscriptionsWithPlan(ex)
    .select([...SUBSCRIPTION_BILLING_COLUMNS, ...PLAN_PRICE_COLUMNS])
    .where('s.id', '=', id);
}

/** The subscription with what the cancellation quote needs. */
export function findSubscriptionToCancel(ex: Executor, id: string) {
  return subscriptionQuery(ex, id).executeTakeFirst();
}

/** Same, holding the row lock until the transaction ends. */
export function lockSubscriptionToCancel(trx: Transaction<DB>, id: string) {
  return subscriptionQuery(trx, id).forUpdate('s').executeTakeFirst();
}

export type SubscriptionToCancel = NonNullable<Awaited<ReturnType<typeof findSubscriptionToCancel>>>;

/** Corrections not invoiced yet, oldest first (the quote lists them). */
export function listPendingAdjustments(ex: Executor, subscriptionId: string) {
  return ex
    .selectFrom('pending_adjustments')
    .select(['kind', 'amount_cents', 'description'])
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .execute();
}

export async function markCancelled(trx: Transaction<DB>, id: string, endDate: string, now: Date) {
  await trx
    .updateTable('subscriptions')
    .set({ status: 'CANCELLED', canceled_at: now, ended_at: endDate, suspended_reason: null, updated_at: now })
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

/** Voids the unpaid first invoice; returns the ids voided. */
export async function voidOpenFirstInvoice(trx: Transaction<DB>, subscriptionId: string): Promise<string[]> {
  const rows = await trx
    .updateTable('invoices')
    .set({ status: 'void' })
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'first')
    .where('status', '=', 'open')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function markPortReset(ex: Executor, id: string, now: Date) {
  await ex
    .updateTable('subscriptions')
    .set({ port_reset_at: now, updated_at: now })
    .where('id', '=', id)
    .where('port_reset_at', 'is', null)
    .execute();
}
