// `npm run seed:demo [-- --json]`: loads the demo dataset into DATABASE_URL or the embedded
// database (run it before `npm start` there: the embedded database admits one process).
// With --json, stdout carries only the JSON document; everything else goes to stderr.
import { ConfigError, loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { loadDemo, summarize } from '../src/demo/seed.js';

const json = process.argv.slice(2).includes('--json');
if (json) {
  // Anything a library prints must not corrupt the document on stdout.
  const toStderr = (...args: unknown[]) => process.stderr.write(`${args.map(String).join(' ')}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

async function main(): Promise<number> {
  // Checked before the configuration, so production hears this and nothing else.
  if (process.env.NODE_ENV === 'production') {
    process.stderr.write('refusing to load the demo dataset: NODE_ENV=production\n');
    return 1;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const where = config.DATABASE_URL ? 'DATABASE_URL' : `the embedded database in ${config.EMBEDDED_DB_DIR}`;
  process.stderr.write(`seed:demo: loading into ${where}\n`);
  const handle = await createDb({ databaseUrl: config.DATABASE_URL, poolSize: 2, embeddedDir: config.EMBEDDED_DB_DIR });
  try {
    await migrate(handle);
    const load = await loadDemo({ db: handle.db, clock: systemClock, config });
    if (json) process.stdout.write(`${JSON.stringify(load.document, null, 2)}\n`);
    else process.stdout.write(`${summarize(load)}\n`);
    return 0;
  } finally {
    await handle.close();
  }
}

process.exitCode = await main();
