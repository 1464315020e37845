import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { expectedSchema } from '../db/migrate.js';
import type { JobQueue } from '../jobs/types.js';
import type { OpsRepository } from './ops.repository.js';

export interface HealthDeps {
  config: Pick<Config, 'JOBS_ENABLED'>;
  jobs: Pick<JobQueue, 'isRunning'>;
  repo: OpsRepository;
  migrationsDir?: string;
}

/** 'ok', 'disabled', or what went wrong. */
type Check = string;

/**
 * GET /healthz: the process answers (a liveness probe; touches nothing). GET /readyz: this process
 * should get traffic: the database answers, every migration and function file is applied (as it reads now), and the job worker
 * runs (unless JOBS_ENABLED=false, a web-only process). 503 names the failing part. Neither is in
 * an OpenAPI document: they are for load balancers and orchestrators, not API clients.
 */
export function registerHealth(app: FastifyInstance, deps: HealthDeps) {
  let files: ReturnType<typeof expectedSchema> | undefined;
  const schemaFiles = () => (files ??= expectedSchema(deps.migrationsDir));

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const checks: Record<'database' | 'migrations' | 'jobs', Check> = { database: 'ok', migrations: 'ok', jobs: 'ok' };
    try {
      await deps.repo.ping();
      const applied = await deps.repo.appliedSchema();
      const expected = await schemaFiles();
      const pending =
        expected.migrations.filter((f) => !applied.migrations.has(f)).length +
        [...expected.functions].filter(([f, sum]) => applied.functions.get(f) !== sum).length;
      if (pending > 0) checks.migrations = `${pending} pending`;
    } catch (err) {
      request.log.warn({ err }, 'readiness: database check failed');
      checks.database = 'unreachable';
      checks.migrations = 'unknown';
    }
    if (!deps.config.JOBS_ENABLED) checks.jobs = 'disabled';
    else if (!deps.jobs.isRunning()) checks.jobs = 'not running';
    const failing = Object.entries(checks)
      .filter(([, v]) => !['ok', 'disabled', 'unknown'].includes(v))
      .map(([k]) => k);
    if (failing.length) return reply.code(503).send({ status: 'unavailable', failing, checks });
    return { status: 'ready', checks };
  });
}
