import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScheduler } from '../../src/jobs/scheduler.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ now: '2026-11-16T10:00:00.000Z' });
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const jobsOf = (kind: string) => t.db.selectFrom('jobs').selectAll().where('kind', '=', kind).orderBy('run_at').execute();
const newScheduler = () => createScheduler({ db: t.db, jobs: t.deps.jobs, clock: t.clock, log: t.app.log });

describe('scheduler', () => {
  it('a tick enqueues each recurring kind once per slot with dedupe key <kind>:<slot>, however often and from however many processes', async () => {
    const kind = 'test.sweep.a';
    const processA = newScheduler();
    const processB = newScheduler();
    processA.every(kind, HOUR, { scope: 'all' });
    processB.every(kind, HOUR, { scope: 'all' });

    const slot = Math.floor(t.clock.now().getTime() / HOUR);
    const [first] = await processA.tick();
    await processB.tick();
    await processA.tick();
    t.clock.advance(59 * 60_000); // same slot
    const [again] = await processB.tick();
    expect(again).toEqual(first);
    expect(first).toMatchObject({ kind, slot });

    let rows = await jobsOf(kind);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      dedupe_key: `${kind}:${slot}`,
      status: 'queued',
      payload: { scope: 'all', scheduled_at: '2026-11-16T10:00:00.000Z' },
    });

    t.clock.advance(60_000); // 11:00, the next slot
    await Promise.all([processA.tick(), processB.tick()]);
    rows = await jobsOf(kind);
    expect(rows.map((r) => r.dedupe_key)).toEqual([`${kind}:${slot}`, `${kind}:${slot + 1}`]);
    expect(rows[1]!.payload).toEqual({ scope: 'all', scheduled_at: '2026-11-16T11:00:00.000Z' });
  });

  it('the enqueued job runs through the ordinary handler; a slot that already ran is not enqueued again', async () => {
    const kind = 'test.daily.b';
    const ran: unknown[] = [];
    t.deps.jobs.register(kind, { run: async (job) => void ran.push(job.payload) });
    const s = newScheduler();
    s.every(kind, DAY);
    t.clock.set('2026-11-17T00:30:00.000Z');
    await s.tick();
    expect(await t.deps.jobs.drain()).toBe(1);
    await s.tick();
    expect(await t.deps.jobs.drain()).toBe(0);
    t.clock.set('2026-11-18T00:00:00.000Z');
    await s.tick();
    expect(await t.deps.jobs.drain()).toBe(1);
    expect(ran).toEqual([{ scheduled_at: '2026-11-17T00:00:00.000Z' }, { scheduled_at: '2026-11-18T00:00:00.000Z' }]);
  });

  it('offsetMs shifts the slot boundaries (a daily run from 02:00 UTC)', async () => {
    const kind = 'test.daily.offset';
    const s = newScheduler();
    s.every(kind, DAY, {}, { offsetMs: 2 * HOUR });
    t.clock.set('2026-11-20T01:59:00.000Z');
    await s.tick();
    t.clock.set('2026-11-20T02:00:00.000Z');
    await s.tick();
    t.clock.set('2026-11-20T23:00:00.000Z');
    await s.tick();
    const rows = await jobsOf(kind);
    expect(rows.map((r) => (r.payload as { scheduled_at: string }).scheduled_at)).toEqual([
      '2026-11-19T02:00:00.000Z',
      '2026-11-20T02:00:00.000Z',
    ]);
  });

  it('rejects an interval under a second and an offset outside the interval', () => {
    const s = newScheduler();
    expect(() => s.every('test.x', 999)).toThrow(/intervalMs/);
    expect(() => s.every('test.x', HOUR, {}, { offsetMs: HOUR })).toThrow(/offsetMs/);
    expect(() => s.every('', HOUR)).toThrow(/kind/);
  });

  it('is in Deps, off in tests (SCHEDULER_ENABLED=false): every() alone enqueues nothing until a tick', async () => {
    expect(t.config.SCHEDULER_ENABLED).toBe(false);
    const kind = 'test.deps.c';
    t.deps.scheduler.every(kind, HOUR);
    await new Promise((r) => setTimeout(r, 50));
    expect(await jobsOf(kind)).toHaveLength(0);
    await t.deps.scheduler.tick();
    expect(await jobsOf(kind)).toHaveLength(1);
  });

  it('with SCHEDULER_ENABLED the app starts it on ready: a kind registered later is enqueued without a manual tick, and stops on close', async () => {
    const t2 = await buildTestApp({ env: { SCHEDULER_ENABLED: 'true' } });
    try {
      const kind = 'test.started.d';
      t2.deps.scheduler.every(kind, HOUR);
      const until = Date.now() + 5000;
      let rows: unknown[] = [];
      while (Date.now() < until) {
        rows = await t2.db.selectFrom('jobs').select('id').where('kind', '=', kind).execute();
        if (rows.length) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(rows).toHaveLength(1);
    } finally {
      await t2.close();
    }
  });
});
