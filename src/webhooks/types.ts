import type { Write } from '../db/together.js';
import type { Executor } from '../db/executor.js';

export type WebhookEventType =
  | 'subscription.activated'
  | 'subscription.pending_install'
  | 'provisioning.completed'
  | 'provisioning.failed'
  | 'subscription.cancelled'
  | 'subscription.plan_changed';

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  'subscription.activated',
  'subscription.pending_install',
  'provisioning.completed',
  'provisioning.failed',
  'subscription.cancelled',
  'subscription.plan_changed',
];

interface EmitOptions {
  providerId: string;
  type: WebhookEventType;
  subscriptionId: string;
  subscriberId: string;
  /** Merged into the envelope's `data` beside subscription_id and subscriber_id. */
  data?: Record<string, unknown>;
}

/** The body POSTed to the provider (decisions.md "Webhook envelope"). */
export interface WebhookEnvelope {
  /** `msg_...`, also the `webhook-id` header, the same on every retry. */
  id: string;
  type: WebhookEventType;
  /** When the event happened (ISO 8601, UTC). */
  created_at: string;
  provider_id: string;
  data: { subscription_id: string; subscriber_id: string; [key: string]: unknown };
}

export interface Webhooks {
  /** Inserts the delivery into the outbox (and its delivery job) inside the caller's transaction. */
  emit(executor: Executor, opts: EmitOptions): Promise<{ id: string }>;
  /** The same two inserts, not yet run, for a caller that sends them with its own writes (db/together.ts). */
  emitWrites(executor: Executor, opts: EmitOptions): { id: string; writes: Write[] };
  /**
   * Call after a provider's webhook_url (or signing secret) was set: deliveries that waited in
   * the outbox for it are sent now instead of at their next check. Returns how many were woken.
   */
  releaseWaiting(executor: Executor, providerId: string): Promise<number>;
}

export const WEBHOOK_DELIVER_KIND = 'webhook.deliver';
/** The delivery job's dedupe key: one job per delivery, found again to wake it. */
export const deliveryJobKey = (deliveryId: string) => `${WEBHOOK_DELIVER_KIND}:${deliveryId}`;
