// Closing a database handle ends every session it opened, also one that only ran a script (a
// migration) and never a query through Kysely: the test templates are cloned right after they are
// migrated, and PostgreSQL refuses to copy a database anyone is connected to.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { usingPostgres } from '../helpers/db.js';
import { adminUrl } from '../helpers/template.js';

describe.skipIf(!usingPostgres())('closing a database handle (real Postgres)', () => {
  it('ends the session a script ran on, though no query went through Kysely', async () => {
    const url = process.env.DATABASE_URL!;
    const name = `netsvc_close_${randomAlnum(8).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: adminUrl(url) });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
      const h = await createDb({ databaseUrl: adminUrl(url, name), poolSize: 2 });
      const rows = await h.withScriptSession(4242, async (run, query) => {
        await run('CREATE TABLE t (x int)');
        return query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      });
      expect(rows).toEqual([{ n: 0 }]);
      await h.close();
      // A backend leaves a moment after its client says goodbye, so ask until it has gone (the bug
      // this guards against left it open for good).
      let open = 1;
      for (let i = 0; i < 50 && open > 0; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 100));
        const r = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        open = r.rows[0]!.n;
      }
      expect(open).toBe(0);
      // What the test templates need: a copy of it, at once.
      await admin.query(`CREATE DATABASE "${name}_copy" TEMPLATE "${name}"`);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}_copy" WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
