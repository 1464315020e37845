import { randomBytes, randomInt, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

// Random bytes are taken from a 4 KB block of the same CSPRNG, refilled when used up (as
// randomUUID does): one getrandom call per block instead of one per request id or token. Each byte
// is handed out once.
const BLOCK = 4096;
let block = Buffer.alloc(0);
let used = 0;
function secureBytes(n: number): Buffer {
  if (n > 256) return randomBytes(n);
  if (used + n > block.length) {
    block = randomBytes(BLOCK);
    used = 0;
  }
  used += n;
  return block.subarray(used - n, used);
}

/** url-safe random token (base64url), `bytes` of entropy. */
export const randomToken = (bytes = 32): string => secureBytes(bytes).toString('base64url');

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export function randomAlnum(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += LOWER_ALNUM[randomInt(LOWER_ALNUM.length)];
  return s;
}

const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
/** Four letters, dash, four digits (e.g. "KXRT-0417"); uniqueness per provider is the caller's retry. */
export function customerNumber(): string {
  let s = '';
  for (let i = 0; i < 4; i++) s += LETTERS[randomInt(LETTERS.length)];
  return `${s}-${String(randomInt(10_000)).padStart(4, '0')}`;
}

export const sixDigitCode = (): string => String(randomInt(1_000_000)).padStart(6, '0');
