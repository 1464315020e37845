import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { rateLimitStores } from '../helpers/redis.js';
import { overrideRateLimits } from '../helpers/rate-limits.js';

// Small budgets for the bucket tests: a failed login costs a password hash, and these tests run once per store.
const SMALL = 4;
overrideRateLimits(
  Object.fromEntries(
    (['auth.login', 'location.lookup', 'subscriber.write', 'serviceability.check', 'checkout.partner'] as const).map((n) => [n, SMALL]),
  ),
);
const LOGIN_LIMIT = RATE_LIMITS['auth.login'];

// Another unknown email each time: 10 failures of one email would lock it (429 {detail}) before the limiter's 429.
let logins = 0;
const login = (t: TestApp, prefix: string, o: { headers?: Record<string, string>; ip?: string } = {}) =>
  t.app.inject({
    method: 'POST',
    url: `${prefix}/auth/login`,
    payload: { email: `nobody-${++logins}@example.test`, password: 'irrelevant' },
    headers: o.headers,
    remoteAddress: o.ip ?? '10.1.1.1',
  });
/** A well-formed key nobody issued: a fresh prefix on every call. */
let invented = 0;
const inventedKey = () => `sk_${(++invented).toString(36).padStart(8, 'z')}_${'x'.repeat(40)}`;
const standard429 = { statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Rate limit exceeded/) };

// Every rule below holds on each store: memory (one process), postgres and redis (shared by processes).
for (const store of rateLimitStores())
  describe.skipIf(store.skip)(`rate limits (${store.store} store)`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true', ...store.env() } });
    });
    afterAll(() => t.close());

    it('answers 429 in the standard shape, with Retry-After and no X-RateLimit headers, once the bucket is spent across both mounts', async () => {
      for (let i = 0; i < LOGIN_LIMIT; i++) {
        const r = await login(t, i % 2 ? '/api/v1' : '');
        expect(r.statusCode).toBe(401);
        expect(Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit'))).toBe(false);
      }
      const r = await login(t, '');
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit'))).toBe(false);
      // Another client IP has its own bucket.
      expect((await login(t, '', { ip: '10.9.9.9' })).statusCode).toBe(401);
    });

    it('an invented X-API-Key prefix buys no fresh budget on login: every made-up key counts against the client IP', async () => {
      const ip = '10.2.2.2';
      for (let i = 0; i < LOGIN_LIMIT; i++)
        expect((await login(t, '', { ip, headers: { 'x-api-key': inventedKey() } })).statusCode).toBe(401);
      const r = await login(t, '/api/v1', { ip, headers: { 'x-api-key': inventedKey() } });
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
      // A malformed key, and none at all, are the same bucket.
      expect((await login(t, '', { ip, headers: { 'x-api-key': 'sk_nonsense' } })).statusCode).toBe(429);
      expect((await login(t, '', { ip })).statusCode).toBe(429);
    });

    it('an IPv6 client is counted per /64: fresh addresses in one /64 share a bucket, another /64 has its own', async () => {
      for (let i = 1; i <= LOGIN_LIMIT; i++) expect((await login(t, '', { ip: `2001:db8:7:7::${i.toString(16)}` })).statusCode).toBe(401);
      expect((await login(t, '', { ip: '2001:db8:7:7:ffff:ffff:ffff:fffe' })).statusCode).toBe(429);
      expect((await login(t, '', { ip: '2001:db8:7:8::1' })).statusCode).toBe(401);
    });

    it('an invented X-API-Key prefix buys no fresh budget on location lookup: made-up keys count against the client IP', async () => {
      const ip = '10.3.3.3';
      const lookup = (key: string) =>
        t.app.inject({
          method: 'POST',
          url: '/location/lookup',
          payload: { location_hash: 'nope' },
          headers: { 'x-api-key': key },
          remoteAddress: ip,
        });
      for (let i = 0; i < SMALL; i++) expect((await lookup(inventedKey())).statusCode).toBe(404);
      const r = await lookup(inventedKey());
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
    });

    it('an invented X-API-Key prefix buys no fresh budget on PATCH /subscriber/me/password: made-up keys count against the client IP', async () => {
      const ip = '10.4.4.4';
      const u = await createUser(t.db);
      const jwt = (await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null })).access_token;
      // A too-short new password answers 422 before any password check: the limiter still counts it.
      const change = (key: string) =>
        t.app.inject({
          method: 'PATCH',
          url: '/subscriber/me/password',
          remoteAddress: ip,
          headers: { authorization: `Bearer ${jwt}`, 'x-api-key': key },
          payload: { current_password: 'guess', new_password: 'short' },
        });
      for (let i = 0; i < SMALL; i++) expect((await change(inventedKey())).statusCode).toBe(422);
      const r = await change(inventedKey());
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
    });

    it('on a key route, refused keys count against the client IP (then 429 instead of 403); a valid key from that IP keeps its own bucket', async () => {
      const ip = '10.5.5.5';
      const p = await createProvider(t.db);
      const check = (key: string) =>
        t.app.inject({
          method: 'POST',
          url: '/serviceability/check',
          headers: { 'x-api-key': key },
          payload: { address: 'Lindenallee 3, 10115 Berlin' },
          remoteAddress: ip,
        });
      for (let i = 0; i < SMALL; i++) expect((await check(inventedKey())).statusCode).toBe(403);
      const r = await check(inventedKey());
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
      expect((await check(p.apiKey)).statusCode).toBe(200);
      // The valid key's bucket is its own: spending it leaves the IP's refusals where they were.
      for (let i = 1; i < SMALL; i++) expect((await check(p.apiKey)).statusCode).toBe(200);
      expect((await check(p.apiKey)).statusCode).toBe(429);
      expect((await check((await createProvider(t.db)).apiKey)).statusCode).toBe(200);
    });

    it('refused webhook secrets count against the client IP too (then 429 instead of 403)', async () => {
      const status = () =>
        t.app.inject({
          method: 'POST',
          url: '/external-checkout/subscription-status',
          remoteAddress: '10.7.7.7',
          headers: { 'x-webhook-secret': `whs_${(++invented).toString(36).padStart(8, 'w')}_${'x'.repeat(40)}` },
          payload: { subscription_id: '00000000-0000-4000-8000-000000000000', action: 'suspend' },
        });
      for (let i = 0; i < SMALL; i++) expect((await status()).statusCode).toBe(403);
      const r = await status();
      expect(r.statusCode).toBe(429);
      expect(r.json()).toEqual(standard429);
    });
  });

/** What the store holds for one bucket: the Postgres row's hits, or the Redis counter. */
async function hitsOf(a: TestApp, bucket: string): Promise<number | null> {
  if (a.config.RATE_LIMIT_STORE === 'postgres') {
    const row = await a.db.selectFrom('rate_limit_buckets').select('hits').where('bucket', '=', bucket).executeTakeFirst();
    return row?.hits ?? null;
  }
  const redis = new Redis(a.config.REDIS_URL!);
  try {
    const v = await redis.get(`${a.config.REDIS_KEY_PREFIX}${bucket}`);
    return v === null ? null : Number(v);
  } finally {
    redis.disconnect();
  }
}

for (const store of rateLimitStores().filter((s) => s.store !== 'memory')) {
  describe.skipIf(store.skip)(`rate limits shared by several processes (${store.store} store)`, () => {
    it('two app instances on one store share one budget, in one bucket per limit and client IP', async () => {
      const a = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true', ...store.env() } });
      const b = await buildApp(a.config, { dbHandle: a.testDb.handle, clock: a.clock, migrate: false });
      await b.ready();
      try {
        const codes: number[] = [];
        for (let i = 0; i < LOGIN_LIMIT + 2; i++) {
          const app = i % 2 ? b : a.app;
          const payload = { email: `nobody-${i}@example.test`, password: 'irrelevant' };
          codes.push(
            (
              await app.inject({
                method: 'POST',
                url: '/auth/login',
                payload,
                headers: { 'x-api-key': inventedKey() },
                remoteAddress: '10.6.6.6',
              })
            ).statusCode,
          );
        }
        expect(codes.filter((c) => c === 401)).toHaveLength(LOGIN_LIMIT);
        expect(codes.slice(LOGIN_LIMIT)).toEqual([429, 429]);
        expect(await hitsOf(a, 'auth.login|ip:10.6.6.6')).toBe(LOGIN_LIMIT + 2);
        if (store.store === 'postgres') {
          const rows = await a.db.selectFrom('rate_limit_buckets').select('bucket').where('bucket', 'like', 'auth.login|%').execute();
          expect(rows.map((r) => r.bucket)).toEqual(['auth.login|ip:10.6.6.6']);
        }
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
}
