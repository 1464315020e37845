import type { FastifyRequest } from 'fastify';
import type { Executor } from '../../jobs/types.js';
import { newId } from '../../lib/ids.js';

export interface Actor {
  actorType: 'api_key' | 'user' | 'system' | 'webhook_secret';
  /** API-key prefix, user id, webhook-secret prefix, or a job name; never a secret. */
  actor: string;
}

export interface AuditInput extends Actor {
  providerId: string | null;
  action: string;
  entityType: string;
  entityId: string;
  before?: unknown;
  after?: unknown;
  requestId?: string | null;
  at: Date;
}

/** The credential that made the request, as the audit trail names it. */
export function actorOf(request: FastifyRequest): Actor {
  if (request.apiKey) return { actorType: 'api_key', actor: request.apiKey.prefix };
  if (request.webhookProvider) return { actorType: 'webhook_secret', actor: request.webhookProvider.prefix };
  if (request.user) return { actorType: 'user', actor: request.user.userId };
  return { actorType: 'system', actor: 'anonymous' };
}

/** Writes an audit entry; call it with the transaction of the write it describes. */
export async function recordAudit(trx: Executor, e: AuditInput): Promise<void> {
  await auditWrite(trx, e).execute();
}

/** The audit entry's insert, not yet run, to send with the write it describes (db/together.ts). */
export function auditWrite(trx: Executor, e: AuditInput) {
  return trx
    .insertInto('audit_entries')
    .values({
      id: newId(),
      provider_id: e.providerId,
      actor_type: e.actorType,
      actor: e.actor,
      action: e.action,
      entity_type: e.entityType,
      entity_id: e.entityId,
      before: e.before === undefined ? null : JSON.stringify(e.before),
      after: e.after === undefined ? null : JSON.stringify(e.after),
      request_id: e.requestId ?? null,
      created_at: e.at,
    });
}
