import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The two floors every benchmark run measures beside its scenarios (BENCH_ROUTES=true only):
 * the framework alone, and one round trip through the same database pool.
 */
export function registerBenchFloors(app: FastifyInstance) {
  app.get('/__bench/constant', { schema: { hide: true } }, async () => ({ ok: true }));
  app.get('/__bench/select1', { schema: { hide: true } }, async () => ({ ok: await app.services.probe.selectOne() }));
  // The constant route behind a rate limit it never reaches (bench/rate-limit-stores.ts): what the
  // configured store adds to a request. The bucket comes from a header, so a run spreads over many.
  const rateLimit = {
    max: 1e9,
    timeWindow: 60_000,
    keyGenerator: (r: FastifyRequest) => `bench|${String(r.headers['x-bench-bucket'] ?? '')}`,
  };
  app.get('/__bench/limited', { schema: { hide: true }, config: { rateLimit } }, async () => ({ ok: true }));
}
