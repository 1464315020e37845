import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { deriveRouteContract } from './route-contract.js';
import { DOCS_HEADERS } from './page-headers.js';
import { ERRORS } from '../lib/errors.catalogue.js';
import type { ErrorCode } from '../lib/errors.js';

type Spec = Record<string, any>;

// Every surface refuses these in any text field (plugins/text-input.ts): Postgres text cannot store them.
const TEXT_RULES =
  'Text fields (body, query, path and header values, and object keys) must not contain U+0000 or an unpaired UTF-16 ' +
  'surrogate: such a request answers {refusal}. A JSON body nested deeper than 64 levels answers 400 `Malformed JSON body`.';

const AGENT_INFO = {
  title: 'Support Agent API',
  version: '1.0.0',
  description:
    'The /agent surface for a conversational support agent: identify a caller (masked search), verify them with an ' +
    'emailed one-time code, read their account with the verified session, make approved changes and escalate by ticket. ' +
    'Every call needs `X-API-Key` (a provider key with `agent_api_access`); routes marked verified also need ' +
    '`X-Verified-Session` from POST /agent/verify/check. Every error is `{error: {code, message, request_id}}`: branch on ' +
    '`code`. A 429 is the standard rate-limit response (no envelope); back off. On 5xx hand over to a human with a ticket. ' +
    'The same operations are MCP tools (Streamable HTTP, stateless JSON) at `POST /agent/mcp` on this server, with the same ' +
    '`X-API-Key`: each tool is named after its operationId in snake case, the verified session is its `verified_session` ' +
    'argument, and a tool error carries the same `{error: {code, message, request_id}}` with the same next step. ' +
    TEXT_RULES.replace('{refusal}', '400 `validation_error` naming the field'),
};

const PARTNER_INFO = {
  title: 'Partner API',
  version: '1.0.0',
  description:
    'Marketplace checkout sessions, completion and provisioning onto switch ports, serviceability, subscription control, ' +
    'subscriber self-service, provider staff and cancellation. Every partner route is served at `/` and identically under ' +
    '`/api/v1` (only the `/` copy is listed); routes documented with an `/api/v1` path exist only there. Errors are ' +
    '`{detail}`; a failed request schema answers 422 with `detail` naming the field. Webhooks are signed with the Standard ' +
    'Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`). ' +
    TEXT_RULES.replace('{refusal}', '422 with `detail` naming the field'),
};

const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  verifiedSession: { type: 'apiKey', in: 'header', name: 'X-Verified-Session' },
  webhookSecret: { type: 'apiKey', in: 'header', name: 'X-Webhook-Secret' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  adminToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Admin-Token',
    description: "The operator's ADMIN_TOKEN (server environment); a platform_admin login's Bearer token is accepted instead",
  },
};

// The agent document's tags are the steps of a support conversation, in its order (Swagger UI lists them so).
const AGENT_TAGS = [
  { name: 'identify', description: 'Find who is calling: a masked search by name, email, phone, customer number or address.' },
  { name: 'verify', description: 'Prove it is them: email a one-time code, check what they read back, get a 15-minute verified session.' },
  { name: 'read', description: 'With the verified session: profile, billing summary, payments, network health and ticket history.' },
  {
    name: 'change',
    description:
      'Act on the verified account: preview then apply a plan change, edit contact details, resend an invoice, send a portal link, add a note.',
  },
  {
    name: 'escalate',
    description: "Hand over to a human: open a ticket in the provider's support queue (works for unverified callers too).",
  },
];

const isAgentPath = (p: string) => p === '/agent' || p.startsWith('/agent/');

// Absolute addresses: the server's PUBLIC_BASE_URL, so the explorer's server list (and a client generated
// from the document) names where the API answers, not a placeholder.
interface DocsConfig {
  publicBaseUrl: string;
  SMTP_URL?: string | null;
  MAIL_OUTBOX_DIR: string;
}
const baseOf = (c: DocsConfig) => c.publicBaseUrl.replace(/\/+$/, '');
const agentServers = (c: DocsConfig) => [{ url: baseOf(c), description: 'This service (the /agent paths are below its base)' }];
const partnerServers = (c: DocsConfig) => [
  { url: baseOf(c), description: 'The partner base, preferred' },
  { url: `${baseOf(c)}/api/v1`, description: 'The same partner routers under /api/v1 (the internal API base), identical auth' },
];
// Internal API routes exist only under /api/v1 and are listed with it in their path: the base alone serves them.
const internalOnlyServers = (c: DocsConfig) => [
  { url: baseOf(c), description: 'Internal API routes exist only under /api/v1 (already in the path)' },
];

/** Where this server's mails go: a reader of the demo looks for a verification code there. */
const mailNote = (c: DocsConfig) =>
  c.SMTP_URL
    ? '\n\nMails (verification codes, booking, payment and password links) are sent through the configured SMTP server.'
    : `\n\nMails (verification codes, booking, payment and password links) are not sent: with SMTP_URL unset this server ` +
      `writes each one as an .eml file to its folder \`${c.MAIL_OUTBOX_DIR}\` (MAIL_OUTBOX_DIR; \`var/outbox\` in a checkout). ` +
      'In the demo, read a verification code there, or let `npm run -s demo:verify -- <customer>` do the whole verification.';

// On each operation rather than the path item, so a reader iterating a path item's keys meets only methods.
const internalOnly = (item: Spec, servers: Spec[]): Spec =>
  Object.fromEntries(Object.entries(item).map(([m, op]) => [m, { ...op, servers }]));

// Errors the server answers as JSON whatever the route's page or file type: a refused request
// (400, 413, 422: before the handler), a rate limit (429), and every error of a file route (its
// handler sends the file only on success).
const JSON_ERRORS = new Set(['400', '413', '422', '429']);
const DETAIL_SCHEMA = {
  type: 'object',
  properties: { detail: { type: 'string', description: 'What went wrong' } },
  required: ['detail'],
};

/** A page or file operation's error responses that the server answers as JSON, declared as JSON (issue 30 §5). */
function jsonErrors(item: Spec): Spec {
  const out: Spec = {};
  for (const [method, op] of Object.entries<Spec>(item)) {
    const responses: Spec = {};
    for (const [status, r] of Object.entries<Spec>(op.responses ?? {})) {
      const content = r.content as Spec | undefined;
      const file =
        Boolean(content?.['application/pdf']) || Object.values<Spec>(op.responses ?? {}).some((x) => x.content?.['application/pdf']);
      if (!content || content['application/json'] || Number(status) < 400 || !(file || JSON_ERRORS.has(status))) {
        responses[status] = r;
        continue;
      }
      const media = (Object.values(content)[0] ?? {}) as Spec;
      const declared = media.schema as Spec | undefined;
      if (declared && declared.type === 'object') {
        responses[status] = { ...r, content: { 'application/json': media } };
        continue;
      }
      // A page's text examples become the {detail} the server answers.
      const examples = Object.fromEntries(
        Object.entries<Spec>(media.examples ?? {}).map(([name, e]) => [
          name,
          { ...e, value: typeof e.value === 'string' ? { detail: e.value } : e.value },
        ]),
      );
      responses[status] = {
        ...r,
        content: { 'application/json': { schema: DETAIL_SCHEMA, ...(media.examples ? { examples } : {}) } },
      };
    }
    out[method] = op.responses ? { ...op, responses } : op;
  }
  return out;
}

function pick(spec: Spec, keep: (path: string) => boolean, info: Spec, servers: Spec[], internal: Spec[] = []): Spec {
  const paths = Object.fromEntries(
    Object.entries(spec.paths ?? {})
      .filter(([p]) => keep(p))
      .map(([p, item]) => [p, jsonErrors(item as Spec)])
      .map(([p, item]) => [p, servers.length > 1 && (p as string).startsWith('/api/v1/') ? internalOnly(item as Spec, internal) : item]),
  );
  const ops = Object.values(paths).flatMap((item: any) =>
    Object.values(item).filter((o: any) => o && typeof o === 'object' && !Array.isArray(o)),
  );
  const usedTags = new Set(ops.flatMap((o: any) => o.tags ?? []));
  const usedSchemes = new Set(ops.flatMap((o: any) => (o.security ?? []).flatMap((r: Spec) => Object.keys(r))));
  const schemes = spec.components?.securitySchemes ?? {};
  return {
    ...spec,
    info,
    servers,
    components: {
      ...spec.components,
      securitySchemes: Object.fromEntries(Object.entries(schemes).filter(([name]) => usedSchemes.has(name))),
    },
    tags: (spec.tags ?? []).filter((t: any) => usedTags.has(t.name)),
    paths,
  };
}

/** The codes the agent document's error examples carry, each with its next step: one table an agent can read once. */
function withNextSteps(spec: Spec): Spec {
  const codes = new Set<ErrorCode>();
  for (const item of Object.values<Spec>(spec.paths)) {
    for (const op of Object.values<Spec>(item)) {
      for (const response of Object.values<Spec>(op.responses ?? {})) {
        for (const e of Object.values<Spec>(response.content?.['application/json']?.examples ?? {})) {
          if (e.value?.error?.code) codes.add(e.value.error.code);
        }
      }
    }
  }
  const rows = [...codes].sort().map((c) => `- \`${c}\` (${ERRORS[c].next.action.replace('_', ' ')}): ${ERRORS[c].next.text}`);
  const table = `\n\nEvery error \`message\` ends with "Next step: ..." for its code. The codes and their next steps:\n${rows.join('\n')}`;
  return { ...spec, info: { ...spec.info, description: spec.info.description + table } };
}

const withMailNote = (info: Spec, c: DocsConfig) => ({ ...info, description: info.description + mailNote(c) });

export const agentSpec = (app: FastifyInstance): Spec => {
  const c = app.config;
  return withNextSteps(pick(app.swagger(), isAgentPath, withMailNote(AGENT_INFO, c), agentServers(c)));
};
export const partnerSpec = (app: FastifyInstance): Spec => {
  const c = app.config;
  return pick(app.swagger(), (p) => !isAgentPath(p), withMailNote(PARTNER_INFO, c), partnerServers(c), internalOnlyServers(c));
};

// swagger-ui's own CSP (its inline scripts and styles by hash, assets from 'self'), tightened: no
// framing, no third-party validator badge, and no upgrade-insecure-requests (a local http server
// would lose its own assets).
const tightenCsp = (csp: string) =>
  csp
    .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
    .replace(' validator.swagger.io', '')
    .replace(/\s*upgrade-insecure-requests;?/, '');

const DOCS_UI = {
  staticCSP: true,
  transformStaticCSP: tightenCsp,
  uiConfig: { validatorUrl: null },
  uiHooks: {
    onRequest: (_request: unknown, reply: { headers: (h: Record<string, string>) => unknown }, done: () => void) => {
      reply.headers(DOCS_HEADERS);
      done();
    },
  },
};

export async function registerDocs(app: FastifyInstance) {
  // Before any route: every route's security and 401/403/429 responses come from its hooks and limit.
  app.addHook('onRoute', deriveRouteContract);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'netsvc API', version: '1.0.0' },
      components: { securitySchemes: SECURITY_SCHEMES as any },
      tags: AGENT_TAGS,
    },
    transform: jsonSchemaTransform,
  });
  // Two explorers over one route table, each showing only its surface.
  await app.register(async (scope) => {
    await scope.register(swaggerUi, { routePrefix: '/agent/docs', transformSpecification: () => agentSpec(app), ...DOCS_UI });
  });
  await app.register(async (scope) => {
    await scope.register(swaggerUi, { routePrefix: '/docs', transformSpecification: () => partnerSpec(app), ...DOCS_UI });
  });
  app.get('/agent/openapi.json', { schema: { hide: true } }, async () => agentSpec(app));
  app.get('/openapi.json', { schema: { hide: true } }, async () => partnerSpec(app));
}
