import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis the Redis-store tests use, or null when none answered (those tests skip). */
    redisUrl: string | null;
  }
}

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Global setup: the URL when a PING answers within a second, else null and one loud line. */
export async function probeRedis(): Promise<string | null> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause ??= err));
  try {
    await redis.connect();
    await redis.ping();
    return TEST_REDIS_URL;
  } catch (err) {
    process.stderr.write(
      `\n###  SKIPPED: the Redis rate-limit store tests: no Redis answers at ${TEST_REDIS_URL} (${(cause ?? (err as Error)).message}); ` +
        'start one (.ci/run does) or set TEST_REDIS_URL  ###\n\n',
    );
    return null;
  } finally {
    redis.disconnect();
  }
}

export interface RateLimitStoreCase {
  store: 'memory' | 'postgres' | 'redis';
  /** The environment of an app on this store; a fresh Redis key prefix each call, so runs never share buckets. */
  env(): Record<string, string>;
  /** True when the store cannot be tested here (no Redis). */
  skip: boolean;
}

/** Every rate-limit store, for tests that must hold on each (`describe.skipIf(c.skip)`). */
export function rateLimitStores(): RateLimitStoreCase[] {
  const url = inject('redisUrl');
  return [
    { store: 'memory', skip: false, env: () => ({ RATE_LIMIT_STORE: 'memory' }) },
    { store: 'postgres', skip: false, env: () => ({ RATE_LIMIT_STORE: 'postgres' }) },
    {
      store: 'redis',
      skip: !url,
      env: () => ({ RATE_LIMIT_STORE: 'redis', REDIS_URL: url ?? '', REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:` }),
    },
  ];
}
