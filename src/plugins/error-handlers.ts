import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, RateLimitError, type ErrorCode, type NextStep, type ValidationDetail } from '../lib/errors.js';
import { withNextStep } from '../lib/errors.catalogue.js';

// Connection-level database failures: the request fails cleanly with 503 and the pool recovers.
const DB_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  '53300',
]);

interface Normalised {
  status: number;
  code: ErrorCode;
  message: string;
  detail?: unknown;
  details?: ValidationDetail[];
  headers?: Record<string, string>;
  next?: NextStep;
  fields?: Record<string, string>;
}

function validationDetails(err: FastifyError): ValidationDetail[] {
  const context = err.validationContext ?? 'body';
  if (hasZodFastifySchemaValidationErrors(err)) {
    return err.validation.map((v: { instancePath: string; message?: string }) => {
      const path = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
      return { field: path || context, message: v.message ?? 'is invalid' };
    });
  }
  return [{ field: context, message: err.message }];
}

/** The database refused or lost the connection: by SQLSTATE, or by the driver's own connection errors. */
const isDatabaseUnavailable = (e: { code?: string } | undefined) =>
  (e && typeof e.code === 'string' && DB_UNAVAILABLE.has(e.code)) ||
  (e instanceof Error && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e.message));

/** Turns anything thrown into a status, a stable code and a client-safe message. */
export function normaliseError(err: unknown, request: FastifyRequest): Normalised {
  if (err instanceof AppError) {
    return { status: err.status, code: err.code, message: err.message, ...err.extra };
  }
  const e = err as FastifyError & { code?: string };
  if (e && e.validation) {
    const details = validationDetails(e);
    return { status: 400, code: 'validation_error', message: 'Request validation failed', details };
  }
  if (isResponseSerializationError(err)) {
    request.log.error({ err }, 'response did not match its schema');
    return { status: 500, code: 'internal_error', message: 'Internal server error' };
  }
  if (isDatabaseUnavailable(e)) {
    request.log.error({ err }, 'database unavailable');
    return {
      status: 503,
      code: 'service_unavailable',
      message: 'Service temporarily unavailable, retry shortly',
      headers: { 'retry-after': '5' },
    };
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own client errors: malformed JSON, wrong content type, body too large, ...
    const code: ErrorCode = status === 404 ? 'not_found' : status === 429 ? 'rate_limited' : 'bad_request';
    const message =
      e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'Unsupported content type; send application/json'
        : e.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'Request body is too large'
          : e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? 'Body cannot be empty when content-type is application/json'
            : e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError
              ? 'Malformed JSON body'
              : e.message || 'Bad request';
    return { status, code, message };
  }
  request.log.error({ err }, 'unhandled error');
  return { status: 500, code: 'internal_error', message: 'Internal server error' };
}

function sendRateLimit(err: RateLimitError, reply: FastifyReply) {
  return plain(reply).code(429).header('retry-after', String(err.retryAfterSeconds)).send(err.body);
}

/**
 * Error bodies are written as plain JSON, not through the route's response schemas: an error path
 * must never turn into a serialization failure of its own.
 */
function plain(reply: FastifyReply): FastifyReply {
  return reply.serializer((body: unknown) => JSON.stringify(body)).type('application/json; charset=utf-8');
}

const AGENT_OPERATIONS: Record<NextStep['operation'], string> = {
  verifyIssue: 'POST /agent/verify/issue',
  customerSearch: 'GET /agent/customers/search',
};

/** The /agent envelope's `message` of a normalised error: its text, the operation it names, then the code's next step. */
export function agentMessage(n: { code: ErrorCode; message: string; next?: NextStep }): string {
  return withNextStep(n.code, n.next ? `${n.message}; ${n.next.say} ${AGENT_OPERATIONS[n.next.operation]}` : n.message);
}

/** /agent: every error is `{error: {code, message, request_id, details?}}`; `message` ends with the code's next step. */
export function useAgentErrors(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    if (err instanceof RateLimitError) return sendRateLimit(err, reply);
    const n = normaliseError(err, request);
    if (n.headers) reply.headers(n.headers);
    return plain(reply)
      .code(n.status)
      .send({
        error: {
          code: n.code,
          message: agentMessage(n),
          request_id: String(request.id),
          ...(n.details ? { details: n.details } : {}),
          ...n.fields,
        },
      });
  });
  app.setNotFoundHandler((request, reply) => unmatchedAnswer(request, reply, []));
}

/**
 * The answer to a request that matches no route, in its surface's shape: 404, or 405 with `Allow`
 * when the path exists with other methods (`allow`, from plugins/unmatched.ts).
 */
export function unmatchedAnswer(request: FastifyRequest, reply: FastifyReply, allow: string[]) {
  const path = request.url.split('?')[0]!;
  const agent = path === '/agent' || path.startsWith('/agent/');
  if (allow.length) reply.header('allow', allow.join(', '));
  const status = allow.length ? 405 : 404;
  if (!agent)
    return plain(reply)
      .code(status)
      .send({ detail: allow.length ? 'Method Not Allowed' : 'Not Found' });
  const code: ErrorCode = allow.length ? 'method_not_allowed' : 'not_found';
  const message = allow.length
    ? `Method ${request.method} not allowed on ${path}; allowed: ${allow.join(', ')}`
    : `Route ${request.method} ${path} not found`;
  return plain(reply)
    .code(status)
    .send({ error: { code, message: withNextStep(code, message), request_id: String(request.id) } });
}

/** Partner surface: `{detail}`; validation answers 422 with "<field>: <what is wrong>". */
export function usePartnerErrors(app: FastifyInstance) {
  app.setErrorHandler((err, request, reply) => {
    if (err instanceof RateLimitError) return sendRateLimit(err, reply);
    const n = normaliseError(err, request);
    if (n.headers) reply.headers(n.headers);
    if (n.code === 'validation_error') {
      const d = n.details?.[0];
      return plain(reply)
        .code(422)
        .send({ detail: d ? `${d.field}: ${d.message}` : n.message });
    }
    return plain(reply)
      .code(n.status)
      .send({ detail: n.detail ?? n.message });
  });
}

export function partnerNotFound(app: FastifyInstance) {
  app.setNotFoundHandler((request, reply) => unmatchedAnswer(request, reply, []));
}
