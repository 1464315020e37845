import type { Insertable } from 'kysely';
import type { DB } from '../db/types.js';
import { hashPassword, newPrefixedSecret } from '../lib/crypto.js';
import { formatCents } from '../lib/money.js';
import { newId, randomToken } from '../lib/ids.js';
import { newSigningSecret } from '../webhooks/endpoint.js';
import type { Feature } from '../modules/auth/index.js';
import type { Builder, PlanRef } from './builder.js';
import type { Credentials, DemoPlan } from './document.js';

export const ALL_FEATURES: Feature[] = ['agent_api_access', 'provisioning:write', 'serviceability:read'];

export interface ProviderSpec {
  slug: string;
  name: string;
  features: Feature[];
  disabled?: boolean;
  currency?: string;
  webhookUrl?: string | null;
  externalCheckoutUrl?: string | null;
  cardProcessor?: boolean;
}

/** A provider with a fresh API key, webhook secret and Standard Webhooks signing secret. */
export function addProvider(b: Builder, p: ProviderSpec) {
  const id = newId();
  const key = newPrefixedSecret('sk');
  const whs = newPrefixedSecret('whs');
  const signingSecret = newSigningSecret();
  b.rows.providers.push({
    id,
    name: p.name,
    slug: p.slug,
    disabled: p.disabled ?? false,
    currency: p.currency ?? 'EUR',
    support_email: `help@${p.slug}.example`,
    branding: JSON.stringify({
      display_name: p.name,
      logo_url: `https://${p.slug}.example/logo.svg`,
      primary_color: '#0b6e4f',
      support_phone: '+49 30 9999000',
    }),
    external_checkout_url: p.externalCheckoutUrl ?? null,
    webhook_secret_prefix: whs.prefix,
    webhook_secret_hash: whs.hash,
    webhook_url: p.webhookUrl ?? null,
    webhook_signing_secret: signingSecret,
    card_processor_account: p.cardProcessor ? `acct_demo_${p.slug.replace(/-/g, '_')}` : null,
    sms_configured: false,
    created_at: new Date(b.now.getTime() - 800 * 86_400_000),
  });
  b.rows.api_keys.push({ id: newId(), provider_id: id, prefix: key.prefix, key_hash: key.hash, name: 'demo', features: p.features });
  return { id, name: p.name, api_key: key.secret, webhook_secret: whs.secret, webhook_signing_secret: signingSecret, features: p.features };
}

export function addPlan(
  b: Builder,
  providerId: string,
  o: { name: string; priceCents: number; currency: string; down: number; up: number; storeProductId: string; id?: string },
): { ref: PlanRef; doc: DemoPlan } {
  const planId = newId();
  const id = o.id ?? newId();
  b.rows.plans.push({ id: planId, provider_id: providerId, name: o.name, description: `${o.down}/${o.up} Mbit/s fibre` });
  b.rows.plan_versions.push({
    id,
    plan_id: planId,
    provider_id: providerId,
    version: 1,
    name: o.name,
    monthly_price_cents: o.priceCents,
    currency: o.currency,
    store_product_id: o.storeProductId,
    download_mbps: o.down,
    upload_mbps: o.up,
    active: true,
  });
  return {
    ref: { id, name: o.name, priceCents: o.priceCents, currency: o.currency, down: o.down, up: o.up },
    doc: {
      plan_version_id: id,
      name: o.name,
      monthly_price: formatCents(o.priceCents),
      currency: o.currency,
      store_product_id: o.storeProductId,
      download_mbps: o.down,
      upload_mbps: o.up,
    },
  };
}

/** A login with a freshly generated password (never fixed in code). */
export async function addUser(
  b: Builder,
  o: {
    email: string;
    role: 'subscriber' | 'service_provider' | 'platform_admin';
    spRole?: string | null;
    providerId?: string | null;
    first: string;
    last: string;
    withPassword: boolean;
  },
): Promise<{ id: string; credentials: Credentials | null }> {
  const id = newId();
  const password = o.withPassword ? `demo-${randomToken(12)}` : null;
  const row: Insertable<DB['users']> = {
    id,
    email: o.email,
    role: o.role,
    sp_role: o.spRole ?? null,
    provider_id: o.providerId ?? null,
    first_name: o.first,
    last_name: o.last,
    password_hash: password ? await hashPassword(password) : null,
    password_set_at: password ? new Date(b.now.getTime() - 200 * 86_400_000) : null,
  };
  b.rows.users.push(row);
  return { id, credentials: password ? { email: o.email, password } : null };
}
