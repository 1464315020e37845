import type { Executor } from '../../db/executor.js';

/** The customer's subscription (of the provider) with its plan version; undefined when not theirs. */
export const subscriptionPlan = (db: Executor, providerId: string, customerId: string, subscriptionId: string) =>
  db
    .selectFrom('subscriptions as s')
    .innerJoin('plan_versions as p', 'p.id', 's.plan_version_id')
    .select([
      's.id as subscription_id',
      's.status',
      'p.id',
      'p.name',
      'p.monthly_price_cents',
      'p.currency',
      'p.download_mbps',
      'p.upload_mbps',
    ])
    .where('s.id', '=', subscriptionId)
    .where('s.subscriber_id', '=', customerId)
    .where('s.provider_id', '=', providerId)
    .executeTakeFirst();

/** The provider's active plan versions in a currency, cheapest first (then fastest, then by name and id). */
export const activePlanVersions = (db: Executor, providerId: string, currency: string) =>
  db
    .selectFrom('plan_versions')
    .select(['id', 'name', 'monthly_price_cents', 'currency', 'download_mbps', 'upload_mbps'])
    .where('provider_id', '=', providerId)
    .where('active', '=', true)
    .where('currency', '=', currency)
    .orderBy('monthly_price_cents')
    .orderBy('download_mbps')
    .orderBy('name')
    .orderBy('id')
    .execute();
