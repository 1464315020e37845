import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { deliveryJobKey } from '../../webhooks/types.js';
import { present } from '../../lib/present.js';

/** Rows one statement deletes at most: short statements, short row locks, small WAL bursts. */
const RETENTION_BATCH = 1000;

/** A primary-key value as text, in key column order: where the walk of a table stands. */
type Cursor = string[];

interface Step<C> {
  /** Rows the statement picked (it deletes them all, unless a concurrent delete took one first). */
  picked: number;
  /** The last picked key (the walk continues after it), null when nothing was picked. */
  last: Cursor | null;
  counts: C;
}

/**
 * Walks a table once in primary-key order, one statement per batch: each statement takes up to
 * `limit` deletable rows after the previous batch's last key (keyset, so the primary-key index is
 * read once in all, not rescanned from the start per batch), until a batch comes back short.
 */
async function walk<C extends Record<string, number>>(
  step: (after: Cursor | null) => Promise<Step<C>>,
  limit: number,
  zero: C,
): Promise<C> {
  const total: Record<string, number> = { ...zero };
  let after: Cursor | null = null;
  for (;;) {
    const s = await step(after);
    for (const [k, n] of Object.entries(s.counts)) total[k] = present(total[k], `the ${k} count`) + n;
    if (s.picked < limit || !s.last) return total as C;
    after = s.last;
  }
}

interface BatchedDelete {
  table:
    | 'jobs'
    | 'idempotency_records'
    | 'verification_codes'
    | 'verified_sessions'
    | 'link_tokens'
    | 'rollback_links'
    | 'rate_limit_buckets'
    | 'credential_failures';
  /** Primary-key columns in index order. */
  key: readonly string[];
  /** Which rows may go; the table is aliased `t`. */
  deletable: RawBuilder<boolean>;
}

/**
 * Deletes every row of `spec.table` that `spec.deletable` holds for, in batches of `limit`.
 * FOR UPDATE SKIP LOCKED: a row a request holds right now is left for the next run (retention never
 * waits on the hot paths), and a row changed since the statement began is checked again on its new
 * version, so one that stopped being deletable (a rate-limit window restarted) stays. The picked
 * rows are deleted by ctid (a TID scan of exactly those rows, whatever the key): joined back on the
 * key, the planner hashes the whole table for a batch of 1,000 whenever the table is small enough to
 * look cheap. (A row changed between the snapshot and the lock has a newer ctid and is left for the
 * next run.)
 */
function deleteInBatches(db: Executor, spec: BatchedDelete, limit = RETENTION_BATCH): Promise<{ deleted: number }> {
  const table = sql.table(spec.table);
  const cols = sql.join(spec.key.map((k) => sql.ref(`t.${k}`)));
  const asText = sql.join(spec.key.map((k) => sql`${sql.ref(k)}::text`));
  const newestFirst = sql.join(spec.key.map((k) => sql`${sql.ref(k)} DESC`));
  return walk(
    async (after) => {
      const r = await sql<{ picked: number; deleted: number; last: Cursor | null }>`
      WITH batch AS (
        SELECT t.ctid, ${cols} FROM ${table} AS t
        WHERE ${spec.deletable}${after ? sql` AND (${cols}) > (${sql.join(after)})` : sql``}
        ORDER BY ${cols}
        LIMIT ${limit}
        FOR UPDATE OF t SKIP LOCKED
      ), gone AS (
        DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM batch)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM batch)::int AS picked, (SELECT count(*) FROM gone)::int AS deleted,
        (SELECT ARRAY[${asText}] FROM batch ORDER BY ${newestFirst} LIMIT 1) AS last`.execute(db);
      const row = r.rows[0]!;
      return { picked: row.picked, last: row.last, counts: { deleted: row.deleted } };
    },
    limit,
    { deleted: 0 },
  );
}

/** Which records expire, and their primary keys: deletable once their life ended before the cutoff. */
const EXPIRING = {
  idempotency_records: ['scope', 'key'],
  verification_codes: ['id'],
  verified_sessions: ['id'],
  link_tokens: ['id'],
  rollback_links: ['id'],
} as const;

export type ExpiringTable = keyof typeof EXPIRING;
export const EXPIRING_TABLES = Object.keys(EXPIRING) as ExpiringTable[];

export function deleteExpired(db: Executor, table: ExpiringTable, cutoff: Date) {
  return deleteInBatches(db, { table, key: EXPIRING[table], deletable: sql<boolean>`t.expires_at < ${cutoff}` });
}

/**
 * Rate-limit windows that ended over an hour ago, by database time: the postgres rate-limit store
 * stamps windows with clock_timestamp(), and its next hit on an ended window restarts it anyway.
 */
export function deleteEndedRateLimitWindows(db: Executor) {
  return deleteInBatches(db, {
    table: 'rate_limit_buckets',
    key: ['bucket'],
    deletable: sql<boolean>`t.window_ends_at < now() - interval '1 hour'`,
  });
}

/** Failed credential checks count for an hour at most (the account-wide slowdown's window); then they go. */
export function deleteOldCredentialFailures(db: Executor, now: Date) {
  return deleteInBatches(db, {
    table: 'credential_failures',
    key: ['id'],
    deletable: sql<boolean>`t.failed_at < ${new Date(now.getTime() - 3_600_000)}`,
  });
}

/**
 * Finished jobs without a dedupe key, except the newest provisioning job of each subscription
 * (the agent profile and the provisioning replay read it). A dedupe key is what stops a job's work
 * from being done twice, so those jobs stay; webhook delivery jobs go with their delivery.
 * "Newest" keeps every job at the newest created_at (the readers break such a tie by id; keeping all is simpler).
 */
export function deleteFinishedJobs(db: Executor, cutoff: Date) {
  return deleteInBatches(db, {
    table: 'jobs',
    key: ['id'],
    deletable: sql<boolean>`t.status IN ('succeeded', 'failed') AND t.finished_at < ${cutoff} AND t.dedupe_key IS NULL
      AND NOT (t.kind LIKE 'provisioning.%' AND t.subscription_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM jobs n
        WHERE n.subscription_id = t.subscription_id AND n.kind LIKE 'provisioning.%' AND n.created_at > t.created_at))`,
  });
}

export interface DeletedDeliveries {
  webhook_deliveries: number;
  webhook_attempts: number;
  jobs: number;
}

/**
 * Settled webhook deliveries created before the cutoff, each with its attempts and its finished
 * delivery job, in one statement per batch so none is left half-deleted. Kept: a delivery another
 * one is blocked by (the foreign key; settling clears the pointer) and one whose job is still
 * queued or running (a worker that took over a lapsed lease would find it gone). The job check is
 * a scalar subquery so it stays one unique-index lookup per delivery (as NOT EXISTS the planner
 * turns it into an anti join that reads the whole jobs table per batch); the deletes look their
 * rows up by key arrays for the same reason (see deleteInBatches). By key, not ctid: a delivery
 * changed between the statement's snapshot and its lock is still found, so all three go or the
 * statement fails.
 */
export function deleteSettledDeliveries(db: Executor, cutoff: Date, limit = RETENTION_BATCH): Promise<DeletedDeliveries> {
  const jobKeyPrefix = deliveryJobKey('');
  return walk(
    async (after) => {
      const r = await sql<{ picked: number; deliveries: number; attempts: number; jobs: number; last: string | null }>`
      WITH batch AS (
        SELECT d.id FROM webhook_deliveries AS d
        WHERE d.status IN ('delivered', 'failed') AND d.created_at < ${cutoff}${after ? sql` AND d.id > ${after[0]}` : sql``}
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries AS f WHERE f.blocked_by = d.id)
          AND NOT coalesce((SELECT j.status IN ('queued', 'running') FROM jobs AS j WHERE j.dedupe_key = ${jobKeyPrefix} || d.id), false)
        ORDER BY d.id
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      ), attempts AS (
        DELETE FROM webhook_attempts WHERE delivery_id = ANY(ARRAY(SELECT id FROM batch)) RETURNING 1
      ), delivery_jobs AS (
        DELETE FROM jobs
        WHERE dedupe_key = ANY(ARRAY(SELECT ${jobKeyPrefix} || id FROM batch)) AND status IN ('succeeded', 'failed') RETURNING 1
      ), gone AS (
        DELETE FROM webhook_deliveries WHERE id = ANY(ARRAY(SELECT id FROM batch)) RETURNING 1
      )
      SELECT (SELECT count(*) FROM batch)::int AS picked, (SELECT count(*) FROM gone)::int AS deliveries,
        (SELECT count(*) FROM attempts)::int AS attempts, (SELECT count(*) FROM delivery_jobs)::int AS jobs,
        (SELECT max(id) FROM batch) AS last`.execute(db);
      const row = r.rows[0]!;
      return {
        picked: row.picked,
        last: row.last === null ? null : [row.last],
        counts: { webhook_deliveries: row.deliveries, webhook_attempts: row.attempts, jobs: row.jobs },
      };
    },
    limit,
    { webhook_deliveries: 0, webhook_attempts: 0, jobs: 0 },
  );
}

/** ANALYZE of every table: the planner statistics autovacuum keeps on Postgres. */
export async function refreshStatistics(db: Executor) {
  await sql`ANALYZE`.execute(db);
}
