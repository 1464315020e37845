import { channel } from 'node:diagnostics_channel';

// What the metrics count, published where it happens. Through diagnostics_channel, so the queue,
// the webhook sender and the mailer need no metrics dependency, and publishing costs one check
// while nobody listens (scripts, most tests). The /metrics plugin subscribes (ops/metrics.ts).

export type JobOutcome = 'succeeded' | 'retried' | 'deferred' | 'failed' | 'released';
export type WebhookOutcome = 'delivered' | 'retried' | 'failed';
export type MailOutcome = 'sent' | 'written' | 'failed';

export const jobOutcomes = channel('netsvc.jobs.outcome');
export const webhookOutcomes = channel('netsvc.webhooks.outcome');
export const mailOutcomes = channel('netsvc.mail.outcome');

export function jobOutcome(kind: string, outcome: JobOutcome) {
  if (jobOutcomes.hasSubscribers) jobOutcomes.publish({ kind, outcome });
}

export function webhookOutcome(outcome: WebhookOutcome) {
  if (webhookOutcomes.hasSubscribers) webhookOutcomes.publish({ outcome });
}

export function mailOutcome(outcome: MailOutcome) {
  if (mailOutcomes.hasSubscribers) mailOutcomes.publish({ outcome });
}
