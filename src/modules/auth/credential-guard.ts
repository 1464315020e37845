import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { clientNetwork } from '../../lib/client-network.js';
import { sha256 } from '../../lib/crypto.js';
import { AppError, waitText } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './credential-failures.repository.js';

/** Fixed by decisions.md ("Login"): 10 failures within 15 minutes lock the subject for 15 minutes. */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 15 * 60_000;
const LOCK_MS = 15 * 60_000;

/** Whose failures count together. */
export const subjects = {
  /** An account: its logins and the current-password check of PATCH /subscriber/me/password share one count. */
  account: (userId: string) => `user:${userId}`,
  /** An email without an account locks like an account, so a lock tells nothing about which accounts exist. */
  unknownEmail: (email: string) => `email:${sha256(email.trim().toLowerCase()).toString('hex')}`,
  /** A wrong set-password token names no account (tokens are random and stored hashed): guesses count per client IP. */
  tokenGuesses: (ip: string) => `set-password-ip:${clientNetwork(ip)}`,
};

/** When the lock formed by `failures` (ms, ascending) ends; -Infinity when none formed. */
function lockEnd(failures: number[]): number {
  let end = -Infinity;
  const window: number[] = [];
  for (const t of failures) {
    if (t < end) continue; // an attempt the lock refused, read before it was taken back
    window.push(t);
    while (window[0] <= t - FAILURE_WINDOW_MS) window.shift();
    if (window.length >= MAX_FAILURES) {
      end = t + LOCK_MS;
      window.length = 0;
    }
  }
  return end;
}

export function createCredentialGuard({ db, clock }: { db: Db; clock: Clock }) {
  /**
   * Call before checking a credential of `subject`. The attempt counts as a failure until
   * `succeeded()` takes it back, so a crash or a race never loses one. While the subject is locked
   * this throws 429 with Retry-After and `{detail}`, and the check must not run (not even for the
   * right password).
   */
  async function begin(subject: string, lockedMessage: string): Promise<{ succeeded(): Promise<void> }> {
    const now = clock.now().getTime();
    const id = newId();
    const prior = await repo.recordAttempt(db, { id, subject, at: new Date(now), since: new Date(now - FAILURE_WINDOW_MS - LOCK_MS) });
    const end = lockEnd(prior.map((d) => d.getTime()));
    if (now < end) {
      await repo.deleteAttempt(db, id);
      const seconds = Math.ceil((end - now) / 1000);
      throw new AppError(429, 'rate_limited', `${lockedMessage}; retry in ${waitText(seconds)}`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    return { succeeded: () => repo.deleteAttempt(db, id) };
  }
  return { begin };
}
