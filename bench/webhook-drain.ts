import pino from 'pino';
import type { Kysely } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { createDb } from '../src/db/database.js';
import type { DB } from '../src/db/types.js';
import { systemClock } from '../src/lib/clock.js';
import type { Dataset, Measured } from './scenarios.js';

/**
 * Emits `count` events through the real outbox code (in this process, jobs not started here), then
 * times the running server's workers draining them to the local receiver.
 */
export async function drainRate(ctx: { db: Kysely<DB>; receiverCount: () => number }, d: Dataset, count: number): Promise<Measured> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', JOBS_ENABLED: 'false' });
  const handle = await createDb({ databaseUrl: config.DATABASE_URL, poolSize: 4 });
  const deps = createContainer(config, handle, systemClock, pino({ level: 'silent' }));
  const subs = await ctx.db.selectFrom('subscriptions').select(['id', 'subscriber_id']).where('provider_id', '=', d.provider_id).limit(count).execute();
  const before = ctx.receiverCount();
  const started = Date.now();
  const latencies: number[] = [];
  // Emitted in batches of 500 per transaction, as a burst of real traffic would be.
  for (let i = 0; i < count; i += 500) {
    await handle.db.transaction().execute(async (trx) => {
      for (let k = i; k < Math.min(count, i + 500); k++) {
        const s = subs[k % subs.length];
        await deps.webhooks.emit(trx, { providerId: d.provider_id, type: 'subscription.plan_changed', subscriptionId: s.id, subscriberId: s.subscriber_id, data: { bench: true } });
      }
    });
  }
  const emitted = Date.now();
  let last = before;
  let lastChange = Date.now();
  while (ctx.receiverCount() - before < count) {
    await new Promise((r) => setTimeout(r, 50));
    const now = ctx.receiverCount();
    if (now !== last) {
      latencies.push(Date.now() - emitted);
      last = now;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 30_000) break; // stalled: report what arrived
  }
  const delivered = ctx.receiverCount() - before;
  const seconds = (Date.now() - started) / 1000;
  await handle.close();
  return {
    rps: Math.round(delivered / seconds),
    p50_ms: latencies[Math.floor(latencies.length / 2)] ?? 0,
    p99_ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    errors: count - delivered,
  };
}
