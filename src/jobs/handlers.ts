import type { Deps } from '../container.js';
import { registerMailJobs } from '../mail/mail.jobs.js';
import { registerWebhookJobs } from '../webhooks/webhook.jobs.js';
import { registerPlanChangeJobs } from '../modules/plan-change/plan-change.jobs.js';
import { registerProvisioningJobs } from '../modules/provisioning/provisioning.jobs.js';
import { registerBillingJobs } from '../modules/billing/billing.jobs.js';
import { registerCancellationJobs } from '../modules/cancellation/cancellation.jobs.js';
import { registerRetentionJobs } from '../modules/maintenance/retention.jobs.js';

/** Every job kind's handler, registered once when the container is built. */
export function registerJobHandlers(deps: Deps) {
  registerMailJobs(deps);
  registerWebhookJobs(deps);
  registerPlanChangeJobs(deps);
  registerProvisioningJobs(deps);
  registerBillingJobs(deps);
  registerCancellationJobs(deps);
  registerRetentionJobs(deps);
}
