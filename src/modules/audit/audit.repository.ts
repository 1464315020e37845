import type { Executor } from '../../db/executor.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from './audit.types.js';

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

/** Writes an audit entry; call it with the transaction of the write it describes. */
export async function recordAudit(trx: Executor, e: AuditInput): Promise<void> {
  await auditWrite(trx, e).execute();
}

/** The audit entry's insert, not yet run, to send with the write it describes (db/together.ts). */
export function auditWrite(trx: Executor, e: AuditInput) {
  return trx.insertInto('audit_entries').values({
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
