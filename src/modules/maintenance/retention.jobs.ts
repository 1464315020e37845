import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db, DbHandle } from '../../db/database.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import {
  deleteEndedRateLimitWindows,
  deleteOldCredentialFailures,
  deleteExpired,
  deleteFinishedJobs,
  deleteSettledDeliveries,
  EXPIRING_TABLES,
  refreshStatistics,
  type ExpiringTable,
} from './retention.repository.js';

export const RETENTION_JOB_KIND = 'maintenance.retention';

const DAY_MS = 86_400_000;

type RetentionCounts = Record<
  'jobs' | 'webhook_deliveries' | 'webhook_attempts' | ExpiringTable | 'rate_limit_buckets' | 'credential_failures',
  number
>;

export interface RunRetentionDeps {
  db: Db;
  dbHandle: Pick<DbHandle, 'kind'>;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
}

/**
 * Deletes what nobody can need any more, RETENTION_DAYS after it ended (rules: docs/decisions.md
 * "## Retention"). Returns the rows deleted per table.
 */
async function runRetention(deps: RunRetentionDeps) {
  const days = deps.config.RETENTION_DAYS;
  // Off: a job enqueued by hand (or before the setting changed) deletes nothing.
  if (days === 0) return { skipped: 'RETENTION_DAYS=0' };
  const cutoff = new Date(deps.clock.now().getTime() - days * DAY_MS);
  const deliveries = await deleteSettledDeliveries(deps.db, cutoff);
  const jobs = await deleteFinishedJobs(deps.db, cutoff);
  const counts: RetentionCounts = {
    jobs: jobs.deleted + deliveries.jobs,
    webhook_deliveries: deliveries.webhook_deliveries,
    webhook_attempts: deliveries.webhook_attempts,
    idempotency_records: 0,
    verification_codes: 0,
    verified_sessions: 0,
    link_tokens: 0,
    rollback_links: 0,
    rate_limit_buckets: (await deleteEndedRateLimitWindows(deps.db)).deleted,
    credential_failures: (await deleteOldCredentialFailures(deps.db, deps.clock.now())).deleted,
  };
  for (const table of EXPIRING_TABLES) counts[table] = (await deleteExpired(deps.db, table, cutoff)).deleted;
  // The embedded database has no autovacuum: without this its planner statistics would stay those
  // of the day it was loaded (or none), and its searches would read every row.
  if (deps.dbHandle.kind === 'embedded') await refreshStatistics(deps.db);
  deps.log.info({ retention_days: days, cutoff: cutoff.toISOString(), deleted: counts }, 'retention: old rows deleted');
  return { cutoff: cutoff.toISOString(), deleted: counts };
}

export interface RetentionJobsDeps {
  db: Db;
  dbHandle: Pick<DbHandle, 'kind'>;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
  jobs: JobQueue;
  scheduler: Scheduler;
}

/**
 * `maintenance.retention`, daily from 03:30 UTC (after the billing runs) when RETENTION_DAYS > 0.
 * The handler is registered either way, so a run can be enqueued by hand.
 */
export function registerRetentionJobs(deps: RetentionJobsDeps) {
  if (deps.config.RETENTION_DAYS > 0) {
    deps.scheduler.every(RETENTION_JOB_KIND, DAY_MS, {}, { offsetMs: 3 * 3_600_000 + 30 * 60_000, maxAttempts: 3 });
  }
  deps.jobs.register(RETENTION_JOB_KIND, { run: () => runRetention(deps) });
}
