import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { clientNetwork } from '../../lib/client-network.js';
import { sha256 } from '../../lib/crypto.js';
import { AppError, waitText } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './credential-failures.repository.js';

// Fixed by decisions.md ("Login"): 10 failures of a subject from one client network within 15 minutes
// lock that network out for 15 minutes; past 50 failures within an hour across all networks, every
// further attempt of the subject waits, never refused for that reason.
const NETWORK_MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 15 * 60_000;
const LOCK_MS = 15 * 60_000;
const ACCOUNT_WINDOW_MS = 60 * 60_000;
const ACCOUNT_FREE_FAILURES = 50;
const DELAY_STEP_MS = 200;
const MAX_DELAY_MS = 10_000;

/** Whose failures count together. */
export const subjects = {
  /** An account: its logins and the current-password check of PATCH /subscriber/me/password share one count. */
  account: (userId: string) => `user:${userId}`,
  /** An email without an account locks like an account, so a lock tells nothing about which accounts exist. */
  unknownEmail: (email: string) => `email:${sha256(email.trim().toLowerCase()).toString('hex')}`,
  /** A wrong set-password token names no account (tokens are random and stored hashed): guesses count per client network. */
  tokenGuesses: (ip: string) => `set-password-ip:${clientNetwork(ip)}`,
};

/** When the lock formed by one network's `failures` (ms, ascending) ends; -Infinity when none formed. */
function lockEnd(failures: number[]): number {
  let end = -Infinity;
  const window: number[] = [];
  for (const t of failures) {
    if (t < end) continue; // an attempt the lock refused, read before it was taken back
    window.push(t);
    while (window[0] !== undefined && window[0] <= t - FAILURE_WINDOW_MS) window.shift();
    if (window.length >= NETWORK_MAX_FAILURES) {
      end = t + LOCK_MS;
      window.length = 0;
    }
  }
  return end;
}

/**
 * How long an attempt waits before its check, given the subject's failures of the last hour from
 * every network: nothing up to 50, then 200 ms more for each failure past 50, at most 10 s (reached at
 * 100). Slows a guesser spread over many networks without locking the owner out.
 */
export function slowdownMs(accountFailures: number): number {
  return Math.min(MAX_DELAY_MS, Math.max(0, accountFailures - ACCOUNT_FREE_FAILURES) * DELAY_STEP_MS);
}

export interface CredentialGuardDeps {
  db: Db;
  clock: Clock;
  /** Waits out the slowdown; a test passes its own to see the delay without waiting. */
  pause?: (ms: number) => Promise<unknown>;
}

export function createCredentialGuard({ db, clock, pause = (ms) => sleep(ms) }: CredentialGuardDeps) {
  /**
   * Call before checking a credential of `subject` sent from `clientIp`. The attempt counts as a
   * failure until `succeeded()` takes it back, so a crash or a race never loses one. While the
   * subject is locked for the client's network this throws 429 with Retry-After and `{detail}`, and
   * the check must not run (not even for the right password); another network is not locked. Past
   * the account-wide ceiling it waits `slowdownMs` first.
   */
  async function begin(subject: string, clientIp: string, lockedMessage: string): Promise<{ succeeded(): Promise<void> }> {
    const now = clock.now().getTime();
    const id = newId();
    const prior = await repo.recordAttempt(db, {
      id,
      subject,
      network: clientNetwork(clientIp),
      at: new Date(now),
      networkSince: new Date(now - FAILURE_WINDOW_MS - LOCK_MS),
      accountSince: new Date(now - ACCOUNT_WINDOW_MS),
    });
    const end = lockEnd(prior.network.map((d) => d.getTime()));
    if (now < end) {
      await repo.deleteAttempt(db, id);
      const seconds = Math.ceil((end - now) / 1000);
      throw new AppError(429, 'rate_limited', `${lockedMessage}; retry in ${waitText(seconds)}`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    const delay = slowdownMs(prior.account);
    if (delay > 0) await pause(delay);
    return { succeeded: () => repo.deleteAttempt(db, id) };
  }
  return { begin };
}
