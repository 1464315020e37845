import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Every 4xx a documented /agent route answers in a test must be one its OpenAPI declares: the status
 * and the code (the route's list in src/surfaces/agent/agent.errors.ts, or the credential checks'
 * defaults). Two answers need no list: a body the parser refuses (400/413/415 bad_request, before any
 * hook of any route) and a 5xx. Collected per app; the app's close() fails the test file
 * with the answers no list names (an MCP tool call is a request to its route, so it is held too).
 * A documented partner route (its bodies carry no code) is held to its statuses: each 4xx it answers
 * is one of its response schema's.
 */
export function holdDeclaredErrors(app: FastifyInstance): () => string[] {
  const undeclared = new Set<string>();
  app.addHook('onSend', async (request, reply, payload) => {
    const status = reply.statusCode;
    if (status < 400 || status >= 500) return payload;
    const partnerGap = undeclaredPartnerStatus(request, status);
    if (partnerGap) undeclared.add(partnerGap);
    const declared = request.routeOptions.config?.declaredErrors;
    if (!declared || !request.routeOptions.url?.startsWith('/agent/')) return payload;
    const code = codeOf(payload);
    // What the body parser (plugins/json-body.ts) or the Idempotency-Key check refuses, on any route.
    if ([400, 413, 415].includes(status) && code === 'bad_request') return payload;
    const toolOnly = request.routeOptions.config?.toolOnlyErrors?.[String(status)] ?? [];
    const listed = declared[String(status)];
    const codes = listed && toolOnly.length ? [...listed, ...toolOnly] : listed;
    const where = `${request.method} ${request.routeOptions.url}`;
    if (codes === undefined) undeclared.add(`${where} answered ${status}${code ? ` ${code}` : ''}, a status it does not declare`);
    else if (codes !== null && code !== undefined && !codes.includes(code)) {
      undeclared.add(`${where} answered ${status} ${code}, a code its ${status} does not list (it lists ${codes.join(', ')})`);
    }
    return payload;
  });
  return () => [...undeclared];
}

function codeOf(payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const code = (JSON.parse(payload) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/** A documented partner route's answer whose status its response schema lacks, described; else null. */
function undeclaredPartnerStatus(request: FastifyRequest, status: number): string | null {
  const url = request.routeOptions.url;
  const schema = request.routeOptions.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
  if (!url || url.startsWith('/agent') || !schema?.response || schema.hide) return null;
  const keys = Object.keys(schema.response);
  if (keys.includes(String(status)) || keys.includes('4xx') || keys.includes('default')) return null;
  return `${request.method} ${url} answered ${status}, a status it does not declare (it declares ${keys.join(', ')})`;
}
