import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { adminUrl, embeddedTemplateFile, pgTemplateName, TEMPLATE_DIR } from './helpers/template.js';

/** Migrates one template database per run; every test file clones it. */
export default async function setup() {
  const url = process.env.DATABASE_URL;
  if (url) {
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    try {
      const tpl = pgTemplateName();
      // Sweep databases left by killed runs.
      const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'netsvc_t\\_%' OR (datname LIKE 'netsvc_tpl\\_%' AND datname <> $1)`, [tpl]);
      for (const r of stale.rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`).catch(() => undefined);
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [tpl]);
      if (exists.rowCount === 0) {
        await admin.query(`CREATE DATABASE "${tpl}"`);
        const h = await createDb({ databaseUrl: adminUrl(url, tpl), poolSize: 2 });
        try {
          await migrate(h);
        } catch (err) {
          await h.close();
          await admin.query(`DROP DATABASE IF EXISTS "${tpl}"`);
          throw err;
        }
        await h.close();
      }
    } finally {
      await admin.end();
    }
    return;
  }
  const file = embeddedTemplateFile();
  if (existsSync(file)) return;
  mkdirSync(TEMPLATE_DIR, { recursive: true });
  const h = await createDb({ embeddedDir: 'memory://' });
  await migrate(h);
  const blob = await h.pglite!.dumpDataDir('none');
  writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  await h.close();
}
