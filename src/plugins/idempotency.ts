import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sha256 } from '../lib/crypto.js';
import { AppError } from '../lib/errors.js';
import { z } from 'zod';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency?: { scope: string; key: string };
  }
  interface FastifyContextConfig {
    /** The route this one is an alias of: one operation, so one fingerprint (plan-change aliases). */
    aliasOf?: string;
  }
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * The Idempotency-Key request header of a route with the `idempotent` hook: one schema, the text (and
 * example) each route gives it.
 */
export function idempotencyKeyHeader(description: string, example?: string) {
  const key = z.string().min(1).max(255).optional().describe(description);
  return z.looseObject({ 'idempotency-key': example === undefined ? key : key.meta({ example }) });
}

function scopeOf(request: FastifyRequest): string | null {
  if (request.apiKey) return `key:${request.apiKey.prefix}`;
  if (request.webhookProvider) return `whs:${request.webhookProvider.prefix}`;
  if (request.user) return `user:${request.user.userId}`;
  return null;
}

// The partner routers are mounted at `/` and again under `/api/v1`: one route, so one fingerprint
// (a retry through the other mount, or through an alias path, replays instead of answering 422).
const MIRROR_PREFIX = /^\/api\/v1(?=\/)/;
const routeOf = (request: FastifyRequest) =>
  (request.routeOptions.config?.aliasOf ?? request.routeOptions.url ?? request.url).replace(MIRROR_PREFIX, '');

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
  if (key === undefined || !KEY_RE.test(key))
    throw new AppError(400, 'bad_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  const scope = scopeOf(request);
  if (!scope) return;
  const fingerprint = sha256(
    `${request.method} ${routeOf(request)} ${JSON.stringify(request.params ?? {})} ${JSON.stringify(request.body ?? null)}`,
  );
  const claim = await request.server.services.idempotency.claim({ scope, key }, fingerprint);
  if (claim.claimed) {
    request.idempotency = { scope, key };
    return;
  }
  reply.header('idempotent-replayed', 'true');
  await reply.code(claim.status).send(claim.body);
}

export function registerIdempotencyStore(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    const { idempotency } = request.server.services;
    if (reply.statusCode >= 500) {
      await idempotency.release(claim).catch(() => undefined);
      return payload;
    }
    let body: unknown;
    try {
      body = typeof payload === 'string' ? JSON.parse(payload) : null;
    } catch {
      body = null;
    }
    await idempotency
      .finish(claim, reply.statusCode, JSON.stringify(body))
      .catch((err: unknown) => request.log.error({ err }, 'could not store the idempotent response'));
    return payload;
  });
}
