import type { JobQueue } from '../jobs/types.js';
import type { Webhooks } from './types.js';

// PLACEHOLDER until the webhook helper lands the outbox: see issue 2 item 9.
export function createWebhooks(_deps: { jobs: JobQueue }): Webhooks {
  return {
    async emit() {
      throw new Error('webhook outbox pending');
    },
  };
}
