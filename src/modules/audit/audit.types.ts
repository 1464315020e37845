/** Who made a change, as the audit trail names it. */
export interface Actor {
  actorType: 'api_key' | 'user' | 'system' | 'webhook_secret';
  /** API-key prefix, user id, webhook-secret prefix, or a job name; never a secret. */
  actor: string;
}
