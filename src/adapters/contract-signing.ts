// Request signing of the switch and billing contracts: Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature v1 = HMAC-SHA256), over a payload that also names the method,
// the path and the Idempotency-Key, so a captured request cannot be replayed against another port
// or operation. A receiver can check with the standardwebhooks library: new Webhook(secret).sign(id,
// date, contractPayload(...)) is the header (test/adapters/contract-client.test.ts proves it).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SIGNATURE_TOLERANCE_SECONDS } from './contracts/contract.js';

export interface ContractRequest {
  method: string;
  /** Relative to the system's base URL, parameters filled in and URL-encoded, with any query. */
  path: string;
  idempotencyKey?: string | null;
  /** The raw body ('' when none is sent). */
  body: string;
}

/** What is signed after `<webhook-id>.<webhook-timestamp>.`. */
export function contractPayload(r: ContractRequest): string {
  return `${r.method.toUpperCase()} ${r.path}\n${r.idempotencyKey ?? ''}\n${r.body}`;
}

/** A fresh shared secret in the Standard Webhooks format (32 random bytes). */
export function newContractSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret; throws (the standardwebhooks package's check) for an unusable one. */
export function contractKey(secret: string): Buffer {
  new Webhook(secret);
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

const hmac = (key: Buffer, id: string, seconds: number, payload: string) =>
  createHmac('sha256', key).update(`${id}.${seconds}.${payload}`).digest('base64');

export function signContractRequest(key: Buffer, r: ContractRequest, now: Date): Record<string, string> {
  const id = `msg_${randomBytes(16).toString('base64url')}`;
  const seconds = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': `v1,${hmac(key, id, seconds, contractPayload(r))}`,
  };
}

/**
 * Why a request's signature is not acceptable (null: it is): missing headers, a timestamp outside
 * the window around `now`, or no v1 signature matching one of the keys (several during a rotation).
 * Replays of a webhook-id are the caller's to refuse (it keeps the ids it accepted).
 */
export function contractSignatureProblem(
  keys: Buffer[],
  r: ContractRequest,
  headers: Record<string, string | string[] | undefined>,
  now: Date,
): string | null {
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' ? v : undefined;
  };
  const id = one('webhook-id');
  const ts = one('webhook-timestamp');
  const sigs = one('webhook-signature');
  if (!id || !ts || !sigs) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (!/^\d{1,12}$/.test(ts)) return 'webhook-timestamp is not unix seconds';
  const seconds = Number(ts);
  if (Math.abs(now.getTime() / 1000 - seconds) > SIGNATURE_TOLERANCE_SECONDS) return 'webhook-timestamp is outside the 5-minute window';
  const payload = contractPayload(r);
  for (const key of keys) {
    const expected = Buffer.from(hmac(key, id, seconds, payload), 'base64');
    for (const part of sigs.split(' ')) {
      const [version, value] = part.split(',', 2);
      if (version !== 'v1' || !value) continue;
      const given = Buffer.from(value, 'base64');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
    }
  }
  return 'no signature matches';
}
