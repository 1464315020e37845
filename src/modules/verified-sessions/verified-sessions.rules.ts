// The rules of a verified session's token: its shape (vs_ and 43 URL-safe characters), the hash
// it is stored under, and whether a stored session is valid for a (provider, customer).
import { sha256 } from '../../lib/crypto.js';
import type { SessionRow } from './verified-sessions.repository.js';

const SESSION_RE = /^vs_[A-Za-z0-9_-]{43}$/;

export type SessionCheck = 'ok' | 'invalid' | 'mismatch';

/** The stored hash of an X-Verified-Session value; undefined when the value cannot be a token. */
export const sessionTokenHash = (token: string): Buffer | undefined => (SESSION_RE.test(token) ? sha256(token) : undefined);

/** Whether the session found by its token hash (undefined: none) is valid for this (provider, customer). */
export function judgeSession(s: SessionRow | undefined, providerId: string, customerId: string, now: Date): SessionCheck {
  if (!s || new Date(s.expires_at).getTime() <= now.getTime()) return 'invalid';
  if (s.provider_id !== providerId || s.subscriber_id !== customerId) return 'mismatch';
  return 'ok';
}
