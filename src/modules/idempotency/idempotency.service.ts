import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { bytesEqual } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import * as repo from './idempotency.repository.js';

const TTL_MS = 24 * 3600_000;
// A record still "running" after this long belongs to a request whose process died: take it over.
const ABANDONED_MS = 60_000;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; status: number; body: unknown };

/**
 * Idempotency-Key (decisions.md): same key + same request within 24 h replays the stored status
 * and body; same key with another request answers 422; while the first is still running, 409.
 * The HTTP side (the header, the fingerprint, the replay) is the idempotency plugin's.
 */
export function createIdempotencyService({ db, clock }: IdempotencyDeps) {
  /** Claims the key for this request, or answers the stored response of the same request. */
  async function claim(k: repo.IdempotencyKey, fingerprint: Buffer): Promise<IdempotencyClaim> {
    const now = clock.now();
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await repo.claimKey(db, k, fingerprint, now, new Date(now.getTime() + TTL_MS));
      if (inserted) return { claimed: true };
      const existing = await repo.findKey(db, k);
      if (!existing) continue; // deleted between the two statements: try again
      const expired = existing.expires_at.getTime() <= now.getTime();
      const abandoned = existing.status === 'running' && now.getTime() - existing.created_at.getTime() > ABANDONED_MS;
      if (expired || abandoned) {
        await repo.deleteKeyCreatedAt(db, k, existing.created_at);
        continue;
      }
      if (!bytesEqual(existing.request_hash, fingerprint)) {
        throw new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request');
      }
      if (existing.status === 'running') {
        throw new AppError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly');
      }
      return { claimed: false, status: existing.response_status ?? 200, body: existing.response_body };
    }
    throw new AppError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly');
  }

  return {
    claim,
    /** A failed request (5xx) frees its key, so a retry runs again. */
    release: (k: repo.IdempotencyKey) => repo.deleteKey(db, k),
    /** Stores the finished request's status and JSON body for replays. */
    finish: (k: repo.IdempotencyKey, status: number, bodyJson: string) => repo.storeResponse(db, k, status, bodyJson),
  };
}
