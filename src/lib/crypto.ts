import { createHash, timingSafeEqual, webcrypto } from 'node:crypto';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { randomAlnum, randomToken } from './ids.js';
import { group } from './present.js';

export const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time equality of two byte strings (pg gives Buffer, PGlite Uint8Array). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

// Prefixed secrets: "<kind>_<8 lowercase alnum prefix>_<random>". The prefix is stored in clear
// (lookup and rate-limit bucket); only the SHA-256 of the whole secret is stored.
export interface PrefixedSecret {
  secret: string;
  prefix: string;
  hash: Buffer;
}

export function newPrefixedSecret(kind: 'sk' | 'whs'): PrefixedSecret {
  const prefix = randomAlnum(8);
  const secret = `${kind}_${prefix}_${randomToken(32)}`;
  return { secret, prefix, hash: sha256(secret) };
}

const PREFIXED_RE = /^(sk|whs)_([a-z0-9]{8})_([A-Za-z0-9_-]{32,})$/;
export function parsePrefixedSecret(value: string, kind: 'sk' | 'whs'): { prefix: string } | null {
  const m = PREFIXED_RE.exec(value);
  if (!m || m[1] !== kind) return null;
  return { prefix: group(m, 2) };
}

export const hashPassword = (password: string): Promise<string> => argonHash(password);

let dummyHash: Promise<string> | undefined;
/** The hash of a random password nobody knows, made once (at startup: the auth service asks for it). */
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword(randomToken(32)));

/**
 * Without a hash (no such account, or no password chosen yet) the check still runs, against the
 * dummy hash with the same parameters, so the answer's timing tells nothing about the account.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  try {
    const ok = await argonVerify(hash ?? (await dummyPasswordHash()), password);
    return ok && hash !== null;
  } catch {
    return false;
  }
}

/**
 * The HS256 key of a secret (the JWT secret: login tokens and signed quotes), imported once. Given the
 * raw bytes instead, jose imports them through WebCrypto on every sign and verify (about half of a
 * signature's CPU time).
 */
export function hs256Key(secret: string): () => Promise<webcrypto.CryptoKey> {
  let key: Promise<webcrypto.CryptoKey> | undefined;
  return () =>
    (key ??= webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]));
}
