// One MCP tool call, with the rules its route applies, in the route's order:
//   rate limit (the route's own bucket) → owned customer (404 before anything else) → validation
//   (the route's zod schemas) → verified session → the service call → the route's response schema.
// Every failure is a tool error (isError) carrying the /agent envelope, so the agent branches on
// the same `code` as over HTTP.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, RateLimitError, rateLimitExceeded, type ValidationDetail } from '../../lib/errors.js';
import { actorOf } from '../../plugins/auth.js';
import { customerNotFound } from '../../modules/subscribers/subscriber.errors.js';
import { sessionTokenHash } from '../../modules/verification/verification.service.js';
import { normaliseError } from '../../plugins/error-handlers.js';
import { findUnstorableText } from '../../plugins/text-input.js';
import type { Operation } from './mcp.catalogue.js';
import { servicesOf, TOOLS, type ToolInput } from './mcp.tools.js';
import { assertVerifiedSession } from './verified-session.js';

type Limiter = ReturnType<NonNullable<FastifyInstance['createRateLimit']>>;
const limiters = new WeakMap<object, Limiter>();

/** Counts the call in its route's bucket (same name, same API-key prefix); throws the 429 of the route. */
async function countCall(app: FastifyInstance, op: Operation, request: FastifyRequest) {
  if (!op.rateLimit || !app.hasDecorator('createRateLimit')) return;
  let limiter = limiters.get(op.rateLimit);
  if (!limiter) limiters.set(op.rateLimit, (limiter = app.createRateLimit!(op.rateLimit as never)));
  const r = await limiter(request);
  if (!r.isAllowed && r.isExceeded) throw rateLimitExceeded(r.ttlInSeconds);
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The arguments as the route's parts: path parameters (renamed back), querystring and body. */
function split(op: Operation, args: Record<string, unknown>) {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  const paramArg = new Map(Object.entries(op.paramArgs).map(([k, a]) => [a, k]));
  const queryKeys = new Set(op.querystring instanceof z.ZodObject ? Object.keys(op.querystring.shape) : []);
  for (const [k, v] of Object.entries(args)) {
    if (k === 'verified_session') continue;
    if (paramArg.has(k)) params[paramArg.get(k)!] = v;
    else if (queryKeys.has(k)) query[k] = v;
    else body[k] = v;
  }
  return { params, query, body };
}

function validate(op: Operation, parts: ReturnType<typeof split>) {
  const details: ValidationDetail[] = [];
  const parse = (schema: z.ZodType | undefined, value: Record<string, unknown>, part: string, rename: (k: string) => string = (k) => k) => {
    if (!schema) return value;
    const r = schema.safeParse(value);
    if (r.success) return r.data as Record<string, unknown>;
    for (const issue of r.error.issues) {
      const path = issue.path.map(String);
      details.push({ field: path.length ? [rename(path[0]!), ...path.slice(1)].join('.') : part, message: issue.message });
    }
    return value;
  };
  const params = parse(op.params, parts.params, 'params', (k) => op.paramArgs[k] ?? k);
  const query = parse(op.querystring, parts.query, 'querystring');
  const body = parse(op.body, parts.body, 'body');
  if (details.length) throw new AppError(400, 'validation_error', 'Request validation failed', { details });
  return { params: params as Record<string, string>, query, body };
}

/** Runs tool `op` for the API key of `request` (the POST /agent/mcp it came in). */
export async function callTool(
  app: FastifyInstance,
  request: FastifyRequest,
  op: Operation,
  rawArgs: unknown,
  words: (s: string) => string,
): Promise<CallToolResult> {
  const startedAt = Date.now();
  try {
    await countCall(app, op, request);
    const args = (rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? rawArgs : {}) as Record<string, unknown>;
    const unstorable = findUnstorableText(args);
    if (unstorable !== null) {
      throw new AppError(400, 'validation_error', 'Request validation failed', {
        details: [
          {
            field: unstorable.replace(/^\//, '').replaceAll('/', '.') || 'body',
            message: 'must not contain U+0000 or unpaired surrogates',
          },
        ],
      });
    }
    const providerId = request.apiKey!.providerId;
    const session = text(args.verified_session) || undefined;
    const parts = split(op, args);

    // Another provider's (or an unknown, or a malformed) customer id: 404 before anything else.
    let owner: { id: string; providerId: string; session?: Parameters<typeof assertVerifiedSession>[0]['session'] } | undefined;
    if ('customerId' in op.paramArgs) {
      const raw = text(parts.params.customerId)?.toLowerCase() ?? '';
      const found = await app.services.customerOwnership.findOwned(
        providerId,
        raw,
        (session && sessionTokenHash(session)) || null,
        'agent_owned_customer',
      );
      if (!found) throw customerNotFound();
      owner = { id: found.customer.id, providerId, session: found.session };
    }
    const valid = validate(op, parts);
    if (op.verified) assertVerifiedSession(owner!, session, app.services.customerOwnership.judgeSession);

    const spec = TOOLS[op.operationId]!;
    const input: ToolInput = { ...valid, customerId: owner?.id ?? '', session: spec.session ? session : undefined };
    const result = await spec.run(
      {
        request,
        services: servicesOf(app),
        providerId,
        caller: { ...actorOf(request), providerId, requestId: String(request.id) },
        startedAt,
      },
      input,
    );
    // As the route's serializer does: the response schema decides what leaves (unknown keys dropped).
    const parsed = op.response.safeParse(result);
    if (!parsed.success) {
      request.log.error({ err: parsed.error, tool: op.tool }, 'tool result did not match its response schema');
      throw new AppError(500, 'internal_error', 'Internal server error');
    }
    const structured = JSON.parse(JSON.stringify(parsed.data ?? {})) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    return toolError(err, request, words);
  }
}

/** The /agent envelope as a tool error; a 429 carries `rate_limited` (over HTTP it has no envelope). */
function toolError(err: unknown, request: FastifyRequest, words: (s: string) => string): CallToolResult {
  const n =
    err instanceof RateLimitError ? { code: 'rate_limited', message: err.body.message, details: undefined } : normaliseError(err, request);
  const error = { code: n.code, message: words(n.message), request_id: String(request.id), ...(n.details ? { details: n.details } : {}) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}
