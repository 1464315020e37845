import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/types.js';
import { enqueuePortJob } from '../src/modules/subscriptions/index.js';
import { harnessContainer } from './harness-container.js';
import type { Dataset, Measured } from './scenarios.js';
import { otherProvider } from './webhook-drain.js';

/**
 * Issue "Ten times the data", section 4, for port jobs: `count` provisioning.port jobs (reason
 * `restore`: the port of an ACTIVE subscription applied again through the switch simulator) queued
 * for the bench provider in one transaction, and while the running server's workers drain them,
 * another provider's single port job every OTHER_EVERY_MS. `other_provider` gives how long each
 * single job took from its commit to its end (an upper bound of its wait to start: its own run is
 * a few milliseconds), p50 and max; rps is the burst's drain rate. Like the webhook scenario's, the
 * other provider's jobs name subscriptions of the bench provider the burst does not touch: the
 * queue orders by the job's provider, and this measures the queue.
 */
const OTHER_EVERY_MS = 200;
const OTHER_JOBS_MAX = 500;

export async function portFairness(ctx: { db: Kysely<DB> }, d: Dataset, count: number): Promise<Measured> {
  const app = await harnessContainer();
  const { deps, handle } = app;
  const otherId = await otherProvider(ctx.db);
  try {
    const subs = await ctx.db
      .selectFrom('subscriptions')
      .select('id')
      .where('provider_id', '=', d.provider_id)
      .where('status', '=', 'ACTIVE')
      .where('location_id', 'is not', null)
      .limit(count + OTHER_JOBS_MAX)
      .execute();
    const spare = subs.splice(count);
    const burst = await handle.db.transaction().execute(async (trx) => {
      const ids: string[] = [];
      for (const s of subs)
        ids.push((await enqueuePortJob(trx, deps.jobs, { subscriptionId: s.id, providerId: d.provider_id, reason: 'restore' })).id);
      return ids;
    });
    const committed = Date.now();
    const pending = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM jobs WHERE id = ANY(${burst}::uuid[]) AND status IN ('queued', 'running')`.execute(ctx.db)
        ).rows[0]!.n,
      );
    let draining = true;
    const others: string[] = [];
    const single = (async () => {
      for (let i = 0; draining && i < spare.length; i++) {
        const { id } = await enqueuePortJob(handle.db, deps.jobs, { subscriptionId: spare[i]!.id, providerId: otherId, reason: 'restore' });
        others.push(id);
        await new Promise((r) => setTimeout(r, OTHER_EVERY_MS));
      }
    })();
    let left = count;
    let lastChange = Date.now();
    while (left > 0) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await pending();
      if (now !== left) {
        left = now;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > 30_000) break; // stalled: report what finished
    }
    const drained = Date.now();
    draining = false;
    await single;
    // The last single jobs finish shortly after the burst.
    for (let waited = 0; waited < 10_000; waited += 100) {
      const open = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM jobs WHERE id = ANY(${others}::uuid[]) AND finished_at IS NULL`.execute(ctx.db);
      if (Number(open.rows[0]!.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const rows = await sql<{ ms: number | null; status: string }>`
      SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms, status FROM jobs WHERE id = ANY(${others}::uuid[])`.execute(ctx.db);
    const waits = rows.rows.flatMap((r) => (r.ms === null ? [] : [Number(r.ms)])).sort((a, b) => a - b);
    const burstRows = await sql<{ status: string; n: string; last: Date | null; p50: number | null; p99: number | null }>`
      SELECT status, count(*) AS n, max(finished_at) AS last,
        percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at) * 1000) AS p50,
        percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM finished_at) * 1000) AS p99
      FROM jobs WHERE id = ANY(${burst}::uuid[]) GROUP BY status`.execute(ctx.db);
    const done = burstRows.rows.find((r) => r.status === 'succeeded');
    const succeeded = Number(done?.n ?? 0);
    const seconds = Math.max(1, (done?.last ? done.last.getTime() : drained) - committed) / 1000;
    const otherWait = {
      events: others.length,
      p50_ms: Math.round(waits[Math.floor(waits.length / 2)] ?? 0),
      max_ms: Math.round(waits[waits.length - 1] ?? 0),
      lost: others.length - rows.rows.filter((r) => r.status === 'succeeded').length,
    };
    console.error(
      `port_job_fairness: ${count} port jobs queued in one transaction, ${succeeded} succeeded in ${seconds.toFixed(2)} s after the commit ` +
        `(${burstRows.rows.map((r) => `${r.status} ${r.n}`).join(', ')}); another provider's ${otherWait.events} single port jobs meanwhile ` +
        `took p50 ${otherWait.p50_ms} ms, max ${otherWait.max_ms} ms from commit to end (${otherWait.lost} not succeeded)`,
    );
    return {
      rps: Math.round(succeeded / seconds),
      p50_ms: Math.round((done?.p50 ?? committed) - committed),
      p99_ms: Math.round((done?.p99 ?? committed) - committed),
      errors: count - succeeded,
      requests: succeeded,
      other_provider: otherWait,
    };
  } finally {
    await app.close();
  }
}
