// `npm run ops -- <command>` (and `node dist/scripts/ops.js <command>` in the image): the operator
// CLI. It runs the operator services in this process against DATABASE_URL (or the embedded
// database), migrating it first as the server does. Mail (the admin invitation) is queued in the
// database and sent by the running server. Commands: src/cli/; docs/operations.md.
import { randomBytes } from 'node:crypto';
import type { DbHandle } from '../src/db/database.js';
import { runOps } from '../src/cli/ops-program.js';

const io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s) };

let handle: DbHandle | undefined;
let external: { close(): Promise<void> } | undefined;
// The server's modules load on first use: --help and a usage error answer at once.
async function open() {
  const [
    { default: pino },
    { ConfigError, loadConfig },
    { createContainer },
    { createDb },
    { migrate },
    { systemClock },
    { createAdapters },
  ] = await Promise.all([
    import('pino'),
    import('../src/config.js'),
    import('../src/container.js'),
    import('../src/db/database.js'),
    import('../src/db/migrate.js'),
    import('../src/lib/clock.js'),
    import('../src/adapters/index.js'),
  ]);
  let config;
  try {
    // The CLI signs no token: on DATABASE_URL without JWT_SECRET it gets a throwaway key of its own.
    config = loadConfig(
      process.env.DATABASE_URL && !process.env.JWT_SECRET
        ? { ...process.env, JWT_SECRET: randomBytes(32).toString('base64url') }
        : process.env,
    );
  } catch (err) {
    if (err instanceof ConfigError) {
      io.err(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  handle = await createDb({ databaseUrl: config.DATABASE_URL, embeddedDir: config.EMBEDDED_DB_DIR, poolSize: 2 });
  await migrate(handle);
  // The operator commands call no external system, but the container wants its adapters (in
  // development a simulator server on a free port, closed with the database).
  const adapters = await createAdapters({ config, db: handle.db, clock: systemClock });
  external = adapters;
  return createContainer(config, handle, systemClock, pino({ level: 'silent' }), { adapters: adapters.adapters }).services;
}

let code: number;
try {
  code = await runOps(process.argv.slice(2), open, io);
} finally {
  await external?.close();
  await handle?.close();
}
process.exitCode = code;
