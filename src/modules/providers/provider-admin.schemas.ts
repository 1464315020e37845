import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).max(2000);

export const ProviderCreateInput = z.object({
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'lower-case letters, digits and dashes, 2 to 63 characters, starting with a letter or digit'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code in capitals, e.g. EUR')
    .default('EUR'),
  support_email: emailAddress().max(320),
  external_checkout_url: httpUrl.nullish(),
});
export type ProviderCreateInput = z.input<typeof ProviderCreateInput>;

export const ProviderSettingsInput = z
  .object({
    name: z.string().trim().min(1).max(200),
    support_email: emailAddress().max(320),
    external_checkout_url: httpUrl.nullable(),
  })
  .partial();
export type ProviderSettingsInput = z.input<typeof ProviderSettingsInput>;

export const WebhookInput = z.object({
  url: httpUrl.nullable(),
  rotate_signing_secret: z.boolean().default(false),
});
export type WebhookInput = z.input<typeof WebhookInput>;

export const ProviderView = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  disabled: z.boolean(),
  currency: z.string(),
  support_email: z.string(),
  external_checkout_url: z.string().nullable(),
  webhook_url: z.string().nullable(),
  has_webhook_signing_secret: z.boolean(),
  checkout_secret_prefix: z.string().nullable().describe('The prefix of the X-Webhook-Secret (checkout secret); the secret is shown once'),
  sms_configured: z.boolean(),
  card_processor_connected: z.boolean(),
  created_at: z.string(),
});
export type ProviderView = z.infer<typeof ProviderView>;
