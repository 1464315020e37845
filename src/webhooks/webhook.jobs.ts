import type { Deps } from '../container.js';
import { PermanentJobError } from '../jobs/types.js';
import { WEBHOOK_DELIVER_KIND } from './types.js';
import { createWebhookDelivery, DeliveryRetry } from './webhook.delivery.js';

/** Unexpected errors (database hiccup, a worker crash) retry the job soon; the schedule is the delivery's. */
const UNEXPECTED_ERROR_RETRY_MS = 60_000;

export function registerWebhookJobs(deps: Pick<Deps, 'db' | 'clock' | 'log' | 'config' | 'jobs'>) {
  const delivery = createWebhookDelivery(deps);
  deps.jobs.register(WEBHOOK_DELIVER_KIND, {
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
