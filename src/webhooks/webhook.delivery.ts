import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { JobQueue } from '../jobs/types.js';
import type { Clock } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { DeferJob, PermanentJobError } from '../jobs/types.js';
import type { Executor } from '../db/executor.js';
import { nextRetryDelayMs } from './schedule.js';
import { postWebhook, signWebhook, type AttemptResult } from './sender.js';
import { deliveryJobKey, type WebhookEnvelope } from './types.js';
import { createBatcher } from '../jobs/batcher.js';
import { webhookOutcome } from '../ops/events.js';
import {
  findDeliveriesForSend,
  insertAttempt,
  lockDelivery,
  lockOlderPending,
  markFailedIfPending,
  recordDelivered,
  releaseFollowers,
  setBlocked,
  setNextAttemptAt,
  updateAfterAttempt,
  type DeliveryForSend,
  type DeliveryStatus,
  type SuccessfulAttempt,
} from './webhook.repository.js';

/** A delivery to a provider without a webhook URL (or signing secret) is looked at again this often. */
export const NO_URL_RECHECK_MS = 15 * 60_000;
/**
 * A delivery held behind an older one is woken when that one finishes; this is only the fallback:
 * just after the older one's next attempt, and at least once an hour.
 */
const ORDER_RECHECK_AFTER_MS = 1_000;
const ORDER_RECHECK_MAX_MS = 60 * 60_000;

/**
 * An endpoint that did not answer (timeout, refused or reset connection) counts as unresponsive until
 * it answers an attempt (with any HTTP status), or this long after the last attempt it did not answer.
 */
export const UNRESPONSIVE_FOR_MS = 10 * 60_000;

/** A failed attempt with a next one scheduled: the job retries after exactly this delay. */
export class DeliveryRetry extends Error {
  override name = 'DeliveryRetry';
  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

export type DeliveryOutcome =
  | { delivery_id: string; status: 'delivered'; attempt: number; status_code: number | null }
  | { delivery_id: string; status: 'delivered' | 'failed'; already_settled: true };

/** The body in the documented key order (jsonb storage does not keep key order). */
function canonicalEnvelope(p: WebhookEnvelope): WebhookEnvelope {
  const { subscription_id, subscriber_id, ...rest } = p.data;
  return {
    id: p.id,
    type: p.type,
    created_at: p.created_at,
    provider_id: p.provider_id,
    data: { subscription_id, subscriber_id, ...rest },
  };
}

export interface WebhookDeliveryDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
  jobs: JobQueue;
  random?: () => number;
}

export function createWebhookDelivery({ db, clock, log, config, jobs, random = Math.random }: WebhookDeliveryDeps) {
  async function wakeFollowers(ex: Executor, deliveryId: string) {
    const ids = await releaseFollowers(ex, deliveryId);
    if (ids.length) await jobs.runNow(ex, ids.map(deliveryJobKey));
  }

  // Per endpoint (webhook URL), in this process: deliveries waiting on it now, and until when it
  // counts as unresponsive. A hanging endpoint holds each attempt for WEBHOOK_TIMEOUT_MS;
  // without a cap, one provider's backlog would take every delivery slot and hold up every other
  // provider's webhooks. Capped only once it stopped answering, so a healthy endpoint keeps all slots.
  const endpoints = new Map<string, { inFlight: number; unresponsiveUntil: number }>();
  const endpointOf = (url: string) => {
    let e = endpoints.get(url);
    if (!e) endpoints.set(url, (e = { inFlight: 0, unresponsiveUntil: 0 }));
    return e;
  };
  const forgetIfIdle = (url: string) => {
    const e = endpoints.get(url);
    if (e && e.inFlight === 0 && e.unresponsiveUntil <= clock.now().getTime()) endpoints.delete(url);
  };

  // Concurrent deliveries share their round trips (group commit, see jobs/batcher.ts): one query
  // loads a batch with its providers and the order pre-check, one call records a batch of
  // successful attempts. Failed attempts and held deliveries take the one-by-one path below.
  const load = createBatcher<string, DeliveryForSend | null>(async (ids) => {
    const byId = new Map((await findDeliveriesForSend(db, ids)).map((d) => [d.id, d]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  type Settled = { prevStatus: DeliveryStatus; attempt: number };
  const recordSuccess = createBatcher<SuccessfulAttempt, Settled>(async (items) => {
    const rows = await recordDelivered(db, items, clock.now(), deliveryJobKey(''));
    const byId = new Map(rows.map((r) => [r.delivery_id, { prevStatus: r.prev_status, attempt: Number(r.attempt) }]));
    return items.map((i) => byId.get(i.deliveryId) ?? new PermanentJobError(`webhook delivery ${i.deliveryId} vanished`));
  });

  /** Holds the delivery behind the newest older pending one (locked), or returns null when none is left. */
  async function holdBehindOlder(d: DeliveryForSend) {
    const subscriptionId = d.subscription_id!;
    return db.transaction().execute(async (trx) => {
      const older = await lockOlderPending(trx, subscriptionId, d.seq);
      const [pred] = older;
      if (!pred) return null;
      const now = clock.now().getTime();
      const predDue = Math.max(now, pred.next_attempt_at?.getTime() ?? now);
      const runAt = new Date(Math.min(predDue + ORDER_RECHECK_AFTER_MS, now + ORDER_RECHECK_MAX_MS));
      await setBlocked(trx, d.id, pred.id, runAt);
      return { blockedBy: pred.id, runAt };
    });
  }

  /**
   * One delivery attempt. Throws DeferJob when the delivery must wait (an older one of the same
   * subscription is pending; no URL), DeliveryRetry when the attempt failed and another is
   * scheduled, PermanentJobError when the schedule is exhausted (the delivery is then `failed`).
   */
  async function deliver(deliveryId: string): Promise<DeliveryOutcome> {
    const d = await load(deliveryId);
    if (!d) throw new PermanentJobError(`webhook delivery ${deliveryId} does not exist`);
    if (d.status !== 'pending') return { delivery_id: d.id, status: d.status, already_settled: true };

    if (d.subscription_id && d.has_older_pending) {
      const hold = await holdBehindOlder(d);
      if (hold) throw new DeferJob(hold.runAt, `waiting for the older delivery ${hold.blockedBy} of the same subscription`);
    }

    if (!d.webhook_url || !d.webhook_signing_secret) {
      // Waits in the outbox without using up the schedule (docs/decisions.md, Webhooks).
      const runAt = new Date(clock.now().getTime() + NO_URL_RECHECK_MS);
      await setNextAttemptAt(db, d.id, runAt);
      throw new DeferJob(runAt, 'the provider has no webhook_url');
    }

    const endpoint = endpointOf(d.webhook_url);
    const sentAt = clock.now();
    if (endpoint.unresponsiveUntil > sentAt.getTime() && endpoint.inFlight >= config.WEBHOOK_UNRESPONSIVE_CONCURRENCY) {
      // Its turn comes when one of those attempts has ended; no attempt is used up meanwhile.
      const runAt = new Date(sentAt.getTime() + Math.round(config.WEBHOOK_TIMEOUT_MS * (0.5 + random())));
      await setNextAttemptAt(db, d.id, runAt);
      throw new DeferJob(runAt, `the webhook endpoint is not answering; ${endpoint.inFlight} deliveries already wait on it`);
    }
    let result: AttemptResult;
    endpoint.inFlight++;
    try {
      const req = signWebhook(d.webhook_signing_secret, d.id, sentAt, JSON.stringify(canonicalEnvelope(d.payload)));
      result = await postWebhook(d.webhook_url, req, {
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        now: sentAt,
        publicOnly: config.NODE_ENV === 'production',
      });
      // No status at all (a timeout, a refused or reset connection): the endpoint did not answer.
      // Any status, an error too, is an answer.
      endpoint.unresponsiveUntil = result.statusCode === null ? clock.now().getTime() + UNRESPONSIVE_FOR_MS : 0;
    } catch (err) {
      // An unusable signing secret is the provider's configuration to fix: a failed attempt.
      result = {
        ok: false,
        statusCode: null,
        error: `cannot sign: ${err instanceof Error ? err.message : String(err)}`,
        retryAfterMs: null,
        durationMs: 0,
      };
    } finally {
      endpoint.inFlight--;
    }
    forgetIfIdle(d.webhook_url);

    const url = d.webhook_url;
    const logCtx = { delivery_id: d.id, provider_id: d.provider_id, type: d.payload.type, status_code: result.statusCode };
    if (result.ok) {
      const s = await recordSuccess({
        attemptId: newId(),
        deliveryId: d.id,
        url,
        statusCode: result.statusCode!,
        durationMs: result.durationMs,
        at: sentAt,
      });
      if (s.prevStatus !== 'pending') {
        // A second worker took over a lapsed lease and settled it meanwhile: keep its outcome.
        return { delivery_id: d.id, status: s.prevStatus, already_settled: true };
      }
      webhookOutcome('delivered');
      log.info({ ...logCtx, attempt: s.attempt, duration_ms: result.durationMs }, 'webhook delivered');
      return { delivery_id: d.id, status: 'delivered', attempt: s.attempt, status_code: result.statusCode };
    }

    const settled = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const cur = await lockDelivery(trx, d.id);
      if (!cur) throw new PermanentJobError(`webhook delivery ${d.id} vanished`);
      const attempt = cur.attempts + 1;
      await insertAttempt(trx, {
        id: newId(),
        deliveryId: d.id,
        attempt,
        url,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: result.durationMs,
        at: sentAt,
      });
      if (cur.status !== 'pending') {
        // A second worker took over a lapsed lease and settled it meanwhile: keep its outcome.
        await updateAfterAttempt(trx, d.id, { attempts: attempt, nextAttemptAt: null });
        return { kind: 'settled' as const, status: cur.status as 'delivered' | 'failed', attempt };
      }
      const delay = nextRetryDelayMs(attempt, result.retryAfterMs, random);
      if (delay === null) {
        await updateAfterAttempt(trx, d.id, { attempts: attempt, status: 'failed', nextAttemptAt: null });
        await wakeFollowers(trx, d.id);
        return { kind: 'failed' as const, attempt };
      }
      await updateAfterAttempt(trx, d.id, { attempts: attempt, nextAttemptAt: new Date(now.getTime() + delay) });
      return { kind: 'retry' as const, attempt, delay };
    });

    switch (settled.kind) {
      case 'settled':
        return { delivery_id: d.id, status: settled.status, already_settled: true };
      case 'failed':
        webhookOutcome('failed');
        log.warn({ ...logCtx, attempt: settled.attempt, err: result.error }, 'webhook delivery failed for good; kept as failed');
        throw new PermanentJobError(`webhook delivery failed after ${settled.attempt} attempts: ${result.error}`);
      case 'retry':
        webhookOutcome('retried');
        log.info(
          { ...logCtx, attempt: settled.attempt, err: result.error, retry_in_ms: settled.delay },
          'webhook attempt failed; will retry',
        );
        throw new DeliveryRetry(settled.delay, `attempt ${settled.attempt} failed: ${result.error}`);
    }
  }

  /** The job gave up (a crash loop, a bad payload): the delivery is kept as failed, followers go on. */
  async function giveUp(deliveryId: string) {
    await db.transaction().execute(async (trx) => {
      // Locked first like any settling, so a follower checking its turn waits for this commit.
      if (!(await lockDelivery(trx, deliveryId))) return;
      if (await markFailedIfPending(trx, deliveryId)) await wakeFollowers(trx, deliveryId);
    });
  }

  return { deliver, giveUp };
}
