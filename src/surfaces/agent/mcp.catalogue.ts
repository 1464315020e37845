// The /agent operations as MCP tools, read from the registered routes themselves (app.routeTable):
// a tool's name is the route's operationId in snake case, its title the summary, its description
// the route's description in the tool's own words, and its arguments the route's own zod schemas
// (params, querystring and body merged into one object). Nothing here is written twice: a route
// that changes its schema or text changes its tool with it.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { routeCredentials } from '../../plugins/route-contract.js';

export interface Operation {
  method: string;
  /** The route's path under the app, e.g. `/agent/customers/:customerId`. */
  url: string;
  operationId: string;
  tool: string;
  title: string;
  /** The tool's description (derived from the route's, see toolDescription). */
  description: string;
  /** The route demands X-Verified-Session (its hooks check the verifiedSession credential). */
  verified: boolean;
  /** Path parameter as the route names it → argument name (`customerId` → `customer_id`). */
  paramArgs: Record<string, string>;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** The 2xx answer's schema (its x-untrusted fields are listed in the tool result's _meta). */
  response: z.ZodType;
}

interface RouteSchema {
  operationId?: string;
  summary?: string;
  description?: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  response?: Record<string, unknown>;
  hide?: boolean;
}

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The agent surface's operations (the MCP endpoint itself excluded), in registration order. */
export function agentOperations(app: FastifyInstance): Operation[] {
  const ops: Operation[] = [];
  for (const r of app.routeTable) {
    const schema = r.options.schema as RouteSchema | undefined;
    if (!r.url.startsWith('/agent/') || !schema?.operationId || schema.hide) continue;
    const shapeOf = (t?: z.ZodType) => (t instanceof z.ZodObject ? (t.shape as Record<string, unknown>) : {});
    const paramArgs = Object.fromEntries(Object.keys(shapeOf(schema.params)).map((k) => [k, snake(k)]));
    const [, response] = Object.entries(schema.response ?? {}).find(([s]) => s.startsWith('2')) ?? ['200', z.unknown()];
    ops.push({
      method: r.method,
      url: r.url,
      operationId: schema.operationId,
      tool: snake(schema.operationId),
      title: schema.summary ?? schema.operationId,
      description: schema.description ?? '',
      verified: routeCredentials(r.options).some((c) => c.scheme === 'verifiedSession'),
      paramArgs,
      params: schema.params,
      querystring: schema.querystring,
      body: schema.body,
      response: response as z.ZodType,
    });
  }
  const words = mcpWords(ops);
  for (const op of ops) op.description = toolDescription(op, words);
  return ops;
}

/**
 * The HTTP surface's words in a text (an operation's description, an error's message) turned into
 * the tool's: `POST /agent/verify/check` → `check_verification_code`, the X-Verified-Session header
 * → the `verified_session` argument.
 */
export function mcpWords(ops: Operation[]): (text: string) => string {
  const names = ops
    .flatMap((op) => {
      const braces = op.url.replace(/:(\w+)/g, '{$1}');
      return [`${op.method} ${braces}`, `${op.method} ${op.url}`].map((k) => [k, `\`${op.tool}\``] as const);
    })
    .sort((a, b) => b[0].length - a[0].length);
  return (text) => {
    let out = text;
    for (const [http, tool] of names) out = out.split(http).join(tool);
    return out.replace(/`?X-Verified-Session`?( header)?/g, '`verified_session`').replace(/`?X-API-Key`?/g, 'the API key');
  };
}

function toolDescription(op: Operation, words: (text: string) => string): string {
  // describeRoute() puts the operation's own text first and the HTTP notes (headers, envelope,
  // 429 body) after a blank line: the tool keeps the first and says its own notes instead.
  const own = op.description.split('\n\n')[0] ?? '';
  // Idempotency-Key is a header of the HTTP surface; a tool call has no such argument.
  const sentences = words(own)
    .split(/(?<=\.)\s+/)
    .filter((s) => !/Idempotency-Key/.test(s));
  const notes = [
    op.verified
      ? 'Verified: pass `verified_session` (from `check_verification_code`) of this very customer; a customer id not of your provider fails with customer_not_found before any session check.'
      : '',
    'Errors come back as a tool error (isError) whose structuredContent is `{error: {code, message, request_id}}`, the HTTP envelope: branch on `code`. `rate_limited`: back off and retry later.',
  ].filter(Boolean);
  return [op.title, sentences.join(' '), notes.join(' ')].filter(Boolean).join('\n\n');
}

/** The JSON Schema a tool lists: the route's params (renamed), querystring and body as one object. */
export function inputJsonSchema(op: Operation, session: 'required' | 'optional' | 'none', requires: string[] = []) {
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  const add = (t: z.ZodType | undefined, rename: (k: string) => string = (k) => k) => {
    if (!t) return;
    const json = z.toJSONSchema(t, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [k, v] of Object.entries(json.properties ?? {})) properties[rename(k)] = v;
    for (const k of json.required ?? []) required.add(rename(k));
  };
  add(op.params, (k) => op.paramArgs[k] ?? k);
  add(op.querystring);
  add(op.body);
  if (session !== 'none') {
    properties.verified_session = {
      type: 'string',
      minLength: 1,
      description:
        session === 'required'
          ? 'The `verified_session` that `check_verification_code` answered for this customer (valid 15 minutes)'
          : 'Optional: the `verified_session` of customer_id, when the caller was verified (the ticket is then listed as caller_verified)',
    };
    if (session === 'required') required.add('verified_session');
  }
  for (const k of requires) required.add(k);
  return { type: 'object' as const, properties, required: [...required] };
}
