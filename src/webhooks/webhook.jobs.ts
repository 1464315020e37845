import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { JobQueue } from '../jobs/types.js';
import type { Clock } from '../lib/clock.js';
import { PermanentJobError } from '../jobs/types.js';
import { WEBHOOK_DELIVER_KIND } from './types.js';
import { createWebhookDelivery, DeliveryRetry } from './webhook.delivery.js';

/** Unexpected errors (database hiccup, a worker crash) retry the job soon; the schedule is the delivery's. */
const UNEXPECTED_ERROR_RETRY_MS = 60_000;

/**
 * Deliveries run in a lane of their own with this many slots (not the JOBS_CONCURRENCY ones other
 * kinds share). A delivery mostly waits on its receiver and holds no database connection meanwhile
 * (its queries are batched with the others'), so many can be in flight at little cost, and larger
 * batches mean fewer round trips per delivery. A provider whose endpoint hangs for
 * WEBHOOK_TIMEOUT_MS then holds up deliveries, not provisioning, mail or billing.
 */
export const WEBHOOK_DELIVERY_SLOTS = 64;

export interface WebhookJobsDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  config: Config;
  jobs: JobQueue;
}

export function registerWebhookJobs(deps: WebhookJobsDeps) {
  const delivery = createWebhookDelivery(deps);
  deps.jobs.register(WEBHOOK_DELIVER_KIND, {
    concurrency: WEBHOOK_DELIVERY_SLOTS,
    async run(job) {
      const id = job.payload.delivery_id;
      if (typeof id !== 'string' || !id) throw new PermanentJobError('webhook.deliver payload lacks delivery_id');
      return delivery.deliver(id);
    },
    backoffMs(_attempt, err) {
      return err instanceof DeliveryRetry ? err.delayMs : UNEXPECTED_ERROR_RETRY_MS;
    },
    async onFailed(job) {
      const id = job.payload.delivery_id;
      if (typeof id === 'string' && id) await delivery.giveUp(id);
    },
  });
}
