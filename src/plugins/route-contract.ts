// What a route enforces, told to its OpenAPI operation: the credentials its hooks check become the
// operation's `security` and 401/403 responses, its rate limit a 429 response. Derived once, when the
// route is registered, so the document cannot drift from the hooks (test/foundation/openapi-contract.test.ts
// walks the routes and holds the two together).
import { DEFAULT_BODY_LIMIT } from './json-body.js';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { z } from 'zod';

/** A credential check, as the OpenAPI security scheme (plugins/docs.ts) names it. */
export type Scheme = 'apiKey' | 'verifiedSession' | 'webhookSecret' | 'bearer' | 'adminToken';

export interface Credential {
  scheme: Scheme;
  /** The hook lets a request without the credential through (a present but bad one still fails). */
  optional?: boolean;
  /** The statuses a failed check answers, with what they mean. */
  statuses: Partial<Record<401 | 403, string>>;
}

const CREDENTIAL = Symbol.for('netsvc.credential');
type Hook = (...args: never[]) => unknown;

/** Marks `hook` as the check of `credential`; every hook that checks a credential is marked. */
export function checksCredential<T extends Hook>(hook: T, credential: Credential): T {
  Object.defineProperty(hook, CREDENTIAL, { value: credential });
  return hook;
}

const credentialOf = (hook: unknown): Credential | undefined =>
  typeof hook === 'function' ? (hook as unknown as Record<symbol, Credential | undefined>)[CREDENTIAL] : undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Hooks a surface adds to every route of its scope (addHook), which the route options do not show. */
    scopeHooks?: Hook[];
  }
}

/**
 * For a surface that checks a credential on every route with `app.addHook('onRequest', hook)`:
 * records the hook on each route of the scope and derives the contract again (the root's onRoute
 * hook ran before this scope's, without it).
 */
export function recordScopeHook(app: FastifyInstance, hook: Hook) {
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), scopeHooks: [...(route.config?.scopeHooks ?? []), hook] };
    deriveRouteContract(route);
  });
}

const LIFECYCLE = ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const;

/** The credentials a route's hooks check, in the order they run. */
export function routeCredentials(route: Pick<RouteOptions, (typeof LIFECYCLE)[number] | 'config'>): Credential[] {
  const hooks = [...(route.config?.scopeHooks ?? []), ...LIFECYCLE.flatMap((k) => [route[k] ?? []].flat())];
  return hooks.map(credentialOf).filter((c): c is Credential => Boolean(c));
}

type Requirement = Record<string, string[]>;

/** OpenAPI `security` of those credentials: all required ones together; an optional one is an alternative. */
export function securityOf(credentials: Credential[]): Requirement[] {
  const required: Requirement = Object.fromEntries(credentials.filter((c) => !c.optional).map((c) => [c.scheme, []]));
  const optional = credentials.filter((c) => c.optional);
  if (optional.length === 0) return credentials.length ? [required] : [];
  return [required, { ...required, ...Object.fromEntries(optional.map((c) => [c.scheme, []])) }];
}

/** Requests per minute of a route's rate limit (config.rateLimit from plugins/rate-limit.ts), or null. */
export function perMinuteOf(config: unknown): number | null {
  const rl = (config as { rateLimit?: { max?: unknown; timeWindow?: unknown } } | undefined)?.rateLimit;
  if (!rl || typeof rl.max !== 'number') return null;
  const windowMs = typeof rl.timeWindow === 'number' ? rl.timeWindow : 60_000;
  return Math.round((rl.max * 60_000) / windowMs);
}

const PartnerError = z.object({ detail: z.string().describe('What went wrong') });
const AgentError = z.object({
  error: z
    .object({
      code: z.string().describe('Stable machine-readable code; branch on this'),
      message: z.string().describe('Human-readable explanation, safe to relay'),
      request_id: z.string().describe('Equals the x-request-id response header'),
    })
    .describe('What went wrong'),
});
/** The limiter's 429 body (plugins/rate-limit.ts), the same on both surfaces: the one schema of it, described per route. */
export const RateLimited = z.object({ statusCode: z.literal(429), error: z.string(), message: z.string() });

/**
 * The onRoute hook (registered before the surfaces): sets `security` from the credential hooks (a
 * route without any declares `security: []`, public, unless it states its own), and adds the 401/403
 * each credential can answer and the 429 of a rate limit where the route's schema does not list them.
 */
export function deriveRouteContract(route: RouteOptions) {
  const schema = route.schema as
    (Record<string, unknown> & { hide?: boolean; response?: Record<string, unknown>; security?: unknown }) | undefined;
  if (!schema || schema.hide) return;
  const credentials = routeCredentials(route);
  if (credentials.length) schema.security = securityOf(credentials);
  else if (schema.security === undefined) schema.security = [];

  const agent = route.url === '/agent' || route.url.startsWith('/agent/');
  const errorBody = agent ? AgentError : PartnerError;
  const response = { ...(schema.response ?? {}) };
  for (const c of credentials) {
    for (const [status, text] of Object.entries(c.statuses)) {
      response[status] ??= errorBody.describe(text);
    }
  }
  const perMinute = perMinuteOf(route.config);
  if (perMinute !== null) {
    response['429'] ??= RateLimited.describe(
      `Rate limit exceeded: ${perMinute} requests per minute per API key (per client IP without a valid key); retry after Retry-After seconds`,
    );
  }
  // Every route that takes a JSON body can answer these before its handler (plugins/json-body.ts):
  // declared so a client generated from the document knows them (issue 30 §5). A partner route of a
  // method that may carry a body parses one even without a body schema (a DELETE with a malformed
  // body answers 400), and answers 415 for a content type it does not take.
  const methods = [route.method].flat() as string[];
  const takesJson = !!schema.body && ['POST', 'PUT', 'PATCH'].some((m) => methods.includes(m));
  const partnerBody = !agent && ['POST', 'PUT', 'PATCH', 'DELETE'].some((m) => methods.includes(m));
  if (takesJson || partnerBody) {
    const code = agent ? ' (code bad_request)' : '';
    response['400'] ??= errorBody.describe(
      `\`Malformed JSON body\` (not JSON, or nested deeper than 64 levels), a JSON content type with an empty body, or an unusable Idempotency-Key${code}`,
    );
    response['413'] ??= errorBody.describe(`Request body is too large (at most ${route.bodyLimit ?? DEFAULT_BODY_LIMIT} bytes)${code}`);
  }
  if (partnerBody)
    response['415'] ??= errorBody.describe('The Content-Type is not one this operation takes (JSON unless it says otherwise)');
  // A partner route validates its params, query and body before its handler: 422 "<field>: <what is wrong>".
  if (!agent && (schema.params || schema.querystring || schema.body)) {
    response['422'] ??= errorBody.describe('Request validation failed: `<field>: <what is wrong>`');
  }
  schema.response = response;
}
