// Every response an operation declares carries an example in its OpenAPI: a whole, realistic body for
// a 2xx (shaped like the demo data, never generated from the schema's bounds), and one named example
// per code for an error status. A surface keeps its examples in one map by operationId (next to its
// routes) and registers `useExamples(app, map)`; statuses every route shares (the credential checks'
// 401/403, 429, /agent's 500) fall back to the defaults below. test/foundation/openapi-examples.test.ts
// fails when a declared status has no example or an example does not match its own schema.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';
import type { ErrorCode } from '../lib/errors.js';
import { ERRORS, withNextStep } from '../lib/errors.catalogue.js';
import { routeCredentials, type Scheme } from './route-contract.js';

/** An /agent error an operation can answer: a code (sent with its usual message) or a code with the message of this case. */
export type AgentErrorCase = ErrorCode | { code: ErrorCode; message: string; details?: { field: string; message: string }[] };
/** A partner error: a name for the case and what `detail` says (a string, or the nested object of a 410; an HTML page's text). */
interface PartnerErrorCase {
  name: string;
  detail: unknown;
}

/** The error statuses a route declares, each with the /agent codes it lists (null: any code, or none: a partner body). */
type DeclaredErrors = Record<string, string[] | null>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route's error responses declare (set with its examples); the tests hold every answer to it. */
    declaredErrors?: DeclaredErrors;
    /** /agent: codes a route answers only to its MCP tool, by status (not in the HTTP document). */
    toolOnlyErrors?: Record<string, string[]>;
  }
}

/** An operation's examples by status: the body of a 2xx; the cases of an error status. */
type OperationExamples = Record<number, unknown>;
export type ExampleMap = Record<string, OperationExamples>;

const EXAMPLE_REQUEST_ID = 'req_Xb3kZ8cW1q0bJvA2';

const VALIDATION_DETAILS = [{ field: 'customer_id', message: 'must be a UUID' }];

function agentErrorBody(c: AgentErrorCase) {
  const { code, message, details } = typeof c === 'string' ? { code: c, message: ERRORS[c].usual, details: undefined } : c;
  if (message === undefined) throw new Error(`openapi examples: give the message of ${code} (no usual one)`);
  const d = details ?? (code === 'validation_error' ? VALIDATION_DETAILS : undefined);
  return { error: { code, message: withNextStep(code, message), request_id: EXAMPLE_REQUEST_ID, ...(d ? { details: d } : {}) } };
}

const RATE_LIMITED = { statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded, retry in 1 minute' };

/** What a credential check answers, per surface: the codes of /agent, the `detail` of the partner routes. */
const AGENT_CREDENTIAL_CASES: Partial<Record<Scheme, Partial<Record<number, AgentErrorCase[]>>>> = {
  apiKey: { 403: ['invalid_api_key', 'feature_not_enabled'] },
  verifiedSession: { 401: ['verification_required', 'session_invalid'], 403: ['session_customer_mismatch'] },
};
const PARTNER_CREDENTIAL_CASES: Partial<Record<Scheme, Partial<Record<number, PartnerErrorCase[]>>>> = {
  apiKey: {
    401: [{ name: 'not_authenticated', detail: 'Not authenticated' }],
    403: [{ name: 'invalid_credentials', detail: 'Invalid credentials' }],
  },
  webhookSecret: {
    401: [{ name: 'not_authenticated', detail: 'Not authenticated' }],
    403: [{ name: 'invalid_credentials', detail: 'Invalid credentials' }],
  },
  bearer: {
    401: [{ name: 'not_authenticated', detail: 'Not authenticated' }],
    403: [
      { name: 'invalid_credentials', detail: 'Invalid credentials' },
      { name: 'forbidden', detail: 'Not permitted for this account' },
    ],
  },
  adminToken: {
    401: [{ name: 'not_authenticated', detail: 'Not authenticated' }],
    403: [
      { name: 'invalid_credentials', detail: 'Invalid credentials' },
      { name: 'forbidden', detail: 'Only the platform operator may do this' },
    ],
  },
};

// What a route with a JSON body answers before its handler (plugins/json-body.ts, route-contract.ts).
const BODY_CASES: Record<number, { agent: AgentErrorCase; partner: PartnerErrorCase }> = {
  400: {
    agent: { code: 'bad_request', message: 'Malformed JSON body' },
    partner: { name: 'malformed_json', detail: 'Malformed JSON body' },
  },
  413: {
    agent: { code: 'bad_request', message: 'Request body is too large' },
    partner: { name: 'body_too_large', detail: 'Request body is too large' },
  },
};

/** A partner route's first validated field (params, then query, then body), for its generic 422 example. */
function firstField(route: RouteOptions): string {
  const schema = route.schema as Record<string, unknown> | undefined;
  for (const part of ['params', 'querystring', 'body']) {
    const s = schema?.[part];
    if (s instanceof z.ZodObject) {
      const key = Object.keys(s.shape)[0];
      if (key) return key;
    }
  }
  return 'body';
}

function defaultCases(route: RouteOptions, status: number, agent: boolean): unknown[] | undefined {
  if (agent && status === 500) return ['internal_error'];
  const body = BODY_CASES[status];
  if (body) return [agent ? body.agent : body.partner];
  if (!agent && status === 415) return [{ name: 'unsupported_content_type', detail: 'Unsupported content type; send application/json' }];
  if (!agent && status === 422) return [{ name: 'validation_failed', detail: `${firstField(route)}: Invalid input` }];
  const table = agent ? AGENT_CREDENTIAL_CASES : PARTNER_CREDENTIAL_CASES;
  const cases = routeCredentials(route).flatMap((c) => {
    const own = (table[c.scheme]?.[status] ?? []) as unknown[];
    // A partner key checked for a scope says which in its 403 text (plugins/auth.ts).
    const scope = agent ? null : /lacks the (\w+) scope/.exec(c.statuses[403] ?? '')?.[1];
    return status === 403 && scope ? [...own, { name: 'feature_not_enabled', detail: `API key lacks the ${scope} scope` }] : own;
  });
  const seen = new Set<string>();
  const unique = cases.filter((c) => {
    const key = JSON.stringify(c);
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return unique.length ? unique : undefined;
}

type AnySchema = z.ZodType | Record<string, unknown>;
const isZod = (s: AnySchema): s is z.ZodType => s instanceof z.ZodType;
const isText = (s: AnySchema) => (isZod(s) ? s.def.type === 'string' : s.type === 'string');

/** `schema` with `meta` added: a zod schema keeps its description (zod inherits it), a JSON schema is copied. */
const annotate = (s: AnySchema, meta: Record<string, unknown>): AnySchema => (isZod(s) ? s.meta(meta) : { ...s, ...meta });

function named(
  status: number,
  cases: unknown[] | undefined,
  agent: boolean,
  text: boolean,
): Record<string, { summary: string; value: unknown }> {
  if (!cases) return { rate_limited: { summary: 'Rate limited: wait Retry-After seconds, then retry', value: RATE_LIMITED } };
  return Object.fromEntries(
    cases.map((c) => {
      if (agent) {
        const value = agentErrorBody(c as AgentErrorCase);
        const step = ERRORS[value.error.code].next;
        return [value.error.code, { summary: `${value.error.code}: ${step.action.replace('_', ' ')}, ${step.text}`, value }];
      }
      const p = c as PartnerErrorCase;
      return [
        p.name,
        {
          summary: typeof p.detail === 'string' && !text ? p.detail : p.name.replaceAll('_', ' '),
          value: text ? p.detail : { detail: p.detail },
        },
      ];
    }),
  );
}

/** Sets the examples of one route's responses from `map` (and the shared defaults). */
function applyExamples(route: RouteOptions, map: ExampleMap) {
  const schema = route.schema as { hide?: boolean; operationId?: string; response?: Record<string, AnySchema> } | undefined;
  if (!schema?.response || schema.hide || !schema.operationId) return;
  const agent = route.url === '/agent' || route.url.startsWith('/agent/');
  const own = map[schema.operationId] ?? {};
  const response = { ...schema.response };
  const declared: DeclaredErrors = {};
  for (const [key, s] of Object.entries(response)) {
    const status = Number(key);
    if (status < 400) {
      if (status in own) response[key] = annotate(s, { examples: [own[status]] });
      continue;
    }
    // A 429 is the limiter's standard body unless the route says otherwise (a login lockout answers {detail}).
    const cases = (own[status] as unknown[] | undefined) ?? defaultCases(route, status, agent);
    if (cases || status === 429) response[key] = annotate(s, { 'x-examples': named(status, cases, agent, isText(s)) });
    declared[key] = agent && cases ? cases.map((c) => (typeof c === 'string' ? c : (c as { code: string }).code)) : null;
  }
  schema.response = response;
  route.config = { ...(route.config ?? {}), declaredErrors: declared };
}

/** Applies `map` to every route registered in this scope from now on (after the route contract added its statuses). */
export function useExamples(app: FastifyInstance, map: ExampleMap) {
  app.addHook('onRoute', (route) => applyExamples(route, map));
}
