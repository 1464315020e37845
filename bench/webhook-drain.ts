import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/types.js';
import { harnessContainer } from './harness-container.js';
import type { Dataset, Measured } from './scenarios.js';

/**
 * Emits `count` events through the real outbox code (in this process, jobs not started here) as one
 * burst (one transaction: the whole burst lands in the outbox at the same instant), then times the
 * running server's workers draining them to a receiver of this scenario's own.
 *
 * - Only the webhook-ids emitted here count (deliveries left over from earlier scenarios or runs go
 *   to the same URL and are reported as `foreign`, never as ours).
 * - The clock starts when the burst committed, so the emit phase is not part of the drain time;
 *   the rate is distinct deliveries / (last first-arrival − commit).
 * - p50/p99 are per delivery, from the commit to its first arrival.
 * - errors = emitted events that never arrived + requests whose Standard Webhooks signature or
 *   timestamp did not verify. Repeats of a webhook-id (at-least-once) are reported, not errors.
 * - Fairness: while the burst drains, a second provider sends one event every OTHER_EVERY_MS, each
 *   in its own transaction; `other_provider` gives their wait from commit to arrival (p50, max) and
 *   how many never arrived. Without fair claims each waited behind the whole burst.
 */
/** An idle backend reports its counters to pg_stat_database within 10 s (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;
const OTHER_EVERY_MS = 200;
const OTHER_EVENTS_MAX = 2_000;
const OTHER_SLUG = 'bench-fairness-other';

/** A second provider of the bench database, created once; with `url`, its webhooks go to that receiver. */
export async function otherProvider(db: Kysely<DB>, url?: string, signingSecret?: string): Promise<string> {
  const found = await db.selectFrom('providers').select('id').where('slug', '=', OTHER_SLUG).executeTakeFirst();
  const id = found?.id ?? randomUUID();
  if (!found)
    await db
      .insertInto('providers')
      .values({ id, name: 'Bench fairness (another provider)', slug: OTHER_SLUG, support_email: 'other@bench.invalid' })
      .execute();
  if (url && signingSecret)
    await db.updateTable('providers').set({ webhook_url: url, webhook_signing_secret: signingSecret }).where('id', '=', id).execute();
  return id;
}

export async function drainRate(ctx: { db: Kysely<DB> }, d: Dataset, count: number): Promise<Measured> {
  const entered = Date.now();
  const app = await harnessContainer();
  const { deps, handle } = app;
  const provider = await ctx.db
    .selectFrom('providers')
    .select(['webhook_url', 'webhook_signing_secret'])
    .where('id', '=', d.provider_id)
    .executeTakeFirstOrThrow();
  if (!provider.webhook_signing_secret) throw new Error('the bench provider has no webhook signing secret');
  const key = Buffer.from(provider.webhook_signing_secret.replace(/^whsec_/, ''), 'base64');

  const ours = new Set<string>();
  /** The other provider's events: emitted at (commit time), and first arrival. */
  const otherSent = new Map<string, number>();
  const otherArrived = new Map<string, number>();
  const firstArrival = new Map<string, number>();
  let repeats = 0;
  let foreign = 0;
  let badSignature = 0;
  let lastArrival = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const id = String(req.headers['webhook-id'] ?? '');
      if (otherSent.has(id)) {
        if (!otherArrived.has(id)) otherArrived.set(id, at);
        res.writeHead(204).end();
        return;
      }
      if (!ours.has(id)) {
        foreign++;
        res.writeHead(204).end();
        return;
      }
      const ts = String(req.headers['webhook-timestamp'] ?? '');
      const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${ts}.`).update(Buffer.concat(chunks)).digest('base64')}`);
      const sigs = String(req.headers['webhook-signature'] ?? '')
        .split(' ')
        .map((s) => Buffer.from(s));
      const fresh = Math.abs(at / 1000 - Number(ts)) <= 300;
      if (!fresh || !sigs.some((s) => s.length === expected.length && timingSafeEqual(s, expected))) {
        badSignature++;
        res.writeHead(401).end();
        return;
      }
      if (firstArrival.has(id)) repeats++;
      else {
        firstArrival.set(id, at);
        lastArrival = at;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  await ctx.db.updateTable('providers').set({ webhook_url: url }).where('id', '=', d.provider_id).execute();
  const otherId = await otherProvider(ctx.db, url, provider.webhook_signing_secret);
  // Transactions of the whole database while it drains (the server's and nobody else's during the
  // scenario): with autocommit statements, about the statements the server sends per delivery.
  const xacts = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`.execute(
          ctx.db,
        )
      ).rows[0]!.n,
    );

  try {
    const subs = await ctx.db
      .selectFrom('subscriptions')
      .select(['id', 'subscriber_id'])
      .where('provider_id', '=', d.provider_id)
      .limit(count + OTHER_EVENTS_MAX)
      .execute();
    // The other provider's events go to subscriptions the burst does not touch: deliveries of one
    // subscription go out in order, and this measures the queue, not that rule.
    const spare = subs.splice(count);
    const emitStarted = Date.now();
    let xactsBefore = 0;
    let emitted = 0;
    await handle.db.transaction().execute(async (trx) => {
      for (let k = 0; k < count; k++) {
        const s = subs[k % subs.length]!;
        const { id } = await deps.webhooks.emit(trx, {
          providerId: d.provider_id,
          type: 'subscription.plan_changed',
          subscriptionId: s.id,
          subscriberId: s.subscriber_id,
          data: { bench: true },
        });
        ours.add(id);
      }
      emitted = Date.now();
      // Before the commit (nothing of the burst is visible yet): let the previous phase's counters
      // (the floors' SELECT 1 load) reach pg_stat_database, then take the baseline.
      await new Promise((r) => setTimeout(r, Math.max(0, entered + STATS_SETTLE_MS - Date.now())));
      xactsBefore = await xacts();
    });
    const committed = Date.now();

    // The other provider's single events, one at a time, while the burst drains.
    let draining = true;
    const others = (async () => {
      for (let i = 0; draining && i < spare.length; i++) {
        const s = spare[i]!;
        const { id } = await handle.db.transaction().execute((trx) =>
          deps.webhooks.emit(trx, {
            providerId: otherId,
            type: 'subscription.plan_changed',
            subscriptionId: s.id,
            subscriberId: s.subscriber_id,
            data: { bench: 'other provider' },
          }),
        );
        otherSent.set(id, Date.now());
        await new Promise((r) => setTimeout(r, OTHER_EVERY_MS));
      }
    })();

    let seen = 0;
    let lastChange = Date.now();
    while (firstArrival.size < count) {
      await new Promise((r) => setTimeout(r, 20));
      if (firstArrival.size !== seen) {
        seen = firstArrival.size;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > 30_000) break; // stalled: report what arrived
    }
    draining = false;
    await others;
    for (let waited = 0; otherArrived.size < otherSent.size && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    const otherWaits = [...otherSent]
      .flatMap(([id, sent]) => (otherArrived.has(id) ? [otherArrived.get(id)! - sent] : []))
      .sort((a, b) => a - b);
    const otherProviderWait = {
      events: otherSent.size,
      p50_ms: otherWaits[Math.floor(otherWaits.length / 2)] ?? 0,
      max_ms: otherWaits[otherWaits.length - 1] ?? 0,
      lost: otherSent.size - otherWaits.length,
    };
    const delivered = firstArrival.size;
    const seconds = Math.max(1, (delivered ? lastArrival : Date.now()) - committed) / 1000;
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
    const xactsPerDelivery = delivered ? (await xacts()) - xactsBefore : 0;
    const latencies = [...firstArrival.values()].map((t) => t - committed).sort((a, b) => a - b);
    console.error(
      `webhook_delivery: emitted ${count} in one transaction in ${((emitted - emitStarted) / 1000).toFixed(1)} s; ` +
        `${delivered} arrived in ${seconds.toFixed(2)} s after the commit; repeats ${repeats}, bad signatures ${badSignature}, ` +
        `foreign (earlier scenarios) ${foreign}; another provider's ${otherProviderWait.events} single events meanwhile waited p50 ${otherProviderWait.p50_ms} ms, ` +
        `max ${otherProviderWait.max_ms} ms (${otherProviderWait.lost} never arrived); database transactions per delivery ${delivered ? (xactsPerDelivery / delivered).toFixed(2) : '-'} (pg_stat_database, the whole database)`,
    );
    return {
      rps: Math.round(delivered / seconds),
      p50_ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99_ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      errors: count - delivered + badSignature,
      requests: delivered,
      other_provider: otherProviderWait,
    };
  } finally {
    // Put back what was there, null included (the run's own receiver while `npm run bench` runs).
    await ctx.db.updateTable('providers').set({ webhook_url: provider.webhook_url }).where('id', '=', d.provider_id).execute();
    const closed = new Promise<void>((r) => receiver.close(() => r()));
    receiver.closeAllConnections();
    await closed;
    await app.close();
  }
}
