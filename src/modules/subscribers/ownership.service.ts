import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { judgeSession, type SessionRow } from '../verified-sessions/index.js';
import { findOwnedSubscriberWithSession, type OwnedSource } from './profile.repository.js';

export type { OwnedSource, Profile } from './profile.repository.js';

export interface SubscriberOwnershipDeps {
  db: Db;
  clock: Clock;
}

/**
 * The check every verified-customer route runs first: is the customer this provider's, and does the
 * caller's verified session (if any) belong to them. The surface's hooks call it; only it reads.
 */
export function createSubscriberOwnershipService({ db, clock }: SubscriberOwnershipDeps) {
  return {
    /** The customer (and the session row of `tokenHash`) when it is `providerId`'s; undefined otherwise. */
    findOwned: <S extends OwnedSource>(providerId: string, customerId: string, tokenHash: Buffer | null, source: S) =>
      findOwnedSubscriberWithSession(db, providerId, customerId, tokenHash, source),
    /** Whether the session is live and is this customer's, as of now. */
    judgeSession: (session: SessionRow | undefined, providerId: string, customerId: string) =>
      judgeSession(session, providerId, customerId, clock.now()),
  };
}

export type SubscriberOwnershipService = ReturnType<typeof createSubscriberOwnershipService>;
