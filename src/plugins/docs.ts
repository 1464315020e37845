import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { deriveRouteContract } from './route-contract.js';
import { DOCS_HEADERS } from './page-headers.js';
import { NEXT_STEPS } from '../lib/error-next-steps.js';
import type { ErrorCode } from '../lib/errors.js';

type Spec = Record<string, any>;

const AGENT_INFO = {
  title: 'Support Agent API',
  version: '1.0.0',
  description:
    'The /agent surface for a conversational support agent: identify a caller (masked search), verify them with an ' +
    'emailed one-time code, read their account with the verified session, make approved changes and escalate by ticket. ' +
    'Every call needs `X-API-Key` (a provider key with `agent_api_access`); routes marked verified also need ' +
    '`X-Verified-Session` from POST /agent/verify/check. Every error is `{error: {code, message, request_id}}`: branch on ' +
    '`code`. A 429 is the standard rate-limit response (no envelope); back off. On 5xx hand over to a human with a ticket.',
};

const PARTNER_INFO = {
  title: 'Partner API',
  version: '1.0.0',
  description:
    'Marketplace checkout sessions, completion and provisioning onto switch ports, serviceability, subscription control, ' +
    'subscriber self-service, provider staff and cancellation. Every partner route is served at `/` and identically under ' +
    '`/api/v1` (only the `/` copy is listed); routes documented with an `/api/v1` path exist only there. Errors are ' +
    '`{detail}`; a failed request schema answers 422 with `detail` naming the field. Webhooks are signed with the Standard ' +
    'Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`).',
};

const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
  verifiedSession: { type: 'apiKey', in: 'header', name: 'X-Verified-Session' },
  webhookSecret: { type: 'apiKey', in: 'header', name: 'X-Webhook-Secret' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
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

// Relative URLs: the documents are served by the same host they describe (its PUBLIC_BASE_URL).
const AGENT_SERVERS = [{ url: '/', description: 'This service (the /agent paths are below its base)' }];
const PARTNER_SERVERS = [
  { url: '/', description: 'The partner base ({base_url}), preferred' },
  { url: '/api/v1', description: 'The same partner routers under the internal API base ({api_v1_base}), identical auth' },
];
// Internal API routes exist only under /api/v1 and are listed with it in their path: the base alone serves them.
const INTERNAL_ONLY_SERVERS = [{ url: '/', description: 'Internal API routes exist only under /api/v1 (already in the path)' }];

// On each operation rather than the path item, so a reader iterating a path item's keys meets only methods.
const internalOnly = (item: Spec): Spec =>
  Object.fromEntries(Object.entries(item).map(([m, op]) => [m, { ...op, servers: INTERNAL_ONLY_SERVERS }]));

function pick(spec: Spec, keep: (path: string) => boolean, info: Spec, servers: Spec[]): Spec {
  const paths = Object.fromEntries(
    Object.entries(spec.paths ?? {})
      .filter(([p]) => keep(p))
      .map(([p, item]) => [p, servers.length > 1 && p.startsWith('/api/v1/') ? internalOnly(item as Spec) : item]),
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
  const rows = [...codes].sort().map((c) => `- \`${c}\` (${NEXT_STEPS[c].action.replace('_', ' ')}): ${NEXT_STEPS[c].text}`);
  const table = `\n\nEvery error \`message\` ends with "Next step: ..." for its code. The codes and their next steps:\n${rows.join('\n')}`;
  return { ...spec, info: { ...spec.info, description: spec.info.description + table } };
}

export const agentSpec = (app: FastifyInstance): Spec => withNextSteps(pick(app.swagger() as Spec, isAgentPath, AGENT_INFO, AGENT_SERVERS));
export const partnerSpec = (app: FastifyInstance): Spec =>
  pick(app.swagger() as Spec, (p) => !isAgentPath(p), PARTNER_INFO, PARTNER_SERVERS);

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
