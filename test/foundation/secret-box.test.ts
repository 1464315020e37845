// Issue 29 §1: secrets kept in the database are sealed (AES-256-GCM) under SECRETS_KEY, bound to
// their record, and production refuses a missing or weak key (production-refusals.test.ts).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError, secretsKeyOf } from '../../src/lib/secret-box.js';

const key = () => randomBytes(48).toString('base64url');

describe('secret box', () => {
  it('seals and opens a secret; the sealed bytes never contain it and differ each time', () => {
    const box = createSecretBox(key());
    const a = box.seal('twilio-auth-token-123', 'sms_gateway:p1');
    const b = box.seal('twilio-auth-token-123', 'sms_gateway:p1');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('latin1')).not.toContain('twilio-auth-token');
    expect(box.open(a, 'sms_gateway:p1')).toBe('twilio-auth-token-123');
  });

  it('a box does not open in another record, under another key, or altered', () => {
    const k = key();
    const box = createSecretBox(k);
    const sealed = box.seal('token', 'sms_gateway:p1');
    expect(() => box.open(sealed, 'sms_gateway:p2')).toThrow(SecretBoxError);
    expect(() => createSecretBox(key()).open(sealed, 'sms_gateway:p1')).toThrow(/another SECRETS_KEY/);
    const altered = Buffer.from(sealed);
    altered[altered.length - 20]! ^= 1;
    expect(() => box.open(altered, 'sms_gateway:p1')).toThrow(/corrupt/);
    expect(() => box.open(Buffer.from('short'), 'sms_gateway:p1')).toThrow(/not a sealed secret/);
  });

  it('refuses a key under 32 bytes; without SECRETS_KEY (never in production) a key derived from the JWT secret', () => {
    expect(() => createSecretBox('short')).toThrow(SecretBoxError);
    const jwt = key();
    expect(secretsKeyOf({ jwtSecret: jwt })).toBe(secretsKeyOf({ jwtSecret: jwt }));
    expect(secretsKeyOf({ jwtSecret: jwt })).not.toContain(jwt);
    expect(secretsKeyOf({ SECRETS_KEY: 'x'.repeat(40), jwtSecret: jwt })).toBe('x'.repeat(40));
  });
});
