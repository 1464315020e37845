import type { Executor } from '../../db/executor.js';

export interface IdempotencyKey {
  scope: string;
  key: string;
}

/** Claims the key for a running request; undefined when another request holds (or held) it. */
export function claimKey(db: Executor, k: IdempotencyKey, requestHash: Buffer, now: Date, expiresAt: Date) {
  return db
    .insertInto('idempotency_records')
    .values({ scope: k.scope, key: k.key, request_hash: requestHash, status: 'running', created_at: now, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
}

export function findKey(db: Executor, k: IdempotencyKey) {
  return db.selectFrom('idempotency_records').selectAll().where('scope', '=', k.scope).where('key', '=', k.key).executeTakeFirst();
}

/** Removes the record, only if it is still the one created at `createdAt` (not a newer claim). */
export async function deleteKeyCreatedAt(db: Executor, k: IdempotencyKey, createdAt: Date): Promise<void> {
  await db
    .deleteFrom('idempotency_records')
    .where('scope', '=', k.scope)
    .where('key', '=', k.key)
    .where('created_at', '=', createdAt)
    .execute();
}

export async function deleteKey(db: Executor, k: IdempotencyKey): Promise<void> {
  await db.deleteFrom('idempotency_records').where('scope', '=', k.scope).where('key', '=', k.key).execute();
}

export async function storeResponse(db: Executor, k: IdempotencyKey, status: number, bodyJson: string): Promise<void> {
  await db
    .updateTable('idempotency_records')
    .set({ status: 'done', response_status: status, response_body: bodyJson })
    .where('scope', '=', k.scope)
    .where('key', '=', k.key)
    .execute();
}
