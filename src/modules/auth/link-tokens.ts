import type { Executor } from '../../db/executor.js';
import type { Clock } from '../../lib/clock.js';
import { sha256 } from '../../lib/crypto.js';
import { newId, randomToken } from '../../lib/ids.js';
import { consumeLinkTokenByHash, findLinkTokenByHash, insertLinkToken, type LinkPurpose } from './link-tokens.repository.js';

export type { LinkPurpose } from './link-tokens.repository.js';

/** Lifetimes fixed by decisions.md (booking and payment links: ours, see docs/decisions.md). */
const LINK_TTL_MS: Record<LinkPurpose, number> = {
  password_reset: 15 * 60_000,
  activation: 14 * 86_400_000,
  staff_invite: 14 * 86_400_000,
  booking: 60 * 86_400_000,
  payment: 30 * 86_400_000,
};

/** Creates a single-use link token; only its hash is stored. Returns the clear token for the mail. */
export async function createLinkToken(
  db: Executor,
  clock: Clock,
  t: { purpose: LinkPurpose; userId?: string | null; subscriberId?: string | null; referenceId?: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(clock.now().getTime() + LINK_TTL_MS[t.purpose]);
  await insertLinkToken(db, {
    id: newId(),
    purpose: t.purpose,
    tokenHash: sha256(token),
    userId: t.userId ?? null,
    subscriberId: t.subscriberId ?? null,
    referenceId: t.referenceId ?? null,
    expiresAt,
  });
  return { token, expiresAt };
}

/** Looks a token up without consuming it (e.g. to render a booking page). */
export function findLinkToken(db: Executor, token: string, purposes: LinkPurpose[]) {
  return findLinkTokenByHash(db, sha256(token), purposes);
}

/**
 * Consumes a token atomically: the row is marked used only if unused and unexpired, so two
 * concurrent uses cannot both succeed. Returns the row or undefined.
 */
export function consumeLinkToken(db: Executor, clock: Clock, token: string, purposes: LinkPurpose[]) {
  return consumeLinkTokenByHash(db, sha256(token), purposes, clock.now());
}
