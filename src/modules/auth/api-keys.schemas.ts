import { z } from 'zod';

export const FEATURE_VALUES = ['agent_api_access', 'provisioning:write', 'serviceability:read'] as const;

export const ApiKeyView = z.object({
  id: z.uuid(),
  provider_id: z.uuid(),
  name: z.string(),
  prefix: z.string().describe('The 8 characters after `sk_`: how the key is recognised in logs and lists'),
  features: z.array(z.string()).describe('Scopes: agent_api_access (the /agent surface), provisioning:write, serviceability:read'),
  status: z
    .enum(['active', 'expiring', 'expired', 'revoked'])
    .describe('`expiring`: rotated, works until expires_at (the overlap window); `expired` and `revoked` are refused'),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  replaced_by: z.uuid().nullable().describe('The key a rotation replaced this one with'),
});

export const IssuedApiKey = ApiKeyView.extend({
  key: z.string().describe('The API key itself (X-API-Key): shown in this answer only, stored as its SHA-256'),
});

export const IssueKeyInput = z.object({
  name: z.string().trim().min(1).max(100).default('default'),
  features: z.array(z.enum(FEATURE_VALUES)).max(3).describe('The scopes; an empty list is a key that reads nothing'),
});

export const RotateKeyInput = z.object({
  overlap_hours: z
    .number()
    .min(0)
    .max(720)
    .default(24)
    .describe('How long the old key keeps working beside the new one (0 to 720 hours; default 24)'),
});
