import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCoverageAddress, createProvider } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } });
});
afterAll(() => t.close());

describe('serviceability rate limits', () => {
  it('autocomplete answers 429 after 300 requests a minute per key, counted across both mounts; another key is unaffected', async () => {
    expect(RATE_LIMITS['serviceability.autocomplete']).toBe(300);
    expect(RATE_LIMITS['serviceability.check']).toBe(120);
    expect(RATE_LIMITS['serviceability.units']).toBe(300);
    const p = await createProvider(t.db);
    const other = await createProvider(t.db);
    await createCoverageAddress(t.db, p.id, { street: 'Lindenallee', houseNumber: '3' });
    const get = (key: string, prefix: string) =>
      t.app.inject({ method: 'GET', url: `${prefix}/serviceability/autocomplete?q=Lindenallee`, headers: { 'x-api-key': key } });
    for (let i = 0; i < 300; i++) {
      const r = await get(p.apiKey, i % 2 ? '/api/v1' : '');
      expect(r.statusCode).toBe(200);
    }
    const limited = await get(p.apiKey, '');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Object.keys(limited.headers).some((h) => h.startsWith('x-ratelimit'))).toBe(false);
    expect((await get(other.apiKey, '')).statusCode).toBe(200);
  });

  it('check answers 429 after 120 requests a minute per key', async () => {
    const p = await createProvider(t.db);
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: '/serviceability/check',
        headers: { 'x-api-key': p.apiKey },
        payload: { address: 'Lindenallee 3, 10115 Berlin' },
      });
    for (let i = 0; i < 120; i++) expect((await post()).statusCode).toBe(200);
    expect((await post()).statusCode).toBe(429);
  });
});
