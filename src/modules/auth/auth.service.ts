import { LRUCache } from 'lru-cache';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { bytesEqual, dummyPasswordHash, hs256Key, parsePrefixedSecret, sha256, verifyPassword } from '../../lib/crypto.js';
import { isUuid } from '../../lib/ids.js';
import * as repo from './auth.repository.js';
import { createCredentialGuard, subjects } from './credential-guard.js';
import { group } from '../../lib/present.js';

export type Feature = 'agent_api_access' | 'provisioning:write' | 'serviceability:read';
export type Role = 'subscriber' | 'service_provider' | 'platform_admin';
type SpRole = 'sp_admin' | 'support' | 'sales' | 'bookkeeping';

export interface ApiKeyPrincipal {
  keyId: string;
  providerId: string;
  prefix: string;
  features: string[];
}

/** A checkout secret's provider, and the scopes its active API keys hold (the secret has none of its own). */
export interface WebhookSecretPrincipal {
  providerId: string;
  prefix: string;
  keyFeatures: string[];
}

export interface UserPrincipal {
  userId: string;
  role: Role;
  spRole: SpRole | null;
  providerId: string | null;
}

/** Why a credential was refused: the surfaces map these to their own status and body. */
type CredentialFailure = 'missing' | 'invalid' | 'disabled';

export type AuthResult<T> = { ok: true; principal: T } | { ok: false; failure: CredentialFailure };

export interface AuthDeps {
  db: Db;
  clock: Clock;
  jwtSecret: string;
  jwtTtlSeconds: number;
  /** ADMIN_TOKEN: the platform operator's credential for /api/v1/admin; unset: no token passes. */
  adminToken?: string;
}

const JWT_ISSUER = 'netsvc-api';

export function createAuthService({ db, clock, jwtSecret, jwtTtlSeconds, adminToken }: AuthDeps) {
  const key = hs256Key(jwtSecret);
  // A short cache keeps the key lookup off the hot path; disabling a provider takes effect within it.
  const apiKeyCache = new LRUCache<string, NonNullable<Awaited<ReturnType<typeof repo.findApiKeyByPrefix>>> | 'none'>({
    max: 10_000,
    ttl: 10_000,
  });

  async function authenticateApiKey(value: string | undefined): Promise<AuthResult<ApiKeyPrincipal>> {
    if (!value) return { ok: false, failure: 'missing' };
    const parsed = parsePrefixedSecret(value, 'sk');
    if (!parsed) return { ok: false, failure: 'invalid' };
    let row = apiKeyCache.get(parsed.prefix);
    if (row === undefined) {
      row = (await repo.findApiKeyByPrefix(db, parsed.prefix)) ?? 'none';
      apiKeyCache.set(parsed.prefix, row);
    }
    // A rotated key works until its overlap window ends (expires_at), checked on every request (the cache holds the row, not the verdict).
    if (row === 'none' || row.revoked_at || (row.expires_at && row.expires_at <= clock.now())) return { ok: false, failure: 'invalid' };
    if (!bytesEqual(sha256(value), row.key_hash)) return { ok: false, failure: 'invalid' };
    if (row.disabled) return { ok: false, failure: 'disabled' };
    return { ok: true, principal: { keyId: row.id, providerId: row.provider_id, prefix: row.prefix, features: row.features } };
  }

  /** X-Webhook-Secret: "whs_<prefix>_<random>", compared by SHA-256 in constant time. */
  async function authenticateWebhookSecret(value: string | undefined): Promise<AuthResult<WebhookSecretPrincipal>> {
    if (!value) return { ok: false, failure: 'missing' };
    const parsed = parsePrefixedSecret(value, 'whs');
    if (!parsed) return { ok: false, failure: 'invalid' };
    const row = await repo.findProviderByWebhookSecretPrefix(db, parsed.prefix, clock.now());
    if (!row?.webhook_secret_hash || !bytesEqual(sha256(value), row.webhook_secret_hash)) return { ok: false, failure: 'invalid' };
    if (row.disabled) return { ok: false, failure: 'disabled' };
    return { ok: true, principal: { providerId: row.id, prefix: parsed.prefix, keyFeatures: row.key_features } };
  }

  async function issueJwt(user: { id: string; role: string; sp_role: string | null; provider_id: string | null; token_version?: number }) {
    const now = Math.floor(clock.now().getTime() / 1000);
    // `ver`: the user's token_version at issue; a password change, a disabled account or a changed
    // role bumps it (trigger users_revoke_tokens) and so revokes this token.
    const token = await new SignJWT({
      role: user.role,
      sp_role: user.sp_role,
      service_provider_id: user.provider_id,
      ver: user.token_version ?? 0,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(JWT_ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + jwtTtlSeconds)
      .sign(await key());
    return { access_token: token, token_type: 'bearer' as const, expires_in: jwtTtlSeconds, role: user.role as Role };
  }

  async function authenticateBearer(header: string | undefined): Promise<AuthResult<UserPrincipal>> {
    if (!header) return { ok: false, failure: 'missing' };
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) return { ok: false, failure: 'invalid' };
    let payload;
    try {
      ({ payload } = await jwtVerify(group(m, 1), await key(), {
        algorithms: ['HS256'],
        issuer: JWT_ISSUER,
        currentDate: clock.now(),
        // jose checks exp only when present: a token without it would never expire.
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return { ok: false, failure: 'invalid' };
      throw err;
    }
    if (!isUuid(payload.sub!) || !Number.isSafeInteger(payload.ver)) return { ok: false, failure: 'invalid' };
    // One primary-key read per request, no cache, so a revocation holds from the next request on.
    // The role and provider come from the row, not from the token.
    const user = await repo.findTokenUser(db, payload.sub!);
    if (!user || user.token_version !== payload.ver) return { ok: false, failure: 'invalid' };
    // A disabled provider account takes its staff's tokens with it, as it does its API keys.
    if (user.disabled || user.provider_disabled) return { ok: false, failure: 'disabled' };
    return {
      ok: true,
      principal: { userId: user.id, role: user.role as Role, spRole: user.sp_role as SpRole | null, providerId: user.provider_id },
    };
  }

  const guard = createCredentialGuard({ db, clock });
  void dummyPasswordHash();

  /**
   * Email + password. An unknown email answers, costs (one hash check) and locks like a wrong
   * password; 10 failures of one account from one client network in 15 minutes lock its logins from
   * that network for 15 minutes, and past 50 failures in an hour from anywhere every attempt is slowed.
   */
  async function login(email: string, password: string, clientIp: string) {
    const user = await repo.findUserByEmail(db, email);
    const attempt = await guard.begin(
      user ? subjects.account(user.id) : subjects.unknownEmail(email),
      clientIp,
      'Too many failed logins for this account from this network',
    );
    const ok = await verifyPassword(user?.password_hash ?? null, password);
    if (!user || !ok || user.disabled) return null;
    await attempt.succeeded();
    return issueJwt(user);
  }

  /** X-Admin-Token against ADMIN_TOKEN, compared in constant time (as SHA-256 digests, so lengths leak nothing). */
  const authenticateAdminToken = (value: string): boolean => Boolean(adminToken) && bytesEqual(sha256(value), sha256(adminToken!));

  return {
    authenticateAdminToken,
    authenticateApiKey,
    authenticateWebhookSecret,
    authenticateBearer,
    issueJwt,
    login,
    forgetApiKey: (prefix: string) => apiKeyCache.delete(prefix),
    /** After a provider is disabled or enabled (rare): every cached key row goes, so this process sees it at once. */
    forgetAllApiKeys: () => apiKeyCache.clear(),
  };
}
