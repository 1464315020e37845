import type { Insertable, Updateable } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

// What the operator sees of a provider: its settings, never a secret (the checkout secret's prefix
// and whether a signing secret and a card-processor account exist, not their values).
const ADMIN_COLUMNS = [
  'id',
  'name',
  'slug',
  'disabled',
  'currency',
  'support_email',
  'external_checkout_url',
  'webhook_url',
  'webhook_secret_prefix',
  'sms_configured',
  'booking_window_days',
  'payment_grace_days',
  'created_at',
] as const;

export const findProviderForAdmin = (ex: Executor, where: { id: string } | { slug: string }) =>
  ex
    .selectFrom('providers')
    .select(ADMIN_COLUMNS)
    .select((eb) => [
      eb('webhook_signing_secret', 'is not', null).as('has_signing_secret'),
      eb('card_processor_account', 'is not', null).as('card_processor_connected'),
    ])
    .where('id' in where ? 'id' : 'slug', '=', 'id' in where ? where.id : where.slug)
    .executeTakeFirst();

export type ProviderAdminRow = NonNullable<Awaited<ReturnType<typeof findProviderForAdmin>>>;

export const listProvidersForAdmin = (ex: Executor) =>
  ex
    .selectFrom('providers')
    .select(ADMIN_COLUMNS)
    .select((eb) => [
      eb('webhook_signing_secret', 'is not', null).as('has_signing_secret'),
      eb('card_processor_account', 'is not', null).as('card_processor_connected'),
    ])
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export async function insertProvider(ex: Executor, row: Insertable<DB['providers']>) {
  await ex.insertInto('providers').values(row).execute();
}

export async function updateProvider(ex: Executor, id: string, set: Updateable<DB['providers']>) {
  await ex.updateTable('providers').set(set).where('id', '=', id).execute();
}
