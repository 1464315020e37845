import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { RateLimitCounter } from '../modules/rate-limit/index.js';

/**
 * The rate-limit stores: memory (one process), Postgres or Redis (buckets shared by every process).
 * All three count a fixed window per bucket: the first hit opens a window of `windowMs`, later hits
 * in it count up, the first hit after it opens a new one.
 */
export type RateLimitStoreKind = 'memory' | 'postgres' | 'redis';

type Counted = { current: number; ttl: number };
type Backend = (key: string, windowMs: number, max: number) => Promise<Counted>;
type IncrCallback = (err: Error | null, res?: Counted) => void;

/**
 * The store class @fastify/rate-limit instantiates. `child()` returns the store itself: the plugin's
 * own stores derive a per-route key prefix there (method and URL), which would give a route mounted
 * at `/` and at `/api/v1` two budgets and the refused-key count of countRefusedKey a third. The
 * bucket is the route config's key alone (`<limit name>|<key or IP>`).
 */
function storeClass(backend: Backend) {
  return class SharedStore {
    incr(key: string, cb: IncrCallback, timeWindow: number, max: number) {
      backend(key, timeWindow, max).then(
        (r) => cb(null, r),
        (err: Error) => cb(err),
      );
    }
    child() {
      return this;
    }
  };
}

function memoryBackend(): Backend {
  const buckets = new Map<string, { hits: number; endsAt: number }>();
  let sweep = 0;
  return async (key, windowMs) => {
    const now = Date.now();
    if (++sweep % 1000 === 0) for (const [k, b] of buckets) if (b.endsAt <= now) buckets.delete(k);
    let b = buckets.get(key);
    if (!b || b.endsAt <= now) {
      b = { hits: 0, endsAt: now + windowMs };
      buckets.set(key, b);
    }
    b.hits++;
    return { current: b.hits, ttl: b.endsAt - now };
  };
}

// @fastify/rate-limit's own Redis store (one Lua script: INCR, PEXPIRE on the first hit, PTTL),
// used through its incr() so the counting is the plugin's; only the key prefix is ours (see storeClass).
const require = createRequire(import.meta.url);
type PluginRedisStore = { incr(key: string, cb: (err: Error | null, res: Counted | null) => void, timeWindow: number, max: number): void };
const PluginRedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  keyPrefix: string,
) => PluginRedisStore;

function redisBackend(redis: Redis, keyPrefix: string): Backend {
  const store = new PluginRedisStore(false, false, redis, keyPrefix);
  return (key, windowMs, max) =>
    new Promise((resolve, reject) => store.incr(key, (err, res) => (err ? reject(err) : resolve(res!)), windowMs, max));
}

/** `redis://user:secret@host` → `redis://user:***@host`, for messages and logs. */
const redactUrl = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

/**
 * One client per process. Commands fail at once while the connection is down (no offline queue)
 * and after 500 ms on a stalled server, so a Redis outage costs a request no wait: the limiter lets
 * it through (skipOnError) until Redis is back; ioredis reconnects by itself. The first connection
 * is awaited: a wrong REDIS_URL stops the start with a line saying so, instead of serving unlimited.
 */
async function connectRedis(url: string, log: FastifyBaseLogger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 500,
    connectTimeout: 5000,
  });
  let down = false;
  let started = false;
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
    if (!started || down) return;
    down = true;
    log.error({ err: err.message, redis: redactUrl(url) }, 'rate-limit store: Redis unreachable; requests pass unlimited until it is back');
  });
  redis.on('ready', () => {
    if (down) log.info({ redis: redactUrl(url) }, 'rate-limit store: Redis reachable again');
    down = false;
  });
  try {
    await redis.connect();
    started = true;
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `rate-limit store: Redis at ${redactUrl(url)} did not answer (${(lastError ?? (err as Error)).message}); check REDIS_URL`,
      { cause: err },
    );
  }
  return redis;
}

export interface RateLimitStoreOptions {
  store: RateLimitStoreKind;
  /** The Postgres store's counting (a module's service: plugins run no SQL). */
  counter: RateLimitCounter;
  redisUrl?: string;
  redisKeyPrefix: string;
  log: FastifyBaseLogger;
}

/** The store class for @fastify/rate-limit's `store` option, and what to close with the app. */
export async function createRateLimitStore(
  o: RateLimitStoreOptions,
): Promise<{ Store: ReturnType<typeof storeClass>; close(): Promise<void> }> {
  if (o.store === 'redis') {
    if (!o.redisUrl) throw new Error('rate-limit store: RATE_LIMIT_STORE=redis needs REDIS_URL');
    const redis = await connectRedis(o.redisUrl, o.log);
    return {
      Store: storeClass(redisBackend(redis, o.redisKeyPrefix)),
      async close() {
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }
  return {
    Store: storeClass(o.store === 'postgres' ? (key, windowMs) => o.counter(key, windowMs) : memoryBackend()),
    close: async () => {},
  };
}
