import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createDb } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { adminUrl, embeddedTemplateFile, pgTemplateName, TEMPLATE_DIR } from './helpers/template.js';
import { endCapture, scanCapturedResponses, startCapture } from './helpers/leaks.js';
import { probeRedis } from './helpers/redis.js';
import type { TestProject } from 'vitest/node';

/**
 * Migrates one template database per run; every test file clones it. The teardown scans every
 * response the suite produced for internal fields and secrets (test/helpers/leaks.ts). It also looks
 * for the Redis of the Redis-store tests once (test/helpers/redis.ts).
 */
export default async function setup(project: TestProject) {
  startCapture();
  await prepareTemplate();
  project.provide('redisUrl', await probeRedis());
  return () => {
    const { scanned, leaks } = scanCapturedResponses();
    endCapture();
    if (leaks.length) {
      throw new Error(`${leaks.length} response(s) leaked internal fields or secrets:\n${leaks.slice(0, 20).join('\n')}`);
    }
    process.stderr.write(`leak scan: ${scanned} responses checked, none leaked internal fields or secrets\n`);
  };
}

async function prepareTemplate() {
  const url = process.env.DATABASE_URL;
  if (url) {
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    try {
      const tpl = pgTemplateName();
      // Sweep databases left by killed runs (names carry their creation time; other runs may be live).
      const stale = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'netsvc_t\\_%'`);
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      for (const r of stale.rows) {
        const born = Number(r.datname.split('_')[2]);
        if (Number.isFinite(born) && born < hourAgo)
          await admin.query(`DROP DATABASE IF EXISTS "${r.datname}" WITH (FORCE)`).catch(() => undefined);
      }
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [tpl]);
      if (exists.rowCount === 0) {
        // Another run may create it at the same moment: the loser waits for the winner's migration.
        const created = await admin.query(`CREATE DATABASE "${tpl}"`).then(
          () => true,
          () => false,
        );
        if (!created) return waitForTemplate(admin, tpl);
        const h = await createDb({ databaseUrl: adminUrl(url, tpl), poolSize: 2 });
        try {
          await migrate(h);
        } catch (err) {
          await h.close();
          await admin.query(`DROP DATABASE IF EXISTS "${tpl}"`);
          throw err;
        }
        await h.close();
        await admin.query(`COMMENT ON DATABASE "${tpl}" IS 'ready'`);
      } else {
        await waitForTemplate(admin, tpl);
      }
    } finally {
      await admin.end();
    }
    return;
  }
  const file = embeddedTemplateFile();
  if (existsSync(file)) return;
  // Written under a temporary name and renamed, so a concurrent run never reads half a file.
  mkdirSync(TEMPLATE_DIR, { recursive: true });
  const h = await createDb({ embeddedDir: 'memory://' });
  await migrate(h);
  const blob = await h.pglite!.dumpDataDir('none');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
  renameSync(tmp, file);
  await h.close();
}

async function waitForTemplate(admin: pg.Client, tpl: string) {
  for (let i = 0; i < 600; i++) {
    const r = await admin.query(`SELECT shobj_description(oid, 'pg_database') AS c FROM pg_database WHERE datname = $1`, [tpl]);
    if (r.rows[0]?.c === 'ready') return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`template database ${tpl} never became ready`);
}
