import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import type { LinkPurpose } from './link-tokens.js';
import { invalidateUserLinks } from './link-tokens.repository.js';

export const findApiKeyByPrefix = (db: Db, prefix: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('providers', 'providers.id', 'api_keys.provider_id')
    .select([
      'api_keys.id',
      'api_keys.provider_id',
      'api_keys.prefix',
      'api_keys.key_hash',
      'api_keys.features',
      'api_keys.revoked_at',
      'providers.disabled',
    ])
    .where('api_keys.prefix', '=', prefix)
    .executeTakeFirst();

export const findProviderByWebhookSecretPrefix = (db: Db, prefix: string) =>
  db
    .selectFrom('providers')
    .select(['id', 'webhook_secret_prefix', 'webhook_secret_hash', 'disabled'])
    .where('webhook_secret_prefix', '=', prefix)
    .executeTakeFirst();

export const findUserByEmail = (db: Executor, email: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();

export const findUserById = (db: Executor, id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();

/** What a Bearer token is checked against on every request (by primary key). */
export const findTokenUser = (db: Db, id: string) =>
  db
    .selectFrom('users')
    .leftJoin('providers', 'providers.id', 'users.provider_id')
    .select(['users.id', 'users.role', 'users.sp_role', 'users.provider_id', 'users.token_version', 'users.disabled'])
    .select((eb) => eb.fn.coalesce('providers.disabled', eb.lit(false)).as('provider_disabled'))
    .where('users.id', '=', id)
    .executeTakeFirst();

/** The links that set a password: once a password is set, the outstanding ones must not undo it. */
export const PASSWORD_LINKS: LinkPurpose[] = ['password_reset', 'activation', 'staff_invite'];

/** Stores a new password hash; the user's outstanding password links stop working. */
export async function setPassword(trx: Transaction<DB>, userId: string, passwordHash: string, now: Date) {
  await trx.updateTable('users').set({ password_hash: passwordHash, password_set_at: now }).where('id', '=', userId).execute();
  await invalidateUserLinks(trx, userId, PASSWORD_LINKS, now);
}
