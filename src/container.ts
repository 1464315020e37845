import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DbHandle } from './db/database.js';
import type { Clock } from './lib/clock.js';
import type { Adapters } from './adapters/types.js';
import type { JobQueue } from './jobs/types.js';
import type { Mailer } from './mail/types.js';
import type { Webhooks } from './webhooks/types.js';
import { createAuthService, type AuthService } from './modules/auth/auth.service.js';
import { createAdapters } from './adapters/index.js';
import { applyFaultSpec } from './adapters/fault-spec.js';
import { createJobQueue } from './jobs/queue.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import { registerJobHandlers } from './jobs/handlers.js';
import { createMailer } from './mail/mailer.js';
import { createWebhooks } from './webhooks/outbox.js';

/**
 * Everything a route, service or job handler may use. Services are factories taking the narrow
 * part of this they need (`Pick<Deps, 'db' | 'clock'>`); only this file wires them.
 */
export interface Deps {
  config: Config;
  db: Db;
  dbHandle: DbHandle;
  clock: Clock;
  log: FastifyBaseLogger;
  auth: AuthService;
  jobs: JobQueue;
  /** Recurring jobs: `scheduler.every(kind, intervalMs, payload?)` beside `jobs.register(kind, ...)`. */
  scheduler: Scheduler;
  mailer: Mailer;
  webhooks: Webhooks;
  adapters: Adapters;
}

/** Parts a test (or a script) may supply instead of the defaults. */
export type DepsOverrides = Partial<Pick<Deps, 'clock' | 'adapters' | 'mailer'>>;

export function createContainer(config: Config, dbHandle: DbHandle, clock: Clock, log: FastifyBaseLogger, overrides: DepsOverrides = {}): Deps {
  const db = dbHandle.db;
  const jobs = createJobQueue({ db, clock, log, config });
  const deps: Deps = {
    config,
    db,
    dbHandle,
    clock,
    log,
    auth: createAuthService({ db, clock, jwtSecret: config.jwtSecret, jwtTtlSeconds: config.JWT_TTL_SECONDS }),
    jobs,
    scheduler: createScheduler({ db, jobs, clock, log }),
    mailer: overrides.mailer ?? createMailer({ config, log, jobs }),
    webhooks: createWebhooks({ jobs, clock }),
    adapters: overrides.adapters ?? createAdapters({ db, clock }),
  };
  if (!overrides.adapters) applyFaultSpec(deps.adapters, config.SIMULATOR_FAULTS);
  registerJobHandlers(deps);
  return deps;
}
