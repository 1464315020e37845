import { pathToFileURL } from 'node:url';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from './app.js';
import { ConfigError, type Config } from './config.js';
import { exitOnConfigError, loadConfigOrExit } from './config-or-exit.js';
import type { Db } from './db/database.js';
import { holdsDemoDataset } from './demo/seed.js';

export interface StartOptions extends BuildOptions {
  /** Runs after the app is built (database open and migrated) and before it listens. */
  beforeListen?: (app: FastifyInstance) => Promise<void>;
}

export interface StartedServer {
  app: FastifyInstance;
  /** Where clients reach it: PUBLIC_BASE_URL, else the address actually bound. */
  baseUrl: string;
}

/**
 * What a production start refuses once the database is open (config.ts refuses the settings before):
 * a database loaded with the demo dataset, whose demo_state keeps every demo key and password in clear.
 */
export async function databaseRefusals(config: Pick<Config, 'NODE_ENV'>, db: Db): Promise<string[]> {
  if (config.NODE_ENV !== 'production') return [];
  return (await holdsDemoDataset(db))
    ? [
        'DATABASE_URL: this database holds the demo dataset (its keys and passwords are kept in clear in demo_state); ' +
          'production needs a database that never held it: create an empty one (npm run migrate) and set up providers with the operator tools',
      ]
    : [];
}

/**
 * Builds the app, listens, and closes gracefully on SIGTERM/SIGINT. The only place that listens.
 * Throws ConfigError (after closing the app, before listening) when databaseRefusals refuses the database.
 */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<StartedServer> {
  const { beforeListen, ...buildOpts } = opts;
  const app = await buildApp(config, buildOpts);
  const refused = await databaseRefusals(config, app.deps.db);
  if (refused.length) {
    await app.close();
    throw new ConfigError(refused.map((line) => `invalid configuration: ${line}`).join('\n'));
  }
  closeOnSignals(app);
  await beforeListen?.(app);
  await app.listen({ port: config.PORT, host: config.HOST });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
  // A wildcard bind is reached through loopback from this machine.
  const host = ['0.0.0.0', '::', '[::]'].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return { app, baseUrl: config.PUBLIC_BASE_URL?.replace(/\/$/, '') ?? `http://${host}:${port}` };
}

/** Longest a graceful shutdown may take before the process exits anyway (exit code 1). */
export const SHUTDOWN_TIMEOUT_MS = 9_000;

/**
 * SIGTERM/SIGINT: stop accepting, finish in-flight requests, finish or hand back running jobs,
 * close the pool; exit 0, or 1 after SHUTDOWN_TIMEOUT_MS. A repeated signal is only logged: under
 * `npm start` a terminal's Ctrl-C reaches the server twice (from the terminal and forwarded by npm),
 * and the second must not cut the drain short. Errors nobody caught close the same way (exit 1).
 */
function closeOnSignals(app: FastifyInstance) {
  const grace = closeWithGrace({ delay: SHUTDOWN_TIMEOUT_MS, skip: ['SIGTERM', 'SIGINT'] }, async ({ err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    await app.close();
  });
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return void app.log.info({ signal }, 'already shutting down');
    closing = true;
    app.log.info({ signal }, 'shutting down');
    void grace.close();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

// `tsx src/server.ts` (npm run dev) serves without the demo; `npm start` goes through scripts/start.ts.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await startServer(loadConfigOrExit()).catch(exitOnConfigError);
}
