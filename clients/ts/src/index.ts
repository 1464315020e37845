// A thin wrapper over openapi-fetch: typed paths, bodies and answers from the generated types, and
// the credentials each surface checks set once as default headers.
import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths as AgentPaths } from './agent.js';
import type { paths as PartnerPaths } from './partner.js';

export type { AgentPaths, PartnerPaths };
export type { components as AgentComponents, operations as AgentOperations } from './agent.js';
export type { components as PartnerComponents, operations as PartnerOperations } from './partner.js';

type Base = Omit<ClientOptions, 'baseUrl'> & {
  /** The service's base URL, e.g. https://api.example.com (the documents' paths are below it). */
  baseUrl: string;
};

export interface AgentClientOptions extends Base {
  /** X-API-Key: a provider key with the agent_api_access feature. */
  apiKey: string;
  /** X-Verified-Session from POST /agent/verify/check, for the verified routes of that customer. */
  verifiedSession?: string;
}

export interface PartnerClientOptions extends Base {
  /** X-API-Key of the provider (provisioning, serviceability, checkout sessions). */
  apiKey?: string;
  /** X-Webhook-Secret, the pre-shared checkout secret (checkout session reads and completion). */
  webhookSecret?: string;
  /** A JWT from POST /auth/login, sent as `Authorization: Bearer` (subscriber and dashboard routes). */
  bearerToken?: string;
}

const defined = (h: Record<string, string | undefined>) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>;

/** A client of the /agent surface. Make a second one with `verifiedSession` once the caller is verified. */
export function createAgentClient({ apiKey, verifiedSession, headers, ...options }: AgentClientOptions) {
  return createClient<AgentPaths>({
    ...options,
    headers: { ...defined({ 'x-api-key': apiKey, 'x-verified-session': verifiedSession }), ...(headers as Record<string, string> | undefined) },
  });
}

/** A client of the partner surface (served at the base and identically under /api/v1). */
export function createPartnerClient({ apiKey, webhookSecret, bearerToken, headers, ...options }: PartnerClientOptions) {
  return createClient<PartnerPaths>({
    ...options,
    headers: {
      ...defined({ 'x-api-key': apiKey, 'x-webhook-secret': webhookSecret, authorization: bearerToken && `Bearer ${bearerToken}` }),
      ...(headers as Record<string, string> | undefined),
    },
  });
}

export type AgentClient = ReturnType<typeof createAgentClient>;
export type PartnerClient = ReturnType<typeof createPartnerClient>;
