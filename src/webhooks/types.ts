import type { Executor } from '../jobs/types.js';

export type WebhookEventType =
  | 'subscription.activated'
  | 'subscription.pending_install'
  | 'provisioning.completed'
  | 'provisioning.failed'
  | 'subscription.cancelled'
  | 'subscription.plan_changed';

export interface EmitOptions {
  providerId: string;
  type: WebhookEventType;
  subscriptionId: string;
  subscriberId: string;
  /** Merged into the envelope's `data` beside subscription_id and subscriber_id. */
  data?: Record<string, unknown>;
}

export interface Webhooks {
  /** Inserts the delivery into the outbox (and its delivery job) inside the caller's transaction. */
  emit(executor: Executor, opts: EmitOptions): Promise<{ id: string }>;
}
