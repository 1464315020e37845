import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

// Secrets this server must use in clear later (a provider's SMS gateway token) are kept in the
// database sealed with AES-256-GCM under a key from the environment (SECRETS_KEY), never in clear.
// A box is bytes: version (1) | key id (4) | IV (12) | ciphertext | tag (16). The key id is the first
// bytes of the key's SHA-256: opening with another key says "wrong key" instead of "corrupt".
// Each box is bound to its context (e.g. "sms_gateway:<provider id>") as associated data, so a
// box copied into another provider's row does not open there.

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 4;

export class SecretBoxError extends Error {}

export interface SecretBox {
  seal(plaintext: string, context: string): Buffer;
  open(box: Uint8Array, context: string): string;
}

/** The AES key of a SECRETS_KEY value: HKDF-SHA-256 of its bytes, so any long random text will do. */
function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'netsvc secret-box v1', 32));
}

export function createSecretBox(secret: string): SecretBox {
  if (Buffer.byteLength(secret, 'utf8') < 32) throw new SecretBoxError('the secrets key must be at least 32 bytes');
  const key = deriveKey(secret);
  const keyId = createHash('sha256').update(key).digest().subarray(0, KEY_ID_BYTES);

  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), keyId, iv, body, cipher.getAuthTag()]);
    },
    open(box, context) {
      const b = Buffer.from(box);
      if (b.length < 1 + KEY_ID_BYTES + IV_BYTES + TAG_BYTES || b[0] !== VERSION) throw new SecretBoxError('not a sealed secret');
      if (!b.subarray(1, 1 + KEY_ID_BYTES).equals(keyId)) {
        throw new SecretBoxError('sealed with another SECRETS_KEY: set the key it was sealed with, or store the secret again');
      }
      const iv = b.subarray(1 + KEY_ID_BYTES, 1 + KEY_ID_BYTES + IV_BYTES);
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(b.subarray(b.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(b.subarray(1 + KEY_ID_BYTES + IV_BYTES, b.length - TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretBoxError('the sealed secret is corrupt or belongs to another record');
      }
    },
  };
}

/**
 * Outside production a missing SECRETS_KEY falls back to a key derived from the JWT secret (the demo
 * keeps working; rotating JWT_SECRET then makes stored gateway tokens unreadable). Production refuses
 * a missing or weak SECRETS_KEY (src/config.ts).
 */
export function secretsKeyOf(c: { SECRETS_KEY?: string; jwtSecret: string }): string {
  return c.SECRETS_KEY ?? `secret-box:${createHash('sha256').update(`secrets-at-rest:${c.jwtSecret}`).digest('base64url')}`;
}
