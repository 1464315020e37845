import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { checksCredential } from '../../plugins/route-contract.js';
import { isUuid } from '../../lib/ids.js';
import type { SubscriberOwnershipService, OwnedSource, Profile } from '../../modules/subscribers/index.js';
import { subscriberNotFound } from '../../modules/subscribers/index.js';
import { sessionTokenHash, type SessionRow } from '../../modules/verified-sessions/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The customer of the route's `customerId`, known to belong to the API key's provider. */
    agentCustomer?: {
      id: string;
      providerId: string;
      /** The row of the request's X-Verified-Session, read together with the customer (undefined: none). */
      session?: SessionRow;
      /** The profile, when the route read it as its ownership check (requireOwnedProfile). */
      profile?: Profile;
    };
  }
}

type PreHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** The route's customer, as its ownership hook found it; see apiKeyOf (plugins/auth.ts) for why it throws. */
export function agentCustomerOf(request: FastifyRequest): NonNullable<FastifyRequest['agentCustomer']> {
  if (!request.agentCustomer)
    throw new Error(
      `${request.method} ${request.routeOptions.url ?? request.url} reads the owned customer, which none of its hooks checks`,
    );
  return request.agentCustomer;
}

function sessionTokenOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-verified-session'];
  return (Array.isArray(raw) ? raw[0] : raw) || undefined;
}

/** The route's `customerId` as the database spells a UUID (lower case), '' when absent. */
function customerIdOf(request: FastifyRequest): string {
  const id = (request.params as { customerId?: unknown } | undefined)?.customerId;
  return typeof id === 'string' ? id.toLowerCase() : '';
}

/**
 * Who asks about whom: the API key's provider, the route's customer id, and the hash of the
 * X-Verified-Session value, whose row comes back with the ownership check (it is judged only where
 * the route asks for a verified session, after body validation).
 */
function ownerQuery(request: FastifyRequest) {
  const providerId = request.apiKey?.providerId;
  if (!providerId) throw new AppError(403, 'invalid_api_key', 'The API key is missing, invalid, or its account is disabled');
  const token = sessionTokenOf(request);
  return { providerId, customerId: customerIdOf(request), token, tokenHash: (token && sessionTokenHash(token)) || null };
}

function ownedCustomerFrom(source: OwnedSource): PreHandler {
  return async (request) => {
    const { providerId, customerId, tokenHash } = ownerQuery(request);
    const found = await request.server.services.subscriberOwnership.findOwned(providerId, customerId, tokenHash, source);
    if (!found) throw subscriberNotFound();
    request.agentCustomer = { id: found.customer.id, providerId, session: found.session };
    if (source === 'agent_customer_profile') request.agentCustomer.profile = found.customer as Profile;
  };
}

/**
 * /agent routes with `:customerId`: the customer must belong to the API key's provider.
 * Another provider's customer, an unknown id and a malformed id all answer the same
 * 404 customer_not_found, before anything else is looked at.
 */
export const requireOwnedCustomer: PreHandler = ownedCustomerFrom('agent_owned_customer');

/**
 * The profile route's requireOwnedCustomer: the same check and answers, with the profile read in
 * the same statement (`request.agentCustomer.profile`), so the route makes one round trip.
 */
export const requireOwnedProfile: PreHandler = ownedCustomerFrom('agent_customer_profile');

/**
 * The verified-session rule of an owned customer (`owner.session`: the row of `token`, read with
 * the ownership check), shared by the hooks below (an MCP tool call runs them too: mcp.call.ts).
 */
function assertVerifiedSession(
  owner: { id: string; providerId: string; session?: SessionRow },
  token: string | undefined,
  judge: SubscriberOwnershipService['judgeSession'],
) {
  if (!token) {
    throw new AppError(
      401,
      'verification_required',
      'This call needs X-Verified-Session: verify the caller with POST /agent/verify/issue and POST /agent/verify/check',
    );
  }
  const result = judge(owner.session, owner.providerId, owner.id);
  if (result === 'invalid') {
    throw new AppError(
      401,
      'session_invalid',
      'The verified session is unknown or has expired (sessions last 15 minutes); verify the caller again',
    );
  }
  if (result === 'mismatch') {
    throw new AppError(403, 'session_customer_mismatch', 'The verified session belongs to another customer; verify this customer first');
  }
}

/**
 * Verified routes: after the ownership check, `X-Verified-Session` must be a live session of
 * exactly this (provider, customer):
 *   header missing                       401 verification_required
 *   unknown, malformed or expired token  401 session_invalid
 *   session of another customer/provider 403 session_customer_mismatch
 * Use it as the route's preHandler (the plan-change apply reuses it):
 *   `preHandler: [requireVerifiedSession]` or, with Idempotency-Key, `[requireVerifiedSession, idempotent]`;
 * add `preValidation: [requireOwnedCustomer]` so a foreign customer id answers 404 even before
 * the body is validated (the /agent routes of this folder do).
 */
const VERIFIED_SESSION = {
  scheme: 'verifiedSession',
  statuses: {
    401: '`verification_required` (no X-Verified-Session) or `session_invalid` (unknown or expired)',
    403: '`session_customer_mismatch`',
  },
} as const;

export const requireVerifiedSession: PreHandler = checksCredential<PreHandler>(async (request, reply) => {
  // Already checked in preValidation (so a foreign id answers 404 even before body validation)?
  if (!request.agentCustomer || request.agentCustomer.id !== customerIdOf(request)) await requireOwnedCustomer(request, reply);
  assertVerifiedSession(agentCustomerOf(request), sessionTokenOf(request), request.server.services.subscriberOwnership.judgeSession);
}, VERIFIED_SESSION);

/** Whether the route's own validators (the ones Fastify runs next) accept every part of the request. */
function passesValidation(request: FastifyRequest): boolean {
  const parts = { params: request.params, querystring: request.query, headers: request.headers, body: request.body };
  return (Object.keys(parts) as (keyof typeof parts)[]).every((part) => {
    const validate = request.routeOptions.schema?.[part] ? request.getValidationFunction(part) : undefined;
    if (!validate) return true;
    const result = validate(parts[part]) as unknown;
    return typeof result === 'object' && result !== null ? !(result as { error?: unknown }).error : result !== false;
  });
}

/**
 * requireOwnedCustomer where the request will fail validation; a request that passes it has the check
 * made by the route's preHandler instead (verifiedRead), in the statement of its answer. Another
 * provider's customer is 404 before any 400 either way.
 */
export const requireOwnedCustomerUnlessValid: PreHandler = async (request, reply) => {
  if (!passesValidation(request)) await requireOwnedCustomer(request, reply);
};

/**
 * requireVerifiedSession for a route that reads its answer in the statement of the ownership check
 * and the session: `read` answers undefined when the customer is not the provider's, else the
 * session row and the answer. `hook` is the route's preHandler (the same answers as
 * requireVerifiedSession, in the same order: 404, then 401/403); `answerOf(request)` is the answer.
 */
export function verifiedRead<T>(
  read: (
    request: FastifyRequest,
    owner: { providerId: string; customerId: string; tokenHash: Buffer | null },
  ) => Promise<{ session?: SessionRow; answer: T } | undefined>,
) {
  const answers = new WeakMap<FastifyRequest, T>();
  const hook = checksCredential<PreHandler>(async (request) => {
    const { providerId, customerId, token, tokenHash } = ownerQuery(request);
    const found = isUuid(customerId) ? await read(request, { providerId, customerId, tokenHash }) : undefined;
    if (!found) throw subscriberNotFound();
    request.agentCustomer = { id: customerId, providerId, session: found.session };
    assertVerifiedSession(request.agentCustomer, token, request.server.services.subscriberOwnership.judgeSession);
    answers.set(request, found.answer);
  }, VERIFIED_SESSION);
  return {
    hook,
    answerOf(request: FastifyRequest): T {
      if (!answers.has(request)) throw new Error('verifiedRead: the route has no verifiedRead preHandler');
      return answers.get(request)!;
    },
  };
}
