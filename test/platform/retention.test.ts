import { sql, type KyselyPlugin, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { newId } from '../../src/lib/ids.js';
import { RETENTION_JOB_KIND } from '../../src/modules/maintenance/retention.jobs.js';
import { deleteFinishedJobs } from '../../src/modules/maintenance/retention.repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';

const NOW = '2026-11-16T10:00:00.000Z';
const DAY = 86_400_000;
/** RETENTION_DAYS defaults to 30. */
const CUTOFF = new Date(new Date(NOW).getTime() - 30 * DAY);
/** Ended a millisecond before the cutoff: deleted. */
const PAST = new Date(CUTOFF.getTime() - 1);
/** Ended exactly RETENTION_DAYS ago: kept (the rule is "before the cutoff"). */
const AT_CUTOFF = CUTOFF;
const LONG_AGO = new Date(CUTOFF.getTime() - 60 * DAY);
const FUTURE = new Date(new Date(NOW).getTime() + 365 * DAY);

/** The tables retention deletes from, with the primary key each is ordered by. */
const TABLES = {
  jobs: ['id'],
  webhook_deliveries: ['id'],
  webhook_attempts: ['id'],
  idempotency_records: ['scope', 'key'],
  verification_codes: ['id'],
  verified_sessions: ['id'],
  link_tokens: ['id'],
  rollback_links: ['id'],
  rate_limit_buckets: ['bucket'],
  credential_failures: ['id'],
} as const;
type Table = keyof typeof TABLES;
type Row = Record<string, unknown>;

const keyOf = (table: Table, row: Row) => TABLES[table].map((k) => String(row[k])).join('|');

async function snapshot(t: TestApp) {
  const out = {} as Record<Table, Row[]>;
  for (const table of Object.keys(TABLES) as Table[]) {
    const order = sql.join(TABLES[table].map((k) => sql.ref(k)));
    out[table] = (await sql<Row>`SELECT * FROM ${sql.table(table)} ORDER BY ${order}`.execute(t.db)).rows;
  }
  return out;
}

/** Enqueues a run by hand and runs it through the queue; returns its result. */
async function runRetention(t: TestApp) {
  const { id } = await t.deps.jobs.enqueue(t.db, { kind: RETENTION_JOB_KIND });
  expect(await t.deps.jobs.drain()).toBe(1);
  const job = await t.db.selectFrom('jobs').select(['status', 'result', 'last_error']).where('id', '=', id).executeTakeFirstOrThrow();
  expect(job).toMatchObject({ status: 'succeeded', last_error: null });
  return { id, result: job.result as { cutoff?: string; deleted?: Record<Table, number>; skipped?: string } };
}

interface JobSpec {
  kind?: string;
  status?: 'queued' | 'running' | 'succeeded' | 'failed';
  finishedAt?: Date | null;
  createdAt?: Date;
  dedupeKey?: string | null;
  subscriptionId?: string | null;
}

async function insertJob(t: TestApp, o: JobSpec = {}) {
  const id = newId();
  const status = o.status ?? 'succeeded';
  const createdAt = o.createdAt ?? LONG_AGO;
  const finished = status === 'succeeded' || status === 'failed';
  await t.db
    .insertInto('jobs')
    .values({
      id,
      kind: o.kind ?? 'test.retention',
      status,
      attempts: status === 'queued' ? 0 : 1,
      // Queued and running test jobs are never due nor reclaimable: the drain runs only the retention job.
      run_at: status === 'queued' ? FUTURE : createdAt,
      locked_by: status === 'running' ? 'some-worker' : null,
      locked_until: status === 'running' ? FUTURE : null,
      dedupe_key: o.dedupeKey ?? null,
      subscription_id: o.subscriptionId ?? null,
      created_at: createdAt,
      updated_at: createdAt,
      finished_at: o.finishedAt === undefined ? (finished ? PAST : null) : o.finishedAt,
    })
    .execute();
  return id;
}

async function insertDelivery(
  t: TestApp,
  providerId: string,
  o: {
    status?: 'pending' | 'delivered' | 'failed';
    createdAt?: Date;
    attempts?: number;
    job?: JobSpec['status'] | null;
    blockedBy?: string;
  },
) {
  const id = `msg_test_${newId().replace(/-/g, '')}`;
  const status = o.status ?? 'delivered';
  const createdAt = o.createdAt ?? PAST;
  const attempts = o.attempts ?? 1;
  await t.db
    .insertInto('webhook_deliveries')
    .values({
      id,
      provider_id: providerId,
      event_type: 'subscription.activated',
      payload: JSON.stringify({ id }),
      status,
      attempts,
      created_at: createdAt,
      delivered_at: status === 'delivered' ? createdAt : null,
      blocked_by: o.blockedBy ?? null,
    })
    .execute();
  for (let n = 1; n <= attempts; n++) {
    await t.db
      .insertInto('webhook_attempts')
      .values({
        id: newId(),
        delivery_id: id,
        attempt: n,
        url: 'https://hooks.test/x',
        status_code: n === attempts && status === 'delivered' ? 200 : 500,
        error: null,
        duration_ms: 12,
        created_at: createdAt,
      })
      .execute();
  }
  let jobId: string | undefined;
  if (o.job !== null) {
    const jobStatus = o.job ?? (status === 'failed' ? 'failed' : 'succeeded');
    jobId = await insertJob(t, {
      kind: 'webhook.deliver',
      status: jobStatus,
      dedupeKey: `webhook.deliver:${id}`,
      createdAt,
      finishedAt: jobStatus === 'succeeded' || jobStatus === 'failed' ? createdAt : null,
    });
  }
  return { id, jobId };
}

describe('maintenance.retention: what it deletes and what it keeps', () => {
  let t: TestApp;
  const gone: Record<Table, string[]> = Object.fromEntries(Object.keys(TABLES).map((k) => [k, []])) as unknown as Record<Table, string[]>;
  let before: Record<Table, Row[]>;

  beforeAll(async () => {
    t = await buildTestApp({ now: NOW });
    const provider = await createProvider(t.db);
    const plan = await createPlanVersion(t.db, provider.id);
    const subscriber = await createSubscriber(t.db, provider.id);
    const sub = () => createSubscription(t.db, { providerId: provider.id, subscriberId: subscriber.id, planVersionId: plan.id });
    const [subA, subB, subC] = [await sub(), await sub(), await sub()];

    // Rule 1: jobs.
    gone.jobs.push(await insertJob(t, { status: 'succeeded', finishedAt: PAST }));
    gone.jobs.push(await insertJob(t, { status: 'failed', finishedAt: PAST }));
    await insertJob(t, { status: 'succeeded', finishedAt: AT_CUTOFF });
    await insertJob(t, { status: 'succeeded', finishedAt: LONG_AGO, dedupeKey: 'billing.collect:00000000-0000-4000-8000-000000000001' });
    await insertJob(t, { status: 'failed', finishedAt: LONG_AGO, dedupeKey: 'booking-invite:00000000-0000-4000-8000-000000000002' });
    await insertJob(t, { status: 'queued', finishedAt: null });
    await insertJob(t, { status: 'running', finishedAt: null });
    // Subscription A: the older provisioning job goes, the newest (even failed, even long finished) stays.
    gone.jobs.push(
      await insertJob(t, {
        kind: 'provisioning.port',
        subscriptionId: subA.id,
        createdAt: new Date(LONG_AGO.getTime() - DAY),
        finishedAt: LONG_AGO,
      }),
    );
    await insertJob(t, { kind: 'provisioning.port', status: 'failed', subscriptionId: subA.id, createdAt: LONG_AGO, finishedAt: LONG_AGO });
    // Subscription B: its only provisioning job is its newest.
    await insertJob(t, { kind: 'provisioning.port', subscriptionId: subB.id, finishedAt: LONG_AGO });
    // Subscription C: two newest at the same instant (the readers break the tie differently): both stay.
    await insertJob(t, { kind: 'provisioning.port', subscriptionId: subC.id, createdAt: LONG_AGO, finishedAt: LONG_AGO });
    await insertJob(t, { kind: 'provisioning.port', subscriptionId: subC.id, createdAt: LONG_AGO, finishedAt: LONG_AGO });
    // A finished job of another kind tied to a subscription is not protected.
    gone.jobs.push(await insertJob(t, { kind: 'mail.send', subscriptionId: subB.id, finishedAt: PAST }));

    // Rule 2: webhook deliveries with their attempts and delivery jobs.
    const deleteDelivery = async (d: { id: string; jobId?: string }) => {
      gone.webhook_deliveries.push(d.id);
      if (d.jobId) gone.jobs.push(d.jobId);
      const attempts = await t.db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', d.id).execute();
      gone.webhook_attempts.push(...attempts.map((a) => a.id));
    };
    await deleteDelivery(await insertDelivery(t, provider.id, { status: 'delivered', attempts: 2 }));
    await deleteDelivery(await insertDelivery(t, provider.id, { status: 'failed', attempts: 3 }));
    await deleteDelivery(await insertDelivery(t, provider.id, { status: 'delivered', createdAt: LONG_AGO, job: null }));
    await insertDelivery(t, provider.id, { status: 'delivered', createdAt: AT_CUTOFF });
    await insertDelivery(t, provider.id, { status: 'pending', createdAt: LONG_AGO, job: 'queued' });
    const blocker = await insertDelivery(t, provider.id, { status: 'delivered', createdAt: LONG_AGO, attempts: 1 });
    await insertDelivery(t, provider.id, { status: 'pending', createdAt: LONG_AGO, attempts: 0, job: 'queued', blockedBy: blocker.id });
    await insertDelivery(t, provider.id, { status: 'failed', createdAt: LONG_AGO, job: 'queued' });
    await insertDelivery(t, provider.id, { status: 'delivered', createdAt: LONG_AGO, job: 'running' });

    // Rule 3: expiring records (expires_at: before the cutoff, at it, still live).
    const hash = (n: number) => Buffer.from(`hash-${n}-${newId()}`);
    let n = 0;
    for (const [expiresAt, deleted] of [
      [PAST, true],
      [AT_CUTOFF, false],
      [FUTURE, false],
    ] as const) {
      n++;
      const key = `key-${n}`;
      await t.db
        .insertInto('idempotency_records')
        .values({
          scope: 'sk_test',
          key,
          request_hash: hash(n),
          status: 'done',
          response_status: 201,
          response_body: '{}',
          created_at: LONG_AGO,
          expires_at: expiresAt,
        })
        .execute();
      const code = newId();
      await t.db
        .insertInto('verification_codes')
        .values({
          id: code,
          provider_id: provider.id,
          subscriber_id: subscriber.id,
          channel: 'email',
          code_hash: hash(n),
          expires_at: expiresAt,
          created_at: LONG_AGO,
        })
        .execute();
      const session = newId();
      await t.db
        .insertInto('verified_sessions')
        .values({
          id: session,
          provider_id: provider.id,
          subscriber_id: subscriber.id,
          token_hash: hash(n),
          expires_at: expiresAt,
          created_at: LONG_AGO,
        })
        .execute();
      const token = newId();
      await t.db
        .insertInto('link_tokens')
        .values({
          id: token,
          purpose: 'password_reset',
          token_hash: hash(n),
          subscriber_id: subscriber.id,
          expires_at: expiresAt,
          used_at: n === 1 ? LONG_AGO : null,
          created_at: LONG_AGO,
        })
        .execute();
      const rollback = newId();
      await t.db
        .insertInto('rollback_links')
        .values({
          id: rollback,
          token_hash: hash(n),
          provider_id: provider.id,
          subscriber_id: subscriber.id,
          kind: 'contact',
          contact_type: 'contract',
          restore: JSON.stringify({ first_name: 'Before' }),
          expected: JSON.stringify({ first_name: 'After' }),
          expires_at: expiresAt,
          used_at: n === 1 ? LONG_AGO : null,
          created_at: LONG_AGO,
        })
        .execute();
      if (deleted) {
        gone.idempotency_records.push(`sk_test|${key}`);
        gone.verification_codes.push(code);
        gone.verified_sessions.push(session);
        gone.link_tokens.push(token);
        gone.rollback_links.push(rollback);
      }
    }

    // Rule 4: rate-limit windows by database time (the store stamps them with clock_timestamp()).
    await sql`INSERT INTO rate_limit_buckets (bucket, hits, window_ends_at) VALUES
      ('ended-61-min-ago', 9, now() - interval '61 minutes'),
      ('ended-59-min-ago', 9, now() - interval '59 minutes'),
      ('running', 3, now() + interval '1 minute')`.execute(t.db);
    gone.rate_limit_buckets.push('ended-61-min-ago');
    // Rule 5: credential failures an hour after they happened, by the injected clock.
    const failures = { old: newId(), recent: newId() };
    await t.db
      .insertInto('credential_failures')
      .values([
        { id: failures.old, subject: 'user:x', failed_at: new Date(new Date(NOW).getTime() - 61 * 60_000) },
        { id: failures.recent, subject: 'user:x', failed_at: new Date(new Date(NOW).getTime() - 59 * 60_000) },
      ])
      .execute();
    gone.credential_failures.push(failures.old);

    before = await snapshot(t);
  });
  afterAll(() => t.close());

  it('deletes exactly the rows past the cutoff and leaves every other row as it was', async () => {
    const info = vi.spyOn(t.deps.log, 'info');
    const { id: runId, result } = await runRetention(t);
    const expected = Object.fromEntries(Object.entries(gone).map(([k, v]) => [k, v.length]));
    expect(expected).toEqual({
      jobs: 6,
      webhook_deliveries: 3,
      webhook_attempts: 6,
      idempotency_records: 1,
      verification_codes: 1,
      verified_sessions: 1,
      link_tokens: 1,
      rollback_links: 1,
      rate_limit_buckets: 1,
      credential_failures: 1,
    });
    expect(result).toEqual({ cutoff: CUTOFF.toISOString(), deleted: expected });
    expect(info).toHaveBeenCalledWith(
      { retention_days: 30, cutoff: CUTOFF.toISOString(), deleted: expected },
      'retention: old rows deleted',
    );
    info.mockRestore();

    const after = await snapshot(t);
    after.jobs = after.jobs.filter((r) => r.id !== runId);
    for (const table of Object.keys(TABLES) as Table[]) {
      const deleted = new Set(gone[table]);
      expect(after[table], table).toEqual(before[table].filter((r) => !deleted.has(keyOf(table, r))));
    }
    // No attempt outlives its delivery.
    const orphans = await sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts a
      WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)`.execute(t.db);
    expect(orphans.rows[0]!.n).toBe(0);
    // The embedded database has no autovacuum: the daily run refreshes its planner statistics (Postgres keeps its own).
    const stats = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM pg_stats WHERE schemaname = 'public' AND tablename = 'subscribers'`.execute(t.db);
    if (!usingPostgres()) expect(stats.rows[0]!.n).toBeGreaterThan(0);
  });

  it('a second run finds nothing more to delete (the kept rows stay kept)', async () => {
    const { result } = await runRetention(t);
    expect(result.deleted).toEqual({
      jobs: 0,
      webhook_deliveries: 0,
      webhook_attempts: 0,
      idempotency_records: 0,
      verification_codes: 0,
      verified_sessions: 0,
      link_tokens: 0,
      rollback_links: 0,
      rate_limit_buckets: 0,
      credential_failures: 0,
    });
  });

  it('a row kept for a reason goes in a later run once the reason is gone (the blocker once its follower settled, a delivery once its job finished); the newest provisioning jobs of each subscription stay', async () => {
    // The pending deliveries settle (settling clears blocked_by), their jobs finish, and the clock moves on.
    await t.db.updateTable('webhook_deliveries').set({ status: 'delivered', blocked_by: null }).where('status', '=', 'pending').execute();
    await t.db
      .updateTable('jobs')
      .set({ status: 'succeeded', finished_at: LONG_AGO })
      .where('kind', '=', 'webhook.deliver')
      .where('status', 'in', ['queued', 'running'])
      .execute();
    t.clock.set(new Date(FUTURE.getTime() + 2 * 365 * DAY));
    const { result } = await runRetention(t);
    // Every delivery is settled with a finished job by now, so all go; the provisioning jobs left
    // are each their subscription's newest and stay.
    expect(await t.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
    expect(await t.db.selectFrom('webhook_attempts').select('id').execute()).toEqual([]);
    expect(result.deleted?.webhook_deliveries).toBe(6);
    const provisioning = await t.db.selectFrom('jobs').select(['subscription_id']).where('kind', 'like', 'provisioning.%').execute();
    expect(provisioning).toHaveLength(4);
  });
});

describe('maintenance.retention: batches', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ now: NOW });
  });
  afterAll(() => t.close());

  it('deletes every deletable row of a table of several thousand, 1,000 per statement, skipping the kept ones between', async () => {
    const provider = await createProvider(t.db);
    // 3,000 old finished jobs, every sixth with a dedupe key (kept); random ids interleave them.
    await sql`INSERT INTO jobs (id, kind, status, attempts, dedupe_key, run_at, created_at, updated_at, finished_at)
      SELECT gen_random_uuid(), 'test.bulk', 'succeeded', 1, CASE WHEN i % 6 = 0 THEN 'test.bulk:' || i END,
        ${PAST}::timestamptz, ${PAST}::timestamptz, ${PAST}::timestamptz, ${PAST}::timestamptz
      FROM generate_series(1, 3000) AS i`.execute(t.db);
    // 1,600 idempotency records over three scopes (the composite key's walk crosses scopes), every fourth live.
    await sql`INSERT INTO idempotency_records (scope, key, request_hash, status, created_at, expires_at)
      SELECT 'scope-' || (i % 3), 'key-' || i, '\\x00'::bytea, 'done', ${LONG_AGO}::timestamptz,
        CASE WHEN i % 4 = 0 THEN ${FUTURE}::timestamptz ELSE ${PAST}::timestamptz END
      FROM generate_series(1, 1600) AS i`.execute(t.db);
    // 1,210 old delivered deliveries with an attempt and a job each; every eleventh job still queued (kept).
    await sql`INSERT INTO webhook_deliveries (id, provider_id, event_type, payload, status, attempts, created_at)
      SELECT 'msg_bulk_' || lpad(i::text, 5, '0'), ${provider.id}::uuid, 'subscription.activated', '{}'::jsonb, 'delivered', 1, ${PAST}::timestamptz
      FROM generate_series(1, 1210) AS i`.execute(t.db);
    await sql`INSERT INTO webhook_attempts (id, delivery_id, attempt, duration_ms, created_at)
      SELECT gen_random_uuid(), id, 1, 5, created_at FROM webhook_deliveries WHERE id LIKE 'msg_bulk_%'`.execute(t.db);
    await sql`INSERT INTO jobs (id, kind, status, attempts, dedupe_key, run_at, created_at, updated_at, finished_at)
      SELECT gen_random_uuid(), 'webhook.deliver', CASE WHEN right(id, 5)::int % 11 = 0 THEN 'queued' ELSE 'succeeded' END, 1,
        'webhook.deliver:' || id, ${FUTURE}::timestamptz, created_at, created_at,
        CASE WHEN right(id, 5)::int % 11 = 0 THEN NULL ELSE created_at END
      FROM webhook_deliveries WHERE id LIKE 'msg_bulk_%'`.execute(t.db);

    const { result } = await runRetention(t);
    expect(result.deleted).toMatchObject({
      jobs: 2500 + 1100,
      webhook_deliveries: 1100,
      webhook_attempts: 1100,
      idempotency_records: 1200,
    });
    const count = async (q: RawBuilder<unknown>) => (await (q as RawBuilder<{ n: number }>).execute(t.db)).rows[0]!.n;
    expect(await count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'test.bulk'`)).toBe(500);
    expect(await count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'test.bulk' AND dedupe_key IS NULL`)).toBe(0);
    expect(await count(sql`SELECT count(*)::int AS n FROM idempotency_records`)).toBe(400);
    expect(await count(sql`SELECT count(*)::int AS n FROM idempotency_records WHERE expires_at < ${CUTOFF}::timestamptz`)).toBe(0);
    expect(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries`)).toBe(110);
    expect(await count(sql`SELECT count(*)::int AS n FROM webhook_attempts`)).toBe(110);
    expect(await count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'webhook.deliver' AND status = 'queued'`)).toBe(110);
    expect(await count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'webhook.deliver' AND status = 'succeeded'`)).toBe(0);
  });

  it('one statement deletes at most 1,000 rows: 2,500 deletable jobs take statements of 1,000, 1,000 and 500', async () => {
    await sql`INSERT INTO jobs (id, kind, status, attempts, run_at, created_at, updated_at, finished_at)
      SELECT gen_random_uuid(), 'test.bulk2', 'failed', 1, ${PAST}::timestamptz, ${PAST}::timestamptz, ${PAST}::timestamptz, ${PAST}::timestamptz
      FROM generate_series(1, 2500)`.execute(t.db);
    const statements: unknown[] = [];
    const spy: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements.push(args.result.rows[0]);
        return args.result;
      },
    };
    expect(await deleteFinishedJobs(t.db.withPlugin(spy), CUTOFF)).toEqual({ deleted: 2500 });
    expect(statements.map((r) => (r as { deleted: number }).deleted)).toEqual([1000, 1000, 500]);
  });

  it('is scheduled daily from 03:30 UTC with 3 attempts (RETENTION_DAYS > 0)', async () => {
    t.clock.set('2026-11-17T03:29:00.000Z');
    const ticked = await t.deps.scheduler.tick();
    const slot = ticked.find((e) => e.kind === RETENTION_JOB_KIND);
    expect(slot).toBeDefined();
    const job = await t.db
      .selectFrom('jobs')
      .select(['dedupe_key', 'payload', 'max_attempts', 'status'])
      .where('id', '=', slot!.jobId)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({
      dedupe_key: `${RETENTION_JOB_KIND}:${slot!.slot}`,
      payload: { scheduled_at: '2026-11-16T03:30:00.000Z' },
      max_attempts: 3,
      status: 'queued',
    });
  });
});

describe('RETENTION_DAYS', () => {
  it('0 schedules nothing; a run enqueued by hand deletes nothing', async () => {
    const t = await buildTestApp({ now: NOW, env: { RETENTION_DAYS: '0' } });
    try {
      expect(t.config.RETENTION_DAYS).toBe(0);
      await insertJob(t, { status: 'succeeded', finishedAt: LONG_AGO });
      const before = await snapshot(t);
      const { id, result } = await runRetention(t);
      expect(result).toEqual({ skipped: 'RETENTION_DAYS=0' });
      const after = await snapshot(t);
      after.jobs = after.jobs.filter((r) => r.id !== id);
      expect(after).toEqual(before);
      // Not scheduled (the other daily kinds are).
      const kinds = (await t.deps.scheduler.tick()).map((e) => e.kind);
      expect(kinds).toContain('billing.monthly');
      expect(kinds).not.toContain(RETENTION_JOB_KIND);
    } finally {
      await t.close();
    }
  });

  it('defaults to 30, takes 0 and whole days, and rejects a negative or fractional value', () => {
    expect(loadConfig({}).RETENTION_DAYS).toBe(30);
    expect(loadConfig({ RETENTION_DAYS: '0' }).RETENTION_DAYS).toBe(0);
    expect(loadConfig({ RETENTION_DAYS: '400' }).RETENTION_DAYS).toBe(400);
    for (const bad of ['-1', '1.5', 'forever']) {
      expect(() => loadConfig({ RETENTION_DAYS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ RETENTION_DAYS: bad }), bad).toThrow(/^invalid configuration: RETENTION_DAYS: /);
    }
  });
});
