import type { Clock } from '../lib/clock.js';
import { randomAlnum } from '../lib/ids.js';
import type { JobQueue } from '../jobs/types.js';
import { WEBHOOK_MAX_ATTEMPTS } from './schedule.js';
import { deliveryJobKey, WEBHOOK_DELIVER_KIND, WEBHOOK_EVENT_TYPES, type WebhookEnvelope, type Webhooks } from './types.js';
import { executeTogether } from '../db/together.js';
import { deliveryInsert, listUnattemptedPending } from './webhook.repository.js';

/**
 * The job may run more often than the delivery is attempted (a worker dying mid-send costs a job
 * attempt but records no delivery attempt), so it gets headroom beyond the schedule.
 */
export const DELIVERY_JOB_MAX_ATTEMPTS = WEBHOOK_MAX_ATTEMPTS * 2;

const newDeliveryId = () => `msg_${randomAlnum(26)}`;

/**
 * The outbox: emit() writes the event and its delivery job in one statement, in the caller's
 * transaction, so the event exists exactly when the change that caused it committed (on its own,
 * the statement is atomic). emitWrites() hands the two writes to a caller that sends them with its
 * own in one statement (db/together.ts). Delivery is webhook.jobs.ts.
 */
export function createWebhooks({ jobs, clock }: { jobs: Pick<JobQueue, 'enqueueWrite' | 'runNow'>; clock: Clock }): Webhooks {
  const emitWrites: Webhooks['emitWrites'] = (executor, o) => {
    if (!WEBHOOK_EVENT_TYPES.includes(o.type)) throw new Error(`unknown webhook event type ${String(o.type)}`);
    if (!o.providerId || !o.subscriptionId || !o.subscriberId)
      throw new Error('webhook emit needs providerId, subscriptionId and subscriberId');
    const now = clock.now();
    const id = newDeliveryId();
    const data = { subscription_id: o.subscriptionId, subscriber_id: o.subscriberId, ...o.data };
    // The two ids are the envelope's contract: extra data never overrides them.
    data.subscription_id = o.subscriptionId;
    data.subscriber_id = o.subscriberId;
    const envelope: WebhookEnvelope = { id, type: o.type, created_at: now.toISOString(), provider_id: o.providerId, data };
    const job = jobs.enqueueWrite(executor, {
      kind: WEBHOOK_DELIVER_KIND,
      payload: { delivery_id: id },
      // Made from the id just drawn: no job holds it yet (enqueueWrite's condition).
      dedupeKey: deliveryJobKey(id),
      providerId: o.providerId,
      subscriptionId: o.subscriptionId,
      maxAttempts: DELIVERY_JOB_MAX_ATTEMPTS,
      runAt: now,
    });
    return {
      id,
      writes: [
        deliveryInsert(executor, { id, providerId: o.providerId, type: o.type, subscriptionId: o.subscriptionId, payload: envelope, now }),
        job.write,
      ],
    };
  };

  return {
    emitWrites,
    async emit(executor, o) {
      const { id, writes } = emitWrites(executor, o);
      // The event and its job in one statement: atomic on its own, one round trip.
      await executeTogether(executor, writes);
      return { id };
    },
    async releaseWaiting(executor, providerId) {
      const ids = await listUnattemptedPending(executor, providerId);
      return jobs.runNow(executor, ids.map(deliveryJobKey));
    },
  };
}
