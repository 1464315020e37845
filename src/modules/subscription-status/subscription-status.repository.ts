import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';

/** The provider's subscription, locked until the transaction ends. */
export const lockProviderSubscription = (trx: Transaction<DB>, providerId: string, id: string) =>
  trx
    .selectFrom('subscriptions')
    .select(['id', 'provider_id', 'subscriber_id', 'status', 'location_id', 'suspended_reason', 'service_billed'])
    .where('id', '=', id)
    .where('provider_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
