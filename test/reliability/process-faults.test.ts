// Crashes: a server process killed (SIGKILL) in the middle of a port-provisioning job and in the
// middle of a webhook delivery. A restarted process finishes both; the switch applies the port
// once; the webhook arrives with the same webhook-id. Real processes need real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createBuilding, createLocation, createPlanVersion, createProvider } from '../helpers/factories.js';

const LEASE = '5';

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!usingPostgres())('a server process killed mid-work', () => {
  let testDb: TestDb;
  let receiver: WebhookReceiver;
  let provider: Awaited<ReturnType<typeof createProvider>>;
  let planId: string;
  const running: ServerProcess[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const s = await startServerProcess({
      DATABASE_URL: testDb.url!,
      JOBS_ENABLED: 'true',
      JOBS_POLL_MS: '50',
      JOBS_LEASE_SECONDS: LEASE,
      LOG_LEVEL: 'warn',
      ...env,
    });
    running.push(s);
    return s;
  };

  beforeAll(async () => {
    testDb = await createTestDb();
    receiver = await startWebhookReceiver();
    provider = await createProvider(testDb.handle.db, { webhookUrl: receiver.url });
    receiver.trust(provider.signingSecret);
    planId = (await createPlanVersion(testDb.handle.db, provider.id)).id;
  });
  afterAll(async () => {
    for (const s of running) if (s.proc.exitCode === null) await s.kill();
    await receiver.close();
    await testDb.drop();
  });

  it('finishes a provisioning job whose process died in the switch call, applying the port once', async () => {
    const db = testDb.handle.db;
    const building = await createBuilding(db, provider.id, { lineType: 'first_line' });
    const loc = await createLocation(db, provider.id, building.id, building.units[0]!.id);
    // The switch answers after 2.5 s: long enough to kill the process inside the call.
    const first = await start({ SIMULATOR_FAULTS: 'switch=slow:2500' });
    const r = await fetch(`${first.url}/provisioning/provider-initiated`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': provider.apiKey },
      body: JSON.stringify({
        plan_version_id: planId,
        location_hash: loc.locationHash,
        subscriber: { email: 'crash@example.test', first_name: 'Crash', last_name: 'Test' },
      }),
    });
    expect(r.status).toBe(201);
    const { job_id: jobId, subscription_id: subscriptionId } = (await r.json()) as { job_id: string; subscription_id: string };
    await until(
      'the job to be claimed',
      async () => (await db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status === 'running',
    );
    await first.kill();

    await start();
    const job = await until('the job to succeed after the lease', async () => {
      const j = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
      return j?.status === 'succeeded' ? j : undefined;
    });
    expect(job.attempts).toBe(2);
    const port = await db.selectFrom('sim_switch_ports').selectAll().where('location_id', '=', loc.id).executeTakeFirstOrThrow();
    expect(port.mode).toBe('provisioned');
    expect(port.operations).toBe(1);
    const sub = await db.selectFrom('subscriptions').select('status').where('id', '=', subscriptionId).executeTakeFirstOrThrow();
    expect(sub.status).toBe('ACTIVE');
    // At least once: subscription.activated may arrive twice (sent by the first process, which died
    // before it recorded the answer), so the wait is for both kinds, not for a count.
    const typesOf = () => new Set(receiver.events.filter((e) => e.data.subscription_id === subscriptionId).map((e) => e.type));
    await until('both events', async () => typesOf().has('provisioning.completed') && typesOf().has('subscription.activated'));
    expect([...typesOf()].sort()).toEqual(['provisioning.completed', 'subscription.activated']);
  }, 90_000);

  it('delivers a webhook whose delivery was in flight when its process died, with the same webhook-id', async () => {
    const db = testDb.handle.db;
    for (const s of running) if (s.proc.exitCode === null) await s.kill();
    receiver.reset();
    await receiver.setMode('hang');
    const server = await start();
    const building = await createBuilding(db, provider.id, { lineType: 'second_line' });
    const r = await fetch(`${server.url}/provisioning/provider-initiated`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': provider.apiKey },
      body: JSON.stringify({
        plan_version_id: planId,
        unit_id: building.units[0]!.id,
        delivery_mode: 'home_drop',
        subscriber: { email: 'hang@example.test', first_name: 'Hang', last_name: 'Test' },
      }),
    });
    expect(r.status).toBe(201);
    const { subscription_id: subscriptionId } = (await r.json()) as { subscription_id: string };
    // Written with the subscription, in the request's transaction.
    const delivery = await db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(delivery.event_type).toBe('subscription.pending_install');
    // Late redeliveries of the previous test's events may reach the receiver too (at-least-once), so
    // the wait is for this delivery's own attempt.
    await until('the delivery to be in flight', async () => receiver.requests.some((q) => q.webhookId === delivery.id));
    await server.kill();
    await receiver.setMode('ok');
    await start();
    await until('the event to arrive', async () => receiver.events.some((e) => e.webhookId === delivery.id));
    // The attempt in flight at the crash and the one answered after carried the same id.
    expect(receiver.requests.filter((q) => q.webhookId === delivery.id && q.answered === 0)).toHaveLength(1);
    const final = await until('the outbox row to be delivered', async () => {
      const d = await db.selectFrom('webhook_deliveries').select('status').where('id', '=', delivery.id).executeTakeFirst();
      return d?.status === 'delivered' ? d : undefined;
    });
    expect(final.status).toBe('delivered');
  }, 90_000);
});
