import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { RateLimitCounter } from '../modules/rate-limit/index.js';
import { clientNetwork } from '../lib/client-network.js';
import { RateLimitError } from '../lib/errors.js';
import { createRateLimitStore, type RateLimitStoreKind } from './rate-limit-store.js';

/**
 * Every per-route limit in one table (requests per minute). Buckets are the API-key prefix once an
 * auth hook has accepted the key, else the client IP; the limit's name is part of the bucket, so a
 * route mounted at `/` and at `/api/v1` shares one budget.
 */
export const RATE_LIMITS = {
  // partner (numbers from the partner document)
  'serviceability.autocomplete': 300,
  'serviceability.check': 120,
  'serviceability.units': 300,
  'provisioning.provider_initiated': 120,
  // our choices for the routes whose numbers the documents leave "not shown" (docs/decisions.md)
  'provisioning.bulk': 30,
  'provisioning.write': 120,
  'provisioning.jobs': 300,
  'checkout.public': 120,
  'checkout.partner': 300,
  'location.lookup': 120,
  'auth.login': 20,
  'auth.set_password': 20,
  'subscriber.read': 300,
  'subscriber.write': 60,
  'internal.write': 60,
  'internal.read': 300,
  'agent.search': 120,
  'agent.read': 300,
  'agent.verify_issue': 30,
  'agent.verify_check': 30,
  'agent.write': 60,
  'agent.tickets': 60,
  // POST /agent/mcp itself (list, initialize); each tool call also counts in its operation's bucket
  'agent.mcp': 600,
  'booking.page': 120,
  'payment.page': 60,
  'rollback.page': 30,
} as const;

export type RateLimitName = keyof typeof RATE_LIMITS;

/**
 * `request.apiKey` is set only by an auth hook that validated the key, and those hooks run before
 * the limiter (plugin and route onRequest hooks come first). An unknown, malformed or merely
 * present key therefore counts against the client IP (an IPv6 client: its /64): inventing prefixes
 * buys no fresh budget.
 */
function bucketOf(request: FastifyRequest): string {
  return request.apiKey ? `key:${request.apiKey.prefix}` : `ip:${clientNetwork(request.ip)}`;
}

/** Route config for one named limit: `config: { rateLimit: limit('serviceability.check') }`. */
export function limit(name: RateLimitName) {
  return {
    max: RATE_LIMITS[name],
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) => `${name}|${bucketOf(request)}`,
  };
}

/**
 * A key route's auth hook refuses a bad key before the route's limiter runs, so the limiter never
 * counts that request. The hook calls this first: the request counts against the route's limit
 * under the client IP (429 once spent), so a stream of invented keys is limited like any other.
 */
export async function countRefusedKey(request: FastifyRequest, reply: FastifyReply) {
  const rateLimit = request.routeOptions.config?.rateLimit;
  if (!rateLimit || !request.server.hasDecorator('rateLimit')) return;
  await request.server.rateLimit(rateLimit).call(request.server, request, reply);
}

export interface RateLimitOptions {
  enabled: boolean;
  store: RateLimitStoreKind;
  counter: RateLimitCounter;
  redisUrl?: string;
  redisKeyPrefix: string;
}

export async function registerRateLimit(app: FastifyInstance, opts: RateLimitOptions) {
  if (!opts.enabled) return;
  const store = await createRateLimitStore({ ...opts, log: app.log });
  app.addHook('onClose', () => store.close());
  await app.register(rateLimit, {
    global: false,
    store: store.Store,
    // The rate-limit store being unreachable must not take the API down with it.
    skipOnError: true,
    // The documents: no X-RateLimit-* headers; Retry-After is kept (it is not an X- header).
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (_req, ctx) =>
      new RateLimitError(
        { statusCode: 429, error: 'Too Many Requests', message: `Rate limit exceeded, retry in ${ctx.after}` },
        Math.ceil(ctx.ttl / 1000),
      ),
  });
}
