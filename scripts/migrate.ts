// `npm run migrate`: applies pending migrations to DATABASE_URL, or to the embedded database.
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';

const config = loadConfig();
const handle = await createDb({ databaseUrl: config.DATABASE_URL, embeddedDir: config.EMBEDDED_DB_DIR });
try {
  const ran = await migrate(handle);
  console.log(ran.length ? `applied: ${ran.join(', ')}` : 'database is up to date');
} finally {
  await handle.close();
}
