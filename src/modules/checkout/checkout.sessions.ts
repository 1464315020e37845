// The session life-cycle rules every endpoint touching a checkout session shares (read, patch,
// status, and completion): the 2-hour TTL of a never-read session,
// the 410 answers, and the completed transition.
import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { DB } from '../../db/types.js';
import { AppError, notFound } from '../../lib/errors.js';
import * as repo from './checkout.repository.js';
import type { SessionRow } from './checkout.repository.js';

export type { SessionRow } from './checkout.repository.js';

/** A session never read (still pending) this long after creation is expired. */
export const SESSION_TTL_MS = 2 * 60 * 60 * 1000;

export const sessionExpiresAt = (createdAt: Date): Date => new Date(createdAt.getTime() + SESSION_TTL_MS);

/** Only pending sessions expire; at `created_at + 2 h` exactly the session is expired. */
export const isPastTtl = (s: Pick<SessionRow, 'status' | 'created_at'>, now: Date): boolean =>
  s.status === 'pending' && now.getTime() >= sessionExpiresAt(s.created_at).getTime();

/** 410 with the nested detail object the partner document prescribes. */
export const sessionExpiredError = () =>
  new AppError(410, 'gone', 'Session expired', { detail: { code: 'session_expired', detail: 'Session expired' } });
const sessionCancelledError = () =>
  new AppError(410, 'gone', 'Session cancelled', { detail: { code: 'session_cancelled', detail: 'Session cancelled' } });

export const sessionNotFoundError = () => notFound('Checkout session not found');

/** Throws the 410 of a final expired/cancelled session; other statuses pass. */
export function assertNotGone(s: Pick<SessionRow, 'status'>) {
  if (s.status === 'expired') throw sessionExpiredError();
  if (s.status === 'cancelled') throw sessionCancelledError();
}

/**
 * Inside the caller's transaction: the session locked FOR UPDATE, after the TTL check.
 * - unknown id: 404; expired or cancelled: 410 (nested detail);
 * - pending and past its TTL: marked expired in `trx`, then 410. The throw rolls `trx` back, so call
 *   `gateSession(id)` before opening the transaction when the mark must persist (it is idempotent);
 * - pending, redirected or completed: returned (completed lets the caller replay idempotently).
 * Checking the provider (X-Webhook-Secret) is the caller's: compare `provider_id`.
 */
async function loadSessionForUseAt(trx: Transaction<DB>, id: string, now: Date): Promise<SessionRow> {
  const s = await repo.lockSessionById(trx, id);
  if (!s) throw sessionNotFoundError();
  if (isPastTtl(s, now)) {
    await repo.markSessionExpired(trx, id, now);
    throw sessionExpiredError();
  }
  assertNotGone(s);
  return s;
}

/**
 * Outside any transaction: the TTL check that precedes authentication. A pending session past its
 * TTL is marked expired (committed at once) and answers 410; expired and cancelled answer 410.
 * Returns the session (any other status) or undefined for an unknown id (the caller decides 404,
 * after authentication, so unknown ids are not an oracle).
 */
export async function gateSessionAt(db: Db, id: string, now: Date): Promise<SessionRow | undefined> {
  const s = await repo.findSessionById(db, id);
  if (!s) return undefined;
  if (isPastTtl(s, now)) {
    await repo.markSessionExpired(db, id, now);
    throw sessionExpiredError();
  }
  assertNotGone(s);
  return s;
}

export interface CheckoutSessionsDeps {
  db: Db;
  clock: Clock;
}

/**
 * What the provisioning module uses, bound to the injected clock:
 *
 *   const sessions = createCheckoutSessions(deps);
 *   await sessions.gateSession(body.session_id);              // optional, before the transaction: persists an expiry
 *   await db.transaction().execute(async (trx) => {
 *     const s = await sessions.loadSessionForUse(trx, body.session_id);   // locked; 404/410 thrown
 *     if (s.provider_id !== providerId) throw ...;
 *     if (s.status === 'completed') return replay(s.subscription_id);
 *     ... create subscriber + subscription ...
 *     await sessions.markSessionCompleted(trx, s.id, subscriptionId);
 *   });
 */
export function createCheckoutSessions(deps: CheckoutSessionsDeps) {
  return {
    gateSession: (id: string) => gateSessionAt(deps.db, id, deps.clock.now()),
    loadSessionForUse: (trx: Transaction<DB>, id: string) => loadSessionForUseAt(trx, id, deps.clock.now()),
    /** pending/redirected → completed, linking the subscription; false when the session was not in one of those states. */
    markSessionCompleted: (trx: Transaction<DB>, id: string, subscriptionId: string) =>
      repo.markSessionCompleted(trx, id, subscriptionId, deps.clock.now()),
    findSession: (id: string) => repo.findSessionById(deps.db, id),
  };
}

/** @public The type of what the container builds. */
export type CheckoutSessions = ReturnType<typeof createCheckoutSessions>;
