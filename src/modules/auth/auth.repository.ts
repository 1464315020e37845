import { sql, type Transaction } from 'kysely';
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
      'api_keys.expires_at',
      'providers.disabled',
    ])
    .where('api_keys.prefix', '=', prefix)
    .executeTakeFirst();

/**
 * The provider a checkout secret belongs to, and the scopes its active API keys hold together: the
 * secret carries no scope of its own, so a secret call that provisions needs a key that may. Active:
 * not revoked and not past its expiry (a rotated key's overlap window), as authenticateApiKey checks.
 */
export const findProviderByWebhookSecretPrefix = (db: Db, prefix: string, now: Date) =>
  db
    .selectFrom('providers')
    .select(['id', 'webhook_secret_prefix', 'webhook_secret_hash', 'disabled'])
    .select(
      sql<string[]>`(SELECT coalesce(array_agg(DISTINCT f), '{}') FROM api_keys k, unnest(k.features) f
        WHERE k.provider_id = providers.id AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${now}))`.as(
        'key_features',
      ),
    )
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

/**
 * Withdraws a pending invitation: the invited user (a service_provider who never chose a password)
 * and its links go. False when `userId` is no such user (any more). An invited user never logged in,
 * so nothing else refers to it (subscribers and checkout sessions link subscriber logins only).
 */
export async function deleteInvitedUser(ex: Executor, userId: string): Promise<boolean> {
  const invited = await ex
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .where('role', '=', 'service_provider')
    .where('password_hash', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!invited) return false;
  await ex.deleteFrom('link_tokens').where('user_id', '=', userId).execute();
  await ex.deleteFrom('users').where('id', '=', userId).execute();
  return true;
}

/** An invited staff user: no password until the invite link sets one. */
export async function insertStaffUser(
  ex: Executor,
  u: { id: string; email: string; spRole: string; providerId: string; firstName: string | null; lastName: string | null; now: Date },
) {
  await ex
    .insertInto('users')
    .values({
      id: u.id,
      email: u.email,
      role: 'service_provider',
      sp_role: u.spRole,
      provider_id: u.providerId,
      first_name: u.firstName,
      last_name: u.lastName,
      password_hash: null,
      password_set_at: null,
      created_at: u.now,
    })
    .execute();
}
