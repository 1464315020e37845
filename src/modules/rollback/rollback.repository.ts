// The reads a rollback decides on besides its link (rollback-links owns the links): the plan change a
// link undoes and whether the subscription changed plan since.
import type { Executor } from '../../db/executor.js';

/** The change a plan link undoes, with its plans' names and prices (for the page and the rollback). */
export const findPlanChangeForRollback = (db: Executor, planChangeId: string) =>
  db
    .selectFrom('plan_changes as pc')
    .innerJoin('plan_versions as f', 'f.id', 'pc.from_plan_version_id')
    .innerJoin('plan_versions as t', 't.id', 'pc.to_plan_version_id')
    .selectAll('pc')
    .select([
      'f.name as from_name',
      'f.monthly_price_cents as from_price_cents',
      't.name as to_name',
      't.monthly_price_cents as to_price_cents',
      'f.currency',
    ])
    .where('pc.id', '=', planChangeId)
    .executeTakeFirst();

/** Whether the subscription changed plan again after `planChangeId` (any source, a rollback included). */
export async function changedSince(db: Executor, subscriptionId: string, planChangeId: string, at: Date): Promise<boolean> {
  const row = await db
    .selectFrom('plan_changes')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('id', '<>', planChangeId)
    .where('created_at', '>=', at)
    .executeTakeFirst();
  return Boolean(row);
}

/** The subscription's plan now (for the page). */
export const currentPlanOf = (db: Executor, subscriptionId: string) =>
  db.selectFrom('subscriptions').select(['plan_version_id', 'status']).where('id', '=', subscriptionId).executeTakeFirst();
