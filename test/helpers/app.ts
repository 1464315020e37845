import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Deps, Services } from '../../src/container.js';
import { fixedClock } from '../../src/lib/clock.js';
import { createTestDb, type TestDb } from './db.js';
import { captureResponses } from './leaks.js';
import { holdDeclaredErrors } from './declared-errors.js';

type TestClock = ReturnType<typeof fixedClock>;

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  services: Services;
  db: Deps['db'];
  clock: TestClock;
  testDb: TestDb;
  config: Config;
  close(): Promise<void>;
}

/** Mid-month, mid-day UTC: far from month and day edges unless a test moves it. */
export const DEFAULT_NOW = '2026-11-16T10:00:00.000Z';

/**
 * A fully wired app on its own fresh database, with a fixed clock, no background worker
 * (tests run jobs with `deps.jobs.drain()`), no rate limits unless asked, and silent logs. Its
 * switch and billing adapters speak HTTP to a simulator server of its own (`app.simulators`, on
 * 127.0.0.1 and the same database, closed with the app); `simulatorsOf(deps.adapters)` reaches it.
 */
export async function buildTestApp(
  opts: { env?: Record<string, string>; now?: string; build?: Omit<BuildOptions, 'dbHandle' | 'clock'> } = {},
): Promise<TestApp> {
  const testDb = await createTestDb();
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    JOBS_ENABLED: 'false',
    SCHEDULER_ENABLED: 'false',
    RATE_LIMIT_ENABLED: 'false',
    // Random per app, like a real deployment's: no test can lean on a key written in the repo.
    JWT_SECRET: randomBytes(32).toString('base64url'),
    MAIL_OUTBOX_DIR: 'var/test/outbox',
    PUBLIC_BASE_URL: 'http://api.test',
    // Tests prove what a search matches, not how fast: on a loaded machine (and on the embedded
    // database) a search can take longer than the production bound. The bound's own tests set it.
    SEARCH_TIMEOUT_MS: '60000',
    ...opts.env,
  });
  const clock = fixedClock(opts.now ?? DEFAULT_NOW);
  const app = await buildApp(config, { ...opts.build, dbHandle: testDb.handle, clock, migrate: false });
  captureResponses(app);
  const undeclared = holdDeclaredErrors(app);
  await app.ready();
  return {
    app,
    deps: app.deps,
    services: app.services,
    db: app.deps.db,
    clock,
    testDb,
    config,
    async close() {
      await app.close();
      await testDb.drop();
      const answers = undeclared();
      if (answers.length) throw new Error(`Answers the OpenAPI does not declare:\n${answers.join('\n')}`);
    },
  };
}
