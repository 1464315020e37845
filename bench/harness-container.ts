import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createAdapters } from '../src/adapters/index.js';
import { createContainer } from '../src/container.js';
import { createDb } from '../src/db/database.js';
import { systemClock } from '../src/lib/clock.js';

/**
 * The application's services in the harness's own process, on DATABASE_URL, with no job worker: a
 * scenario queues work through the real code (outbox, job queue) and the running server drains it.
 */
export async function harnessContainer() {
  // It signs no token, but a DATABASE_URL config wants a JWT key.
  const config = loadConfig({
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ...process.env,
    LOG_LEVEL: 'silent',
    JOBS_ENABLED: 'false',
  });
  const handle = await createDb({ databaseUrl: config.DATABASE_URL, poolSize: 4 });
  const external = await createAdapters({ config, db: handle.db, clock: systemClock });
  const { deps } = createContainer(config, handle, systemClock, pino({ level: 'silent' }), { adapters: external.adapters });
  return {
    deps,
    handle,
    async close() {
      await external.close();
      await handle.close();
    },
  };
}
