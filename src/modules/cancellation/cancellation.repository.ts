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
