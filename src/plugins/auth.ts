import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { Actor } from '../modules/audit/index.js';
import type { ApiKeyPrincipal, Feature, Role, UserPrincipal, WebhookSecretPrincipal } from '../modules/auth/index.js';
import { checksCredential } from './route-contract.js';
import { countRefusedKey } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyPrincipal;
    user?: UserPrincipal;
    webhookProvider?: WebhookSecretPrincipal;
    /** The platform operator behind an /api/v1/admin request: 'admin_token', or the platform_admin's user id. */
    platformAdmin?: string;
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * The credential a route's auth hook checked. A route reads only the credential its own hooks check
 * (route-contract.ts ties each route to its hooks), so a missing one is a wiring bug: a clear 500
 * naming the route rather than a TypeError further on.
 */
function checked<T>(value: T | undefined, what: string, request: FastifyRequest): T {
  if (value === undefined)
    throw new Error(`${request.method} ${request.routeOptions.url ?? request.url} reads ${what}, which none of its hooks checks`);
  return value;
}
export const apiKeyOf = (request: FastifyRequest): ApiKeyPrincipal => checked(request.apiKey, 'an API key', request);
export const userOf = (request: FastifyRequest): UserPrincipal => checked(request.user, 'a bearer token', request);
export const webhookProviderOf = (request: FastifyRequest): WebhookSecretPrincipal =>
  checked(request.webhookProvider, 'a webhook secret', request);

const header = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

// Partner surface answers, as decisions.md fixes them.
/** The credential that made the request, as the audit trail names it. */
export function actorOf(request: FastifyRequest): Actor {
  if (request.apiKey) return { actorType: 'api_key', actor: request.apiKey.prefix };
  if (request.webhookProvider) return { actorType: 'webhook_secret', actor: request.webhookProvider.prefix };
  if (request.user) return { actorType: 'user', actor: request.user.userId };
  return { actorType: 'system', actor: 'anonymous' };
}

const notAuthenticated = () => new AppError(401, 'not_authenticated', 'Not authenticated');
const invalidCredentials = () => new AppError(403, 'invalid_credentials', 'Invalid credentials');

/** Partner: X-API-Key, optionally demanding a feature/scope. */
export function partnerApiKey(feature?: Feature): Hook {
  return checksCredential<Hook>(
    async (request, reply) => {
      const r = await request.server.services.auth.authenticateApiKey(header(request, 'x-api-key'));
      if (!r.ok) {
        await countRefusedKey(request, reply);
        throw r.failure === 'missing' ? notAuthenticated() : invalidCredentials();
      }
      if (feature && !r.principal.features.includes(feature)) {
        throw new AppError(403, 'feature_not_enabled', `API key lacks the ${feature} scope`);
      }
      request.apiKey = r.principal;
    },
    {
      scheme: 'apiKey',
      statuses: {
        401: 'X-API-Key missing: `Not authenticated`',
        403: `Unknown, malformed or disabled key: \`Invalid credentials\`${feature ? `; or the key lacks the ${feature} scope` : ''}`,
      },
    },
  );
}

/**
 * Partner: X-Webhook-Secret, the pre-shared checkout secret. Scopes belong to API keys: a route that
 * creates or changes subscriptions names the scope, and the secret passes only while the provider
 * holds an active key with it (a provider whose keys may not provision cannot do it by the secret).
 */
export function webhookSecret(opts: { scope?: Feature } = {}): Hook {
  const { scope } = opts;
  return checksCredential<Hook>(
    async (request, reply) => {
      const r = await request.server.services.auth.authenticateWebhookSecret(header(request, 'x-webhook-secret'));
      if (!r.ok) {
        await countRefusedKey(request, reply);
        throw r.failure === 'missing' ? notAuthenticated() : invalidCredentials();
      }
      if (scope && !r.principal.keyFeatures.includes(scope)) {
        throw new AppError(403, 'feature_not_enabled', `No active API key of this provider has the ${scope} scope`);
      }
      request.webhookProvider = r.principal;
    },
    scope
      ? {
          ...WEBHOOK_SECRET,
          statuses: {
            ...WEBHOOK_SECRET.statuses,
            403: `${WEBHOOK_SECRET.statuses[403]}; or no active API key of the provider has the ${scope} scope`,
          },
        }
      : WEBHOOK_SECRET,
  );
}

/** For the descriptions of the secret routes that create or change subscriptions. */
export const SECRET_SCOPE_NOTE =
  'The secret passes only while your provider holds an active (not revoked) API key with the `provisioning:write` scope; ' +
  'otherwise 403 (a provider whose keys may not provision cannot provision through the checkout secret either).';

/** What webhookSecret() checks; also for a hook that calls it inside a check of its own. */
export const WEBHOOK_SECRET = {
  scheme: 'webhookSecret',
  statuses: { 401: 'X-Webhook-Secret missing: `Not authenticated`', 403: 'Wrong or disabled secret: `Invalid credentials`' },
} as const;

/**
 * Bearer JWT with one of `roles`. `dashboard` is any provider staff or platform admin;
 * `optional` lets a request without the header through (a present but bad token still fails).
 */
export function bearer(roles: Role[], opts: { optional?: boolean } = {}): Hook {
  return checksCredential<Hook>(
    async (request) => {
      const value = header(request, 'authorization');
      if (!value && opts.optional) return;
      const r = await request.server.services.auth.authenticateBearer(value);
      if (!r.ok) throw r.failure === 'missing' ? notAuthenticated() : invalidCredentials();
      if (!roles.includes(r.principal.role)) throw new AppError(403, 'forbidden', 'Not permitted for this account');
      request.user = r.principal;
    },
    {
      scheme: 'bearer',
      optional: opts.optional,
      statuses: {
        ...(opts.optional ? {} : { 401: 'No Bearer token: `Not authenticated`' }),
        403: `Invalid or expired token (\`Invalid credentials\`), or not a token of: ${roles.join(', ')} (\`Not permitted for this account\`)`,
      },
    },
  );
}

/**
 * /api/v1/admin: the platform operator. `X-Admin-Token: <ADMIN_TOKEN>` (compared in constant time;
 * with ADMIN_TOKEN unset no token passes), or a platform_admin login's Bearer token. Provider staff
 * and subscribers answer 403.
 */
export function platformAdmin(): Hook {
  return checksCredential<Hook>(
    async (request) => {
      const token = header(request, 'x-admin-token');
      if (token !== undefined) {
        if (!request.server.services.auth.authenticateAdminToken(token)) throw invalidCredentials();
        request.platformAdmin = 'admin_token';
        return;
      }
      const r = await request.server.services.auth.authenticateBearer(header(request, 'authorization'));
      if (!r.ok) throw r.failure === 'missing' ? notAuthenticated() : invalidCredentials();
      if (r.principal.role !== 'platform_admin') throw new AppError(403, 'forbidden', 'Only the platform operator may do this');
      request.user = r.principal;
      request.platformAdmin = r.principal.userId;
    },
    {
      scheme: 'adminToken',
      statuses: {
        401: 'Neither X-Admin-Token nor a Bearer token: `Not authenticated`',
        403: 'Wrong X-Admin-Token or invalid token (`Invalid credentials`), or a login that is not a platform_admin (`Only the platform operator may do this`)',
      },
    },
  );
}

export const DASHBOARD_ROLES: Role[] = ['service_provider', 'platform_admin'];

/** /agent: X-API-Key with agent_api_access; every key failure is 403 invalid_api_key. */
export function agentApiKey(): Hook {
  return checksCredential<Hook>(
    async (request, reply) => {
      const r = await request.server.services.auth.authenticateApiKey(header(request, 'x-api-key'));
      if (!r.ok) {
        await countRefusedKey(request, reply);
        throw new AppError(403, 'invalid_api_key', 'The API key is missing, invalid, or its account is disabled');
      }
      if (!r.principal.features.includes('agent_api_access')) {
        throw new AppError(403, 'feature_not_enabled', 'This API key does not have the agent_api_access feature');
      }
      request.apiKey = r.principal;
    },
    {
      scheme: 'apiKey',
      statuses: { 403: '`invalid_api_key`: the key is missing, invalid or disabled; `feature_not_enabled`: no agent_api_access' },
    },
  );
}
