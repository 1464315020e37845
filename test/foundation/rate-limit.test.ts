import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';

const LOGIN_LIMIT = RATE_LIMITS['auth.login'];
const login = (t: TestApp, prefix: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `${prefix}/auth/login`, payload: { email: 'nobody@example.test', password: 'irrelevant' }, headers, remoteAddress: headers['x-ip'] ?? '10.1.1.1' });

describe('rate limits (memory store)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true' } });
  });
  afterAll(() => t.close());

  it('answers 429 in the standard shape, with Retry-After and no X-RateLimit headers, once the bucket is spent across both mounts', async () => {
    const key = { 'x-api-key': 'sk_aaaaaaaa_' + 'x'.repeat(40) };
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const r = await login(t, i % 2 ? '/api/v1' : '', key);
      expect(r.statusCode).toBe(401);
      expect(Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit'))).toBe(false);
    }
    const r = await login(t, '', key);
    expect(r.statusCode).toBe(429);
    expect(r.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Rate limit exceeded/) });
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit'))).toBe(false);
  });

  it('buckets by API-key prefix when a key is sent, else by client IP', async () => {
    const other = await login(t, '', { 'x-api-key': 'sk_bbbbbbbb_' + 'x'.repeat(40) });
    expect(other.statusCode).toBe(401);
    const byIp = await login(t, '', { 'x-ip': '10.9.9.9' });
    expect(byIp.statusCode).toBe(401);
  });
});

describe('rate limits shared by several processes (postgres store)', () => {
  it('two app instances on one database share one budget', async () => {
    const a = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'postgres' } });
    const b = await buildApp(a.config, { dbHandle: a.testDb.handle, clock: a.clock, migrate: false });
    await b.ready();
    try {
      const headers = { 'x-api-key': 'sk_cccccccc_' + 'x'.repeat(40) };
      const payload = { email: 'nobody@example.test', password: 'irrelevant' };
      const codes: number[] = [];
      for (let i = 0; i < LOGIN_LIMIT + 2; i++) {
        const app = i % 2 ? b : a.app;
        codes.push((await app.inject({ method: 'POST', url: '/auth/login', payload, headers })).statusCode);
      }
      expect(codes.filter((c) => c === 401)).toHaveLength(LOGIN_LIMIT);
      expect(codes.slice(LOGIN_LIMIT)).toEqual([429, 429]);
      const row = await a.db.selectFrom('rate_limit_buckets').selectAll().where('bucket', '=', 'auth.login|key:cccccccc').executeTakeFirstOrThrow();
      expect(row.hits).toBe(LOGIN_LIMIT + 2);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
