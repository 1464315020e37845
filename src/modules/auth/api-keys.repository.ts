import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

const KEY_COLUMNS = ['id', 'provider_id', 'prefix', 'name', 'features', 'created_at', 'expires_at', 'revoked_at', 'replaced_by'] as const;

export type ApiKeyRow = Awaited<ReturnType<typeof findKey>> & object;

export const findKey = (ex: Executor, id: string) => ex.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).executeTakeFirst();

export const lockKey = (trx: Transaction<DB>, id: string) =>
  trx.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();

export const listKeys = (ex: Executor, providerId: string) =>
  ex.selectFrom('api_keys').select(KEY_COLUMNS).where('provider_id', '=', providerId).orderBy('created_at').orderBy('id').execute();

export async function insertKey(
  ex: Executor,
  k: { id: string; providerId: string; prefix: string; hash: Buffer; name: string; features: string[]; now: Date },
) {
  await ex
    .insertInto('api_keys')
    .values({
      id: k.id,
      provider_id: k.providerId,
      prefix: k.prefix,
      key_hash: k.hash,
      name: k.name,
      features: k.features,
      created_at: k.now,
    })
    .execute();
}

export async function setExpiry(ex: Executor, id: string, expiresAt: Date, replacedBy: string) {
  await ex.updateTable('api_keys').set({ expires_at: expiresAt, replaced_by: replacedBy }).where('id', '=', id).execute();
}

export async function setRevoked(ex: Executor, id: string, now: Date) {
  await ex.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function setFeatures(ex: Executor, id: string, features: string[]) {
  await ex.updateTable('api_keys').set({ features }).where('id', '=', id).execute();
}
