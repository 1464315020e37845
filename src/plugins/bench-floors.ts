import type { FastifyInstance } from 'fastify';

/**
 * The two floors every benchmark run measures beside its scenarios (BENCH_ROUTES=true only):
 * the framework alone, and one round trip through the same database pool.
 */
export function registerBenchFloors(app: FastifyInstance) {
  app.get('/__bench/constant', { schema: { hide: true } }, async () => ({ ok: true }));
  app.get('/__bench/select1', { schema: { hide: true } }, async () => ({ ok: await app.services.probe.selectOne() }));
}
