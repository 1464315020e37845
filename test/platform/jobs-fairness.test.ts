// Issue "Ten times the data", section 4: one provider's burst does not starve another provider.
// The claim (migrations/functions/jobs_claim_v2.sql) gives the oldest due job of every provider a slot
// before the rest of the backlog, the providers with the fewest jobs running first; within a
// provider the order stays (run_at, created_at).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue.js';
import type { JobQueue } from '../../src/jobs/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';
import { claimJobs } from '../helpers/jobs.js';

let t: TestApp;
let burst: string;
let quiet: string;
let third: string;
beforeAll(async () => {
  t = await buildTestApp();
  burst = (await createProvider(t.db)).id;
  quiet = (await createProvider(t.db)).id;
  third = (await createProvider(t.db)).id;
});
afterAll(() => t.close());

let seq = 0;
const newKind = () => `test.fair.${++seq}`;

/** Enqueues `n` jobs of `kind` for `providerId`, each a millisecond of business time after the one before. */
async function enqueue(kind: string, providerId: string, n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push((await t.deps.jobs.enqueue(t.db, { kind, providerId, payload: { i } })).id);
    t.clock.advance(1);
  }
  return ids;
}

const claim = (kinds: string[], limit: number) => claimJobs(t.db, { now: t.clock.now(), kinds, limit });

describe('fair claims between providers', () => {
  it("a provider's single job is claimed with the first claim after it, though another provider has 300 older ones", async () => {
    const kind = newKind();
    const older = await enqueue(kind, burst, 300);
    const [single] = await enqueue(kind, quiet, 1);
    const got = await claim([kind], 4);
    expect(got.map((j) => j.id)).toContain(single);
    // The burst's own jobs keep their order: its three oldest.
    expect(got.filter((j) => j.provider_id === burst).map((j) => j.id)).toEqual(older.slice(0, 3));
  });

  it('a claim of one slot goes to the provider with the fewest jobs running', async () => {
    const kind = newKind();
    await enqueue(kind, burst, 20);
    expect((await claim([kind], 3)).every((j) => j.provider_id === burst)).toBe(true); // three of the burst run now
    const [single] = await enqueue(kind, quiet, 1);
    expect((await claim([kind], 1)).map((j) => j.id)).toEqual([single]);
  });

  it('every provider with due jobs gets a slot in one claim; jobs not yet due and other kinds wait', async () => {
    const kind = newKind();
    const other = newKind();
    await enqueue(kind, burst, 50);
    await enqueue(other, third, 5); // another lane's kind: not claimed here
    const [q] = await enqueue(kind, quiet, 1);
    await t.deps.jobs.enqueue(t.db, { kind, providerId: third, runAt: new Date(t.clock.now().getTime() + 60_000) });
    const got = await claim([kind], 10);
    expect(got).toHaveLength(10);
    expect(got.map((j) => j.id)).toContain(q);
    expect(got.filter((j) => j.provider_id === third)).toEqual([]);
  });

  it('lapsed leases still come first', async () => {
    const kind = newKind();
    const [a] = await enqueue(kind, burst, 1);
    await claim([kind], 1);
    t.clock.advance(61_000); // the lease of 60 s lapsed: its worker died
    await enqueue(kind, quiet, 3);
    const got = await claim([kind], 2);
    expect(got[0]).toMatchObject({ id: a, prev_status: 'running' });
  });

  it('through the real worker: the quiet provider starts among the first jobs while the burst drains', async () => {
    const kind = newKind();
    const started: string[] = [];
    const queue: JobQueue = createJobQueue({
      db: t.db,
      clock: t.clock,
      log: t.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 2, JOBS_LEASE_SECONDS: 60 },
    });
    queue.register(kind, {
      async run(job) {
        started.push(job.provider_id!);
        return null;
      },
    });
    await enqueue(kind, burst, 100);
    await enqueue(kind, quiet, 1);
    queue.start();
    try {
      await expect.poll(() => started.length, { timeout: 60_000, interval: 20 }).toBe(101);
    } finally {
      await queue.stop();
    }
    // Two slots: the first claim takes the burst's oldest and the quiet provider's one job.
    expect(started.slice(0, 2).sort()).toEqual([burst, quiet].sort());
  });
});
