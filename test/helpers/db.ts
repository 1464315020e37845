import pg from 'pg';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { leaseEmbedded } from './embedded-pool.js';
import { adminUrl, pgTemplateName } from './template.js';

export const usingPostgres = (): boolean => Boolean(process.env.DATABASE_URL);

export interface TestDb {
  handle: DbHandle;
  /** The connection string (real Postgres only), e.g. for a second server process. */
  url?: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database of its own: a clone of the run's template. */
export async function createTestDb(): Promise<TestDb> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `netsvc_t_${Math.floor(Date.now() / 1000)}_${randomAlnum(8)}`;
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${pgTemplateName()}"`);
          break;
        } catch (err) {
          // Two clones of one template at the same instant: retry shortly.
          if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
        }
      }
    } finally {
      await admin.end();
    }
    const dbUrl = adminUrl(url, name);
    const handle = await createDb({ databaseUrl: dbUrl, poolSize: 10 });
    return {
      handle,
      url: dbUrl,
      async drop() {
        await handle.close().catch(() => undefined);
        const a = new pg.Client({ connectionString: adminUrl(url) });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
        await a.end();
      },
    };
  }
  const { pglite, release } = await leaseEmbedded();
  const handle = await createDb({ pglite });
  return {
    handle,
    async drop() {
      await handle.close().catch(() => undefined);
      await release();
    },
  };
}
