// One MCP tool call is one request to its route, made in process (app.inject) with the caller's
// credentials (the API key of the POST /agent/mcp, the `verified_session` argument as
// X-Verified-Session) and the same request id. The route's own hooks and handler run, in the route's
// order: its rate limit (the route's bucket of the same key), ownership, validation, verified
// session, idempotency, the service call and its response schema. A hook added to a route holds for
// its tool without a second edit. Every failure is a tool error (isError) carrying the /agent
// envelope the route answered, so the agent branches on the same `code` as over HTTP.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { agentMessage, normaliseError } from '../../plugins/error-handlers.js';
import { findUnstorableText } from '../../plugins/text-input.js';
import type { Operation } from './mcp.catalogue.js';
import { UNTRUSTED_META_KEY, untrustedPointers } from './mcp.untrusted.js';
import { asToolCall } from './tool-call.js';

type Args = Record<string, unknown>;
type LightResponse = Awaited<ReturnType<FastifyInstance['inject']>>;

/** A query value as a URL writes it: scalars as text, an array as repeated keys, an object as its JSON. */
const queryText = (v: unknown) => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The route's request of a call of `op` with `args`: path parameters (renamed back), querystring and body. */
function requestOf(op: Operation, args: Args) {
  const argParam = new Map(Object.entries(op.paramArgs).map(([k, a]) => [a, k]));
  const queryKeys = new Set(op.querystring instanceof z.ZodObject ? Object.keys(op.querystring.shape) : []);
  const query = new URLSearchParams();
  const body: Args = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'verified_session' || argParam.has(k)) continue;
    if (queryKeys.has(k)) for (const x of [v].flat()) query.append(k, queryText(x));
    else body[k] = v;
  }
  const path = op.url.replace(/:(\w+)/g, (_, k: string) => {
    const v = args[op.paramArgs[k] ?? k];
    const segment = encodeURIComponent(v === undefined ? '' : typeof v === 'string' ? v : queryText(v));
    // A URL resolves `.` and `..` (the route would see another path); no id is either, so '...' answers alike.
    return segment === '.' || segment === '..' ? '...' : segment;
  });
  const search = query.toString();
  return { url: search ? `${path}?${search}` : path, body: op.method === 'GET' ? undefined : body };
}

/** Runs tool `op` for the API key of `request` (the POST /agent/mcp it came in). */
export async function callTool(
  app: FastifyInstance,
  request: FastifyRequest,
  op: Operation,
  rawArgs: unknown,
  words: (s: string) => string,
): Promise<CallToolResult> {
  try {
    const args = (rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? rawArgs : {}) as Args;
    // Every argument, verified_session (a header to the route) included, as the route's validators see a part.
    const unstorable = findUnstorableText(args);
    if (unstorable !== null) {
      const field = unstorable.replace(/^\//, '').replaceAll('/', '.') || 'body';
      throw new AppError(400, 'validation_error', 'Request validation failed', {
        details: [{ field, message: 'must not contain U+0000 or unpaired surrogates' }],
      });
    }
    const { url, body } = requestOf(op, args);
    const headers: Record<string, string> = { 'x-request-id': String(request.id) };
    const key = request.headers['x-api-key'];
    if (typeof key === 'string') headers['x-api-key'] = key;
    const session = args.verified_session;
    if (typeof session === 'string' && session) headers['x-verified-session'] = session;
    const options = { method: op.method as 'GET', url, headers, remoteAddress: request.ip, ...(body ? { payload: body } : {}) };
    // With a callback the request starts here, inside the tool call's context (the promise form starts on `then`).
    const answer = await asToolCall(
      op.tool,
      () =>
        new Promise<LightResponse>(
          (resolve, reject) =>
            void app.inject(options, (err, res) => (err || !res ? reject(err ?? new Error('inject gave no response')) : resolve(res))),
        ),
    );
    const json = parseJson(answer.body);
    if (answer.statusCode >= 400) return toolError(envelopeOf(answer.statusCode, json, request, op), words);
    const structured = (json ?? {}) as Args;
    // The strings a customer, buyer or caller wrote, as JSON Pointers: data to fence, never instructions.
    const untrusted = untrustedPointers(op.response, structured);
    return {
      content: [{ type: 'text', text: JSON.stringify(structured) }],
      structuredContent: structured,
      ...(untrusted.length ? { _meta: { [UNTRUSTED_META_KEY]: untrusted } } : {}),
    };
  } catch (err) {
    const n = normaliseError(err, request);
    const details = n.details ? { details: n.details } : {};
    return toolError({ code: n.code, message: agentMessage(n), request_id: String(request.id), ...details, ...n.fields }, words);
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

interface Envelope {
  code: ErrorCode;
  message: string;
  request_id: string;
  details?: { field: string; message: string }[];
  [field: string]: unknown;
}

/**
 * The route's error as the envelope: its own envelope (a validation error names a path parameter
 * as the tool's argument), or, for the limiter's 429 (no envelope over HTTP), `rate_limited`.
 */
function envelopeOf(status: number, json: unknown, request: FastifyRequest, op: Operation): Envelope {
  const error = (json as { error?: Envelope } | undefined)?.error;
  if (error && typeof error.code === 'string') {
    if (!error.details) return error;
    const details = error.details.map((d) => {
      const [first = '', ...rest] = d.field.split('.');
      return first in op.paramArgs ? { ...d, field: [op.paramArgs[first], ...rest].join('.') } : d;
    });
    return { ...error, details };
  }
  const limited = json as { statusCode?: unknown; message?: unknown } | undefined;
  if (status === 429 && typeof limited?.message === 'string') {
    const message = agentMessage({ code: 'rate_limited', message: limited.message });
    return { code: 'rate_limited', message, request_id: String(request.id) };
  }
  request.log.error({ status, tool: op.tool }, 'tool call answered without the /agent envelope');
  return {
    code: 'internal_error',
    message: agentMessage({ code: 'internal_error', message: 'Internal server error' }),
    request_id: String(request.id),
  };
}

/** The /agent envelope as a tool error, its message (next step included) in the tools' words (issue 31 §6). */
function toolError(envelope: Envelope, words: (s: string) => string): CallToolResult {
  const error = { ...envelope, message: words(envelope.message) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}
