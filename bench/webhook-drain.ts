import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pino from 'pino';
import { sql, type Kysely } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { createDb } from '../src/db/database.js';
import type { DB } from '../src/db/types.js';
import { systemClock } from '../src/lib/clock.js';
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
 */
/** An idle backend reports its counters to pg_stat_database within 10 s (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;

export async function drainRate(ctx: { db: Kysely<DB> }, d: Dataset, count: number): Promise<Measured> {
  const entered = Date.now();
  // This container only queues events and signs no token, but a DATABASE_URL config wants a JWT key.
  const config = loadConfig({
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ...process.env,
    LOG_LEVEL: 'silent',
    JOBS_ENABLED: 'false',
  });
  const handle = await createDb({ databaseUrl: config.DATABASE_URL, poolSize: 4 });
  const { deps } = createContainer(config, handle, systemClock, pino({ level: 'silent' }));
  const provider = await ctx.db
    .selectFrom('providers')
    .select(['webhook_url', 'webhook_signing_secret'])
    .where('id', '=', d.provider_id)
    .executeTakeFirstOrThrow();
  if (!provider.webhook_signing_secret) throw new Error('the bench provider has no webhook signing secret');
  const key = Buffer.from(provider.webhook_signing_secret.replace(/^whsec_/, ''), 'base64');

  const ours = new Set<string>();
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
  // Transactions of the whole database while it drains (the server's and nobody else's during the
  // scenario): with autocommit statements, about the statements the server sends per delivery.
  const xacts = async () =>
    Number(
      (
        await sql<{ n: string }>`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`.execute(
          ctx.db,
        )
      ).rows[0].n,
    );

  try {
    const subs = await ctx.db
      .selectFrom('subscriptions')
      .select(['id', 'subscriber_id'])
      .where('provider_id', '=', d.provider_id)
      .limit(count)
      .execute();
    const emitStarted = Date.now();
    let xactsBefore = 0;
    let emitted = 0;
    await handle.db.transaction().execute(async (trx) => {
      for (let k = 0; k < count; k++) {
        const s = subs[k % subs.length];
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

    let seen = 0;
    let lastChange = Date.now();
    while (firstArrival.size < count) {
      await new Promise((r) => setTimeout(r, 20));
      if (firstArrival.size !== seen) {
        seen = firstArrival.size;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > 30_000) break; // stalled: report what arrived
    }
    const delivered = firstArrival.size;
    const seconds = Math.max(1, (delivered ? lastArrival : Date.now()) - committed) / 1000;
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
    const xactsPerDelivery = delivered ? (await xacts()) - xactsBefore : 0;
    const latencies = [...firstArrival.values()].map((t) => t - committed).sort((a, b) => a - b);
    console.error(
      `webhook_delivery: emitted ${count} in one transaction in ${((emitted - emitStarted) / 1000).toFixed(1)} s; ` +
        `${delivered} arrived in ${seconds.toFixed(2)} s after the commit; repeats ${repeats}, bad signatures ${badSignature}, ` +
        `foreign (earlier scenarios) ${foreign}; database transactions per delivery ${delivered ? (xactsPerDelivery / delivered).toFixed(2) : '-'} (pg_stat_database, the whole database)`,
    );
    return {
      rps: Math.round(delivered / seconds),
      p50_ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99_ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      errors: count - delivered + badSignature,
    };
  } finally {
    // Put back what was there, null included (the run's own receiver while `npm run bench` runs).
    await ctx.db.updateTable('providers').set({ webhook_url: provider.webhook_url }).where('id', '=', d.provider_id).execute();
    const closed = new Promise<void>((r) => receiver.close(() => r()));
    receiver.closeAllConnections();
    await closed;
    await handle.close();
  }
}
