import { describe, expect, it } from 'vitest';
import { randomToken } from '../../src/lib/ids.js';

describe('randomToken (bytes drawn from a pooled CSPRNG block)', () => {
  it('never hands out the same bytes twice, across many block refills', () => {
    const tokens = Array.from({ length: 5000 }, (_, i) => randomToken(i % 2 ? 32 : 12));
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(tokens.filter((_, i) => i % 2).every((t) => /^[A-Za-z0-9_-]{43}$/.test(t))).toBe(true);
    expect(tokens.filter((_, i) => i % 2 === 0).every((t) => /^[A-Za-z0-9_-]{16}$/.test(t))).toBe(true);
  });

  it('serves requests larger than a pooled slice directly', () => {
    const t = randomToken(1024);
    expect(Buffer.from(t, 'base64url')).toHaveLength(1024);
    expect(randomToken(1024)).not.toBe(t);
  });
});
