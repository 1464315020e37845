import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { DOCS_HEADERS } from './page-headers.js';

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

const isAgentPath = (p: string) => p === '/agent' || p.startsWith('/agent/');

function pick(spec: Spec, keep: (path: string) => boolean, info: Spec): Spec {
  const paths = Object.fromEntries(Object.entries(spec.paths ?? {}).filter(([p]) => keep(p)));
  const usedTags = new Set(Object.values(paths).flatMap((ops: any) => Object.values(ops).flatMap((o: any) => o.tags ?? [])));
  return {
    ...spec,
    info,
    tags: (spec.tags ?? []).filter((t: any) => usedTags.has(t.name)),
    paths,
  };
}

export const agentSpec = (app: FastifyInstance): Spec => pick(app.swagger() as Spec, isAgentPath, AGENT_INFO);
export const partnerSpec = (app: FastifyInstance): Spec => pick(app.swagger() as Spec, (p) => !isAgentPath(p), PARTNER_INFO);

// swagger-ui's own CSP (its inline scripts and styles by hash, assets from 'self'), tightened: no
// framing, no third-party validator badge, and no upgrade-insecure-requests (a local http server
// would lose its own assets).
const tightenCsp = (csp: string) =>
  csp.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(' validator.swagger.io', '').replace(/\s*upgrade-insecure-requests;?/, '');

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
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'netsvc API', version: '1.0.0' },
      components: { securitySchemes: SECURITY_SCHEMES as any },
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
