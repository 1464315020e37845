// The operator's API keys (npm run ops -- key ..., /api/v1/admin/.../api-keys): issued with their
// scopes, shown once (only the prefix and the SHA-256 of the whole key are stored), listed, rotated
// with an overlap window and revoked. The running server caches a key's row for up to 10 s
// (auth.service.ts), so a change made by another process (the CLI) takes effect within 10 s; a
// change made through the admin routes takes effect at once in that process.
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { newPrefixedSecret } from '../../lib/crypto.js';
import { AppError, notFound } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import * as repo from './api-keys.repository.js';
import type { Feature } from './auth.service.js';

const FEATURES: readonly Feature[] = ['agent_api_access', 'provisioning:write', 'serviceability:read'];

/** How long a rotated key keeps working beside its successor unless the operator chooses: 24 hours. */
const DEFAULT_OVERLAP_HOURS = 24;
/** The longest overlap an operator may choose: 30 days (a longer one is a second key, not a rotation). */
const MAX_OVERLAP_HOURS = 720;

export type KeyStatus = 'active' | 'expiring' | 'expired' | 'revoked';

export interface ApiKeySummary {
  id: string;
  provider_id: string;
  name: string;
  prefix: string;
  features: string[];
  status: KeyStatus;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
}

/** A summary with the key itself: the only time it is ever shown. */
export interface IssuedKey extends ApiKeySummary {
  key: string;
}

export interface ApiKeysDeps {
  db: Db;
  clock: Clock;
  /** Drops a key from this process's auth cache, so a revocation holds from the next request. */
  forgetApiKey?: (prefix: string) => void;
}

function statusOf(k: repo.ApiKeyRow, now: Date): KeyStatus {
  if (k.revoked_at) return 'revoked';
  if (k.expires_at) return k.expires_at <= now ? 'expired' : 'expiring';
  return 'active';
}

const summarize = (k: repo.ApiKeyRow, now: Date): ApiKeySummary => ({
  id: k.id,
  provider_id: k.provider_id,
  name: k.name,
  prefix: k.prefix,
  features: [...k.features].sort(),
  status: statusOf(k, now),
  created_at: k.created_at.toISOString(),
  expires_at: k.expires_at?.toISOString() ?? null,
  revoked_at: k.revoked_at?.toISOString() ?? null,
  replaced_by: k.replaced_by,
});

function checkFeatures(features: readonly string[]): Feature[] {
  const unknown = features.filter((f) => !FEATURES.includes(f as Feature));
  if (unknown.length) {
    throw new AppError(422, 'validation_error', `Unknown scope(s): ${unknown.join(', ')}; known: ${FEATURES.join(', ')}`);
  }
  return [...new Set(features as Feature[])].sort();
}

export function createApiKeyService({ db, clock, forgetApiKey }: ApiKeysDeps) {
  async function get(keyId: string) {
    const k = isUuid(keyId) ? await repo.findKey(db, keyId) : undefined;
    if (!k) throw notFound(`No API key ${keyId}`);
    return k;
  }

  /** A new key of the provider (the caller resolved and checked it) with these scopes; the key is in the answer only. */
  async function issue(providerId: string, input: { name?: string; features: readonly string[] }): Promise<IssuedKey> {
    const features = checkFeatures(input.features);
    const secret = newPrefixedSecret('sk');
    const id = newId();
    await repo.insertKey(db, {
      id,
      providerId,
      prefix: secret.prefix,
      hash: secret.hash,
      name: input.name ?? 'default',
      features,
      now: clock.now(),
    });
    return { ...summarize((await repo.findKey(db, id))!, clock.now()), key: secret.secret };
  }

  async function list(providerId: string): Promise<ApiKeySummary[]> {
    const now = clock.now();
    return (await repo.listKeys(db, providerId)).map((k) => summarize(k, now));
  }

  async function show(keyId: string): Promise<ApiKeySummary> {
    return summarize(await get(keyId), clock.now());
  }

  /**
   * A successor with the same name and scopes; the old key keeps working for `overlapHours` (default
   * 24, 0 ends it now) so clients can switch without an outage. Only a key that is active (neither
   * revoked, nor expired, nor already rotated) can be rotated: 409 otherwise.
   */
  async function rotate(keyId: string, opts: { overlapHours?: number } = {}): Promise<{ key: IssuedKey; previous: ApiKeySummary }> {
    const overlap = opts.overlapHours ?? DEFAULT_OVERLAP_HOURS;
    if (!Number.isFinite(overlap) || overlap < 0 || overlap > MAX_OVERLAP_HOURS) {
      throw new AppError(422, 'validation_error', `overlap_hours: between 0 and ${MAX_OVERLAP_HOURS}`);
    }
    if (!isUuid(keyId)) throw notFound(`No API key ${keyId}`);
    const now = clock.now();
    const { newKeyId, secret, prefix } = await db.transaction().execute(async (trx) => {
      const old = await repo.lockKey(trx, keyId);
      if (!old) throw notFound(`No API key ${keyId}`);
      if (statusOf(old, now) !== 'active') {
        throw new AppError(409, 'conflict', `The key is ${statusOf(old, now)}: only an active key can be rotated; issue a new one instead`);
      }
      const s = newPrefixedSecret('sk');
      const id = newId();
      await repo.insertKey(trx, {
        id,
        providerId: old.provider_id,
        prefix: s.prefix,
        hash: s.hash,
        name: old.name,
        features: old.features,
        now,
      });
      await repo.setExpiry(trx, old.id, new Date(now.getTime() + overlap * 3_600_000), id);
      return { newKeyId: id, secret: s.secret, prefix: old.prefix };
    });
    forgetApiKey?.(prefix);
    return { key: { ...(await show(newKeyId)), key: secret }, previous: await show(keyId) };
  }

  /** Stops the key at once (also during a rotation's overlap). Revoking a revoked key changes nothing. */
  async function revoke(keyId: string): Promise<ApiKeySummary> {
    const k = await get(keyId);
    await repo.setRevoked(db, k.id, clock.now());
    forgetApiKey?.(k.prefix);
    return show(k.id);
  }

  /** Replaces the key's scopes (agent_api_access, provisioning:write, serviceability:read). */
  async function setKeyFeatures(keyId: string, features: readonly string[]): Promise<ApiKeySummary> {
    const k = await get(keyId);
    await repo.setFeatures(db, k.id, checkFeatures(features));
    forgetApiKey?.(k.prefix);
    return show(k.id);
  }

  return { issue, list, show, rotate, revoke, setFeatures: setKeyFeatures };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
