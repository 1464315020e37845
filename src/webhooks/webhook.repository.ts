import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.js';
import type { Executor } from '../db/executor.js';
import type { WebhookEnvelope } from './types.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryForSend {
  id: string;
  provider_id: string;
  subscription_id: string | null;
  seq: string;
  status: DeliveryStatus;
  attempts: number;
  payload: WebhookEnvelope;
  webhook_url: string | null;
  webhook_signing_secret: string | null;
  /**
   * An older delivery of the same subscription was still pending when this was read (unlocked).
   * When false the delivery may go out; when true the locked check (lockOlderPending) decides.
   */
  has_older_pending: boolean;
}

export function deliveryInsert(
  ex: Executor,
  v: { id: string; providerId: string; type: string; subscriptionId: string | null; payload: WebhookEnvelope; now: Date },
) {
  return ex.insertInto('webhook_deliveries').values({
    id: v.id,
    provider_id: v.providerId,
    event_type: v.type,
    subscription_id: v.subscriptionId,
    payload: JSON.stringify(v.payload),
    status: 'pending',
    attempts: 0,
    next_attempt_at: v.now,
    created_at: v.now,
  });
}

/**
 * The deliveries with where and how to send them (the provider's URL and secret are read here, at
 * send time, so a changed URL applies to pending deliveries) and whether an older delivery of the
 * same subscription is pending. One query for a whole batch of deliveries about to be attempted.
 *
 * The unlocked order pre-check is exact when it finds nothing: a delivery never returns to
 * pending, so "no older pending one" cannot be undone by a transaction in flight. When it finds
 * one (which may be settling right now), the caller takes the locked path.
 */
export async function findDeliveriesForSend(ex: Executor, ids: string[]): Promise<DeliveryForSend[]> {
  if (ids.length === 0) return [];
  const rows = await ex
    .selectFrom('webhook_deliveries as d')
    .innerJoin('providers as p', 'p.id', 'd.provider_id')
    .select([
      'd.id',
      'd.provider_id',
      'd.subscription_id',
      'd.seq',
      'd.status',
      'd.attempts',
      'd.payload',
      'p.webhook_url',
      'p.webhook_signing_secret',
    ])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('webhook_deliveries as o')
            .select(sql`1`.as('one'))
            .whereRef('o.subscription_id', '=', 'd.subscription_id')
            .whereRef('o.seq', '<', 'd.seq')
            .where('o.status', '=', 'pending'),
        )
        .as('has_older_pending'),
    )
    .where(sql<boolean>`d.id = ANY(${ids}::text[])`)
    .execute();
  return rows as unknown as DeliveryForSend[];
}

/**
 * Older deliveries of the subscription still pending, newest first, key-share-locked: a delivery
 * that is settling one of them (lockDelivery, FOR UPDATE) makes us wait until it committed, so
 * "still pending" and "it woke its followers" cannot cross. KEY SHARE (not SHARE) because the
 * settling transaction also updates its followers' rows, which a plain UPDATE may do under KEY
 * SHARE; with SHARE two such transactions could deadlock.
 */
export async function lockOlderPending(trx: Transaction<DB>, subscriptionId: string, seq: string) {
  return trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'next_attempt_at'])
    .where('subscription_id', '=', subscriptionId)
    .where('seq', '<', seq)
    .where('status', '=', 'pending')
    .orderBy('seq', 'desc')
    .forKeyShare()
    .execute();
}

export async function setBlocked(ex: Executor, id: string, blockedBy: string | null, nextAttemptAt: Date | null) {
  await ex.updateTable('webhook_deliveries').set({ blocked_by: blockedBy, next_attempt_at: nextAttemptAt }).where('id', '=', id).execute();
}

export async function lockDelivery(trx: Transaction<DB>, id: string) {
  return trx.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).where('id', '=', id).forUpdate().executeTakeFirst();
}

export interface SuccessfulAttempt {
  attemptId: string;
  deliveryId: string;
  url: string;
  statusCode: number;
  durationMs: number;
  at: Date;
}

/**
 * Records a batch of successful attempts in one round trip (migrations/functions/
 * webhook_record_delivered.sql): locks the deliveries, then records each attempt (number = attempts + 1), marks
 * the delivery delivered (unless a worker that took over a lapsed lease settled it meanwhile: then
 * only the attempt is counted, as in the one-by-one path), unblocks the deliveries that waited for
 * it and wakes their jobs (dedupe key `jobKeyPrefix` + id), in one transaction. Returns per delivery
 * the status it had before and the attempt number; an unknown id is missing from the result.
 */
export async function recordDelivered(ex: Executor, attempts: SuccessfulAttempt[], now: Date, jobKeyPrefix: string) {
  const r = await sql<{ delivery_id: string; prev_status: DeliveryStatus; attempt: number }>`
    SELECT * FROM webhook_record_delivered(${attempts.map((a) => a.deliveryId)}::text[], ${attempts.map((a) => a.attemptId)}::uuid[],
      ${attempts.map((a) => a.url)}::text[], ${attempts.map((a) => a.statusCode)}::integer[],
      ${attempts.map((a) => a.durationMs)}::integer[], ${attempts.map((a) => a.at.toISOString())}::timestamptz[],
      ${now}::timestamptz, ${jobKeyPrefix}::text)`.execute(ex);
  return r.rows;
}

export async function insertAttempt(
  ex: Executor,
  v: {
    id: string;
    deliveryId: string;
    attempt: number;
    url: string | null;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    at: Date;
  },
) {
  await ex
    .insertInto('webhook_attempts')
    .values({
      id: v.id,
      delivery_id: v.deliveryId,
      attempt: v.attempt,
      url: v.url,
      status_code: v.statusCode,
      error: v.error,
      duration_ms: v.durationMs,
      created_at: v.at,
    })
    .execute();
}

export async function updateAfterAttempt(
  ex: Executor,
  id: string,
  v: { attempts: number; status?: DeliveryStatus; nextAttemptAt: Date | null; deliveredAt?: Date },
) {
  await ex
    .updateTable('webhook_deliveries')
    .set({
      attempts: v.attempts,
      next_attempt_at: v.nextAttemptAt,
      blocked_by: null,
      ...(v.status ? { status: v.status } : {}),
      ...(v.deliveredAt ? { delivered_at: v.deliveredAt } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Marks a still-pending delivery failed; returns whether it was pending. */
export async function markFailedIfPending(ex: Executor, id: string): Promise<boolean> {
  const r = await ex
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, blocked_by: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Unblocks the deliveries that waited for `id`; returns the pending ones (whose jobs to wake).
 * Looked up by blocked_by alone (see webhook_record_delivered.sql): only a pending delivery waits, and
 * clearing a stale pointer on a settled one changes nothing.
 */
export async function releaseFollowers(ex: Executor, id: string): Promise<string[]> {
  const rows = await ex
    .updateTable('webhook_deliveries')
    .set({ blocked_by: null })
    .where('blocked_by', '=', id)
    .returning(['id', 'status'])
    .execute();
  return rows.filter((r) => r.status === 'pending').map((r) => r.id);
}

/** Pending deliveries of a provider never attempted and not held behind an older one. */
export async function listUnattemptedPending(ex: Executor, providerId: string): Promise<string[]> {
  const rows = await ex
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('provider_id', '=', providerId)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .where('blocked_by', 'is', null)
    .execute();
  return rows.map((r) => r.id);
}

export async function setNextAttemptAt(ex: Executor, id: string, at: Date) {
  await ex.updateTable('webhook_deliveries').set({ next_attempt_at: at }).where('id', '=', id).execute();
}

// The provider's endpoint ------------------------------------------------------------------

export function lockProviderEndpoint(trx: Transaction<DB>, providerId: string) {
  return trx
    .selectFrom('providers')
    .select(['id', 'name', 'webhook_signing_secret'])
    .where('id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
}

/** The URL, and a new signing secret when one is given (null keeps the current one). */
export async function setProviderEndpoint(trx: Transaction<DB>, providerId: string, url: string | null, newSecret: string | null) {
  await trx
    .updateTable('providers')
    .set({ webhook_url: url, ...(newSecret ? { webhook_signing_secret: newSecret } : {}) })
    .where('id', '=', providerId)
    .execute();
}
