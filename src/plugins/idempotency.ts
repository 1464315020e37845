import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../lib/crypto.js';
import { AppError } from '../lib/errors.js';
import { bytesEqual } from '../lib/crypto.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { scope: string; key: string };
  }
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const TTL_MS = 24 * 3600_000;
// A record still "running" after this long belongs to a request whose process died: take it over.
const ABANDONED_MS = 60_000;

function scopeOf(request: FastifyRequest): string | null {
  if (request.apiKey) return `key:${request.apiKey.prefix}`;
  if (request.webhookProvider) return `whs:${request.webhookProvider.prefix}`;
  if (request.user) return `user:${request.user.userId}`;
  return null;
}

// The partner routers are mounted at `/` and again under `/api/v1`: one route, so one fingerprint
// (a retry through the other mount replays instead of answering 422).
const MIRROR_PREFIX = /^\/api\/v1(?=\/)/;
const routeOf = (request: FastifyRequest) => (request.routeOptions.url ?? request.url).replace(MIRROR_PREFIX, '');

/**
 * Idempotency-Key (decisions.md): same key + same request within 24 h replays the stored status
 * and body; same key with another request answers 422; while the first is still running, 409.
 * Keys are scoped to the credential. Put this hook LAST in a route's preHandler list, after auth.
 *
 * The stored response is written after the handler's transaction commits; a process dying
 * between the two leaves a "running" record that is taken over after a minute (documented).
 */
export async function idempotent(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (!KEY_RE.test(key)) throw new AppError(400, 'bad_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  const scope = scopeOf(request);
  if (!scope) return;
  const { db, clock } = request.server.deps;
  const now = clock.now();
  const fingerprint = sha256(`${request.method} ${routeOf(request)} ${JSON.stringify(request.params ?? {})} ${JSON.stringify(request.body ?? null)}`);

  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('idempotency_records')
      .values({ scope, key, request_hash: fingerprint, status: 'running', created_at: now, expires_at: new Date(now.getTime() + TTL_MS) })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (inserted) {
      request.idempotency = { scope, key };
      return;
    }
    const existing = await db.selectFrom('idempotency_records').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
    if (!existing) continue; // deleted between the two statements: try again
    const expired = existing.expires_at.getTime() <= now.getTime();
    const abandoned = existing.status === 'running' && now.getTime() - existing.created_at.getTime() > ABANDONED_MS;
    if (expired || abandoned) {
      await db.deleteFrom('idempotency_records').where('scope', '=', scope).where('key', '=', key)
        .where('created_at', '=', existing.created_at).execute();
      continue;
    }
    if (!bytesEqual(existing.request_hash, fingerprint)) {
      throw new AppError(422, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request');
    }
    if (existing.status === 'running') {
      throw new AppError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly');
    }
    reply.header('idempotent-replayed', 'true');
    await reply.code(existing.response_status ?? 200).send(existing.response_body);
    return;
  }
  throw new AppError(409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still in progress; retry shortly');
}

/** Stores the outcome of a request that claimed a key; a 5xx releases the key so a retry runs again. */
export function registerIdempotencyStore(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    const { db } = request.server.deps;
    const where = db.deleteFrom('idempotency_records').where('scope', '=', claim.scope).where('key', '=', claim.key);
    if (reply.statusCode >= 500) {
      await where.execute().catch(() => undefined);
      return payload;
    }
    let body: unknown = null;
    try {
      body = typeof payload === 'string' ? JSON.parse(payload) : null;
    } catch {
      body = null;
    }
    await db.updateTable('idempotency_records')
      .set({ status: 'done', response_status: reply.statusCode, response_body: JSON.stringify(body) })
      .where('scope', '=', claim.scope).where('key', '=', claim.key)
      .execute()
      .catch((err: unknown) => request.log.error({ err }, 'could not store the idempotent response'));
    return payload;
  });
}
