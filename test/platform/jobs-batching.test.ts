import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createJobQueue } from '../../src/jobs/queue.js';
import type { JobQueue } from '../../src/jobs/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { claimJobs } from '../helpers/jobs.js';

// Throughput rules of the queue (issue 6): batched claims in a fixed order, lanes, no poll sleep
// while work waits, group-committed success records that stay fenced per job.

let t: TestApp;
const queues: JobQueue[] = [];

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  for (const q of queues) await q.stop();
  await t.close();
});

function makeQueue(o: { concurrency?: number; pollMs?: number } = {}) {
  const q = createJobQueue({
    db: t.db,
    clock: t.clock,
    log: t.app.log,
    config: { JOBS_POLL_MS: o.pollMs ?? 10, JOBS_CONCURRENCY: o.concurrency ?? 4, JOBS_LEASE_SECONDS: 60 },
  });
  queues.push(q);
  return q;
}

let kindSeq = 0;
const newKind = (name: string) => `test.batch.${name}.${++kindSeq}`;
const jobRow = (id: string) => t.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

async function waitUntil(cond: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const at = (msFromNow: number) => new Date(t.clock.now().getTime() + msFromNow);

describe('job queue: claim order and batches', () => {
  it('due jobs are claimed in run_at order, then created_at; a lapsed lease comes before every queued job', async () => {
    const q = makeQueue();
    const kind = newKind('order');
    const ran: string[] = [];
    q.register(kind, { run: async (job) => void ran.push(job.payload.name as string) });
    await q.enqueue(t.db, { kind, payload: { name: 'c' }, runAt: at(-1_000) });
    await q.enqueue(t.db, { kind, payload: { name: 'a' }, runAt: at(-3_000) });
    t.clock.advance(1);
    // Same run_at as 'a', created later.
    await q.enqueue(t.db, { kind, payload: { name: 'b' }, runAt: at(-3_001) });
    const lapsed = await q.enqueue(t.db, { kind, payload: { name: 'lapsed' }, runAt: at(0) });
    await t.db
      .updateTable('jobs')
      .set({ status: 'running', attempts: 1, locked_by: 'dead', locked_until: at(-1) })
      .where('id', '=', lapsed.id)
      .execute();

    expect(await q.drain()).toBe(4);
    expect(ran).toEqual(['lapsed', 'a', 'b', 'c']);
  });

  it('one claim takes up to the asked number of due jobs under one lock token, in order, and never a job of another kind', async () => {
    const q = makeQueue();
    const kind = newKind('claim');
    q.register(kind, { run: async () => undefined });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await q.enqueue(t.db, { kind, runAt: at(-10_000 + i) })).id);
    await q.enqueue(t.db, { kind: newKind('other'), runAt: at(-20_000) });
    const rows = await claimJobs(t.db, { now: t.clock.now(), kinds: [kind], limit: 3, token: 'tok-1' });
    expect(rows.map((x) => x.id).sort()).toEqual(ids.slice(0, 3).sort());
    expect(rows.every((x) => x.prev_status === 'queued' && x.attempts === 1)).toBe(true);
    for (const id of ids.slice(0, 3)) expect(await jobRow(id)).toMatchObject({ status: 'running', locked_by: 'tok-1', attempts: 1 });
    for (const id of ids.slice(3)) expect(await jobRow(id)).toMatchObject({ status: 'queued', locked_by: null, attempts: 0 });
    // Put them back for the other tests' drains.
    await t.db.updateTable('jobs').set({ status: 'succeeded', locked_by: null, locked_until: null }).where('kind', '=', kind).execute();
  });

  it('the claim and the wake-up keep their plan across calls: PL/pgSQL on a generic plan (a SQL function is planned on every call)', async () => {
    const r = await sql<{ proname: string; lang: string; config: string[] | null }>`
      SELECT p.proname, l.lanname AS lang, p.proconfig AS config FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
      WHERE p.proname IN ('jobs_claim_v2', 'jobs_run_now') ORDER BY p.proname`.execute(t.db);
    expect(r.rows.map((x) => [x.proname, x.lang])).toEqual([
      ['jobs_claim_v2', 'plpgsql'],
      ['jobs_run_now', 'plpgsql'],
    ]);
    for (const x of r.rows) expect(x.config).toContain('plan_cache_mode=force_generic_plan');
    // The claim's one plan is the index walk in claim order, whatever the statistics say.
    expect(r.rows[0]!.config).toEqual(expect.arrayContaining(['enable_sort=off', 'enable_bitmapscan=off', 'enable_seqscan=off']));
  });

  it('the queue tables are vacuumed once 1% plus 5,000 of their rows are dead, indexes always cleaned (the claim walks them)', async () => {
    const r = await sql<{ relname: string; options: string[] | null }>`
      SELECT relname, reloptions AS options FROM pg_class WHERE relname IN ('jobs', 'webhook_deliveries') AND relkind = 'r' ORDER BY relname`.execute(
      t.db,
    );
    expect(r.rows.map((x) => x.relname)).toEqual(['jobs', 'webhook_deliveries']);
    for (const x of r.rows) {
      expect(x.options?.slice().sort()).toEqual([
        'autovacuum_vacuum_scale_factor=0.01',
        'autovacuum_vacuum_threshold=5000',
        'vacuum_index_cleanup=on',
      ]);
    }
  });

  it('a backlog runs without the JOBS_POLL_MS sleep between jobs: 40 jobs with a 60 s poll finish at once', async () => {
    const q = makeQueue({ concurrency: 4, pollMs: 60_000 });
    const kind = newKind('backlog');
    let done = 0;
    q.register(kind, { run: async () => void done++ });
    for (let i = 0; i < 40; i++) await q.enqueue(t.db, { kind });
    q.start();
    await waitUntil(() => done === 40, 'all 40 jobs (the next poll is a minute away)', 8_000);
    await q.stop();
    const rows = await t.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', kind).execute();
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
  });
});

describe('job queue: lanes', () => {
  it('a kind with its own concurrency runs in its own slots: both lanes are full at the same time and neither goes beyond its size', async () => {
    const q = makeQueue({ concurrency: 2 });
    const sharedKind = newKind('shared');
    const laneKind = newKind('lane');
    const release = gate();
    const active = { shared: 0, lane: 0 };
    const peak = { shared: 0, lane: 0 };
    const body = (which: 'shared' | 'lane') => async () => {
      active[which]++;
      peak[which] = Math.max(peak[which], active[which]);
      await release.promise;
      active[which]--;
    };
    q.register(sharedKind, { run: body('shared') });
    q.register(laneKind, { run: body('lane'), concurrency: 3 });
    for (let i = 0; i < 5; i++) await q.enqueue(t.db, { kind: laneKind });
    for (let i = 0; i < 4; i++) await q.enqueue(t.db, { kind: sharedKind });
    q.start();
    await waitUntil(() => active.shared === 2 && active.lane === 3, 'two shared and three lane jobs running together');
    await new Promise((r) => setTimeout(r, 60)); // several polls later: still no more
    expect(active).toEqual({ shared: 2, lane: 3 });
    release.open();
    await waitUntil(
      async () =>
        (await t.db.selectFrom('jobs').select('id').where('kind', 'in', [sharedKind, laneKind]).where('status', '=', 'succeeded').execute())
          .length === 9,
      'all nine to succeed',
    );
    await q.stop();
    expect(peak).toEqual({ shared: 2, lane: 3 });
  });

  it('register refuses a concurrency that is not a positive integer', () => {
    const q = makeQueue();
    expect(() => q.register(newKind('bad'), { run: async () => undefined, concurrency: 0 })).toThrow(/positive integer/);
    expect(() => q.register(newKind('bad'), { run: async () => undefined, concurrency: 1.5 })).toThrow(/positive integer/);
  });
});

describe('job queue: group-committed success records', () => {
  it("successes recorded in one batch stay fenced per job: a job whose lease was taken over meanwhile keeps the new holder's state", async () => {
    const q = makeQueue({ concurrency: 2 });
    const kind = newKind('fence');
    const release = gate();
    let running = 0;
    q.register(kind, { run: async (job) => (running++, await release.promise, `done ${String(job.payload.n)}`) });
    const a = await q.enqueue(t.db, { kind, payload: { n: 'a' } });
    const b = await q.enqueue(t.db, { kind, payload: { n: 'b' } });
    q.start();
    await waitUntil(() => running === 2, 'both jobs running');
    // Another worker took over a's lapsed lease meanwhile.
    await t.db.updateTable('jobs').set({ locked_by: 'the-other-worker' }).where('id', '=', a.id).execute();
    release.open();
    await waitUntil(async () => (await jobRow(b.id)).status === 'succeeded', 'b recorded');
    await q.stop();
    expect(await jobRow(b.id)).toMatchObject({ status: 'succeeded', result: 'done b', locked_by: null });
    expect(await jobRow(a.id)).toMatchObject({ status: 'running', locked_by: 'the-other-worker', result: null });
  });

  it('stop() waits until the successes of finished handlers are recorded', async () => {
    const q = makeQueue({ concurrency: 4 });
    const kind = newKind('stop-record');
    q.register(kind, { run: async () => 'ok' });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await q.enqueue(t.db, { kind })).id);
    q.start();
    await waitUntil(
      async () =>
        (await t.db.selectFrom('jobs').select('id').where('kind', '=', kind).where('status', '!=', 'queued').execute()).length > 0,
      'a claim',
    );
    await q.stop();
    const rows = await t.db.selectFrom('jobs').select(['status']).where('id', 'in', ids).execute();
    // Nothing is left half-done: a claimed job is either recorded as succeeded or was never claimed.
    expect(rows.every((r) => r.status === 'succeeded' || r.status === 'queued')).toBe(true);
  });
});
