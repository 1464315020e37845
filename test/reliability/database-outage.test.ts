// The database drops every connection under load (as in a restart): requests fail cleanly with 503
// (never a 500, never a hang) and the server recovers by itself, without a restart.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { adminUrl } from '../helpers/template.js';
import { createBuilding, createProvider } from '../helpers/factories.js';

describe.skipIf(!usingPostgres())('database connections dropped under load', () => {
  let t: TestApp;
  let apiKey: string;
  let buildingId: string;
  beforeAll(async () => {
    t = await buildTestApp();
    const p = await createProvider(t.db);
    apiKey = p.apiKey;
    buildingId = (await createBuilding(t.db, p.id)).id;
  });
  afterAll(() => t.close());

  const read = () =>
    t.app.inject({ method: 'GET', url: `/serviceability/units?building_id=${buildingId}`, headers: { 'x-api-key': apiKey } });

  it('answers 503 while connections are being killed and 200 again afterwards', async () => {
    expect((await read()).statusCode).toBe(200);
    const dbName = new URL(t.testDb.url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: adminUrl(process.env.DATABASE_URL!) });
    await admin.connect();
    const statuses: number[] = [];
    let stop = false;
    const load = (async () => {
      while (!stop) {
        const batch = await Promise.all(Array.from({ length: 8 }, read));
        statuses.push(...batch.map((r) => r.statusCode));
        for (const r of batch) if (r.statusCode !== 200) expect(r.json()).toHaveProperty('detail');
      }
    })();
    for (let i = 0; i < 5; i++) {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
      await new Promise((r) => setTimeout(r, 60));
    }
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await load;
    await admin.end();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    // five rounds of killed connections under eight parallel requests always catch some in flight
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    // recovered without a restart: every request after the outage succeeds
    const after = await Promise.all(Array.from({ length: 10 }, read));
    expect(after.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
  }, 60_000);
});
