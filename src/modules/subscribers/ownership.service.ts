import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { judgeSession, type SessionRow } from '../verification/verification.service.js';
import { findOwnedCustomerWithSession, type OwnedSource } from './profile.repository.js';

export type { OwnedSource, Profile } from './profile.repository.js';

export interface CustomerOwnershipDeps {
  db: Db;
  clock: Clock;
}

/**
 * The check every verified-customer route runs first: is the customer this provider's, and does the
 * caller's verified session (if any) belong to them. The surface's hooks call it; only it reads.
 */
export function createCustomerOwnershipService({ db, clock }: CustomerOwnershipDeps) {
  return {
    /** The customer (and the session row of `tokenHash`) when it is `providerId`'s; undefined otherwise. */
    findOwned: <S extends OwnedSource>(providerId: string, customerId: string, tokenHash: Buffer | null, source: S) =>
      findOwnedCustomerWithSession(db, providerId, customerId, tokenHash, source),
    /** Whether the session is live and is this customer's, as of now. */
    judgeSession: (session: SessionRow | undefined, providerId: string, customerId: string) =>
      judgeSession(session, providerId, customerId, clock.now()),
  };
}

export type CustomerOwnershipService = ReturnType<typeof createCustomerOwnershipService>;
