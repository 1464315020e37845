import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { createJobQueue } from '../../src/jobs/queue.js';
import { systemClock } from '../../src/lib/clock.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';

// Several processes need a database that admits several connections: real PostgreSQL only
// (the embedded database admits one process by design).
describe.skipIf(!usingPostgres())('two server processes on one database behave as one', () => {
  let testDb: TestDb;
  const servers: ServerProcess[] = [];
  const outboxes = [mkdtempSync(path.join(tmpdir(), 'outbox-a-')), mkdtempSync(path.join(tmpdir(), 'outbox-b-'))];

  beforeAll(async () => {
    testDb = await createTestDb();
    for (const dir of outboxes) {
      servers.push(await startServerProcess({
        DATABASE_URL: testDb.url!, MAIL_OUTBOX_DIR: dir, JOBS_ENABLED: 'true', JOBS_POLL_MS: '50',
        RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'postgres', LOG_LEVEL: 'warn',
      }));
    }
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) expect(await s.stop()).toBe(0);
    await testDb.drop();
  });

  it('claims every job exactly once across both workers', async () => {
    const enqueuer = createJobQueue({ db: testDb.handle.db, clock: systemClock, log: pino({ level: 'silent' }), config: { JOBS_POLL_MS: 1000, JOBS_CONCURRENCY: 1, JOBS_LEASE_SECONDS: 60 } });
    const N = 120;
    await testDb.handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < N; i++) {
        await enqueuer.enqueue(trx, { kind: 'mail.send', payload: { to: `p${i}@example.test`, subject: `job ${i}`, text: 'hello', tag: 'multiprocess' } });
      }
    });
    for (let i = 0; i < 200; i++) {
      const left = await testDb.handle.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '!=', 'succeeded').executeTakeFirstOrThrow();
      if (Number(left.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const jobs = await testDb.handle.db.selectFrom('jobs').select(['status', 'attempts']).execute();
    expect(jobs).toHaveLength(N);
    expect(jobs.every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true);
    const files = outboxes.map((d) => readdirSync(d).filter((f) => f.endsWith('.eml')).length);
    expect(files[0] + files[1]).toBe(N); // each mail written once, by one of the two processes
    expect(files[0]).toBeGreaterThan(0);
    expect(files[1]).toBeGreaterThan(0);
  });

  it('shares one rate-limit budget (postgres store)', async () => {
    const limit = RATE_LIMITS['auth.login'];
    const codes: number[] = [];
    for (let i = 0; i < limit + 1; i++) {
      const r = await fetch(`${servers[i % 2].url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk_mproctst_' + 'x'.repeat(40) },
        body: JSON.stringify({ email: 'nobody@example.test', password: 'irrelevant' }),
      });
      codes.push(r.status);
    }
    expect(codes.slice(0, limit).every((c) => c === 401)).toBe(true);
    expect(codes[limit]).toBe(429);
  });
});
