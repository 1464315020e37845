import { createServer, connect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTestDb } from '../helpers/db.js';
import { freePort } from '../helpers/processes.js';
import { rateLimitStores } from '../helpers/redis.js';
import { overrideRateLimits } from '../helpers/rate-limits.js';

const BUDGET = 3;
overrideRateLimits({ 'location.lookup': BUDGET });

const redisUrl = inject('redisUrl');
const redisCase = rateLimitStores().find((s) => s.store === 'redis')!;

/** An unauthenticated route limited per client IP that answers without hashing anything. */
const lookup = (t: TestApp, ip: string) =>
  t.app.inject({ method: 'POST', url: '/location/lookup', payload: { location_hash: 'nope' }, remoteAddress: ip });

describe('the Redis rate-limit store: starting', () => {
  it('a REDIS_URL where nothing answers stops the start with one message naming Redis and REDIS_URL, the password masked', async () => {
    const port = await freePort();
    const testDb = await createTestDb();
    try {
      const config = loadConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        JOBS_ENABLED: 'false',
        SCHEDULER_ENABLED: 'false',
        JWT_SECRET: 'x'.repeat(32),
        RATE_LIMIT_ENABLED: 'true',
        RATE_LIMIT_STORE: 'redis',
        REDIS_URL: `redis://:hunter2-secret@127.0.0.1:${port}`,
      });
      const err = await buildApp(config, { dbHandle: testDb.handle, migrate: false }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(
        new RegExp(
          `^rate-limit store: Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port} did not answer \\(connect ECONNREFUSED .*\\); check REDIS_URL$`,
        ),
      );
      expect(err?.message).not.toContain('hunter2');
    } finally {
      await testDb.drop();
    }
  });
});

/** A TCP relay to the test Redis that can be cut and restored: a Redis outage without touching Redis. */
async function relayTo(target: URL) {
  const port = await freePort();
  let server: Server | null = null;
  const sockets = new Set<Socket>();
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  await open();
  return {
    url: `redis://127.0.0.1:${port}`,
    async cut() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    restore: open,
  };
}

describe.skipIf(!redisUrl)('the Redis rate-limit store: counting and outages', () => {
  let t: TestApp;
  let relay: Awaited<ReturnType<typeof relayTo>>;
  beforeAll(async () => {
    relay = await relayTo(new URL(redisUrl!));
    t = await buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true', ...redisCase.env(), REDIS_URL: relay.url } });
  });
  afterAll(async () => {
    await t.close();
    await relay.cut();
  });

  it('a bucket is one Redis key under REDIS_KEY_PREFIX that expires with its one-minute window', async () => {
    expect((await lookup(t, '10.20.0.1')).statusCode).toBe(404);
    const redis = new Redis(redisUrl!);
    try {
      const key = `${t.config.REDIS_KEY_PREFIX}location.lookup|ip:10.20.0.1`;
      expect(await redis.get(key)).toBe('1');
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
  });

  it('while Redis is unreachable requests pass unlimited (never a 500, never a 429); once it is back, counting resumes', async () => {
    const ip = '10.20.0.2';
    await relay.cut();
    for (let i = 0; i < BUDGET + 3; i++) expect((await lookup(t, ip)).statusCode).toBe(404);
    await relay.restore();
    // ioredis reconnects on its own backoff; a request counts again once it has.
    const redis = new Redis(redisUrl!);
    try {
      const key = `${t.config.REDIS_KEY_PREFIX}location.lookup|ip:${ip}`;
      for (let i = 0; i < 200 && (await redis.get(key)) === null; i++) {
        expect((await lookup(t, ip)).statusCode).toBe(404);
        await new Promise((r) => setTimeout(r, 50));
      }
      const counted = Number(await redis.get(key));
      expect(counted).toBeGreaterThan(0);
      const codes: number[] = [];
      for (let i = counted; i <= BUDGET; i++) codes.push((await lookup(t, ip)).statusCode);
      expect(codes.at(-1)).toBe(429);
      expect(codes.slice(0, -1).every((c) => c === 404)).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
