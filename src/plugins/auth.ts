import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { Actor } from '../modules/audit/audit.types.js';
import type { ApiKeyPrincipal, Feature, Role, UserPrincipal } from '../modules/auth/auth.service.js';
import { checksCredential } from './route-contract.js';
import { countRefusedKey } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyPrincipal;
    user?: UserPrincipal;
    webhookProvider?: { providerId: string; prefix: string };
  }
}

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

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

/** Partner: X-Webhook-Secret, the pre-shared checkout secret. */
export function webhookSecret(): Hook {
  return checksCredential<Hook>(async (request, reply) => {
    const r = await request.server.services.auth.authenticateWebhookSecret(header(request, 'x-webhook-secret'));
    if (!r.ok) {
      await countRefusedKey(request, reply);
      throw r.failure === 'missing' ? notAuthenticated() : invalidCredentials();
    }
    request.webhookProvider = r.principal;
  }, WEBHOOK_SECRET);
}

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
