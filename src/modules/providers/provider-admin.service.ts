// The operator's providers (npm run ops -- provider ..., /api/v1/admin/providers): create, show,
// list, disable, enable, and their settings (name, support email, checkout URL, webhook URL and
// signing secret, checkout secret). Secrets are drawn here, returned once and stored hashed where
// the server only compares them (the checkout secret); the webhook signing secret is kept in clear
// because the server signs with it.
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { newPrefixedSecret } from '../../lib/crypto.js';
import { AppError, isUniqueViolation, notFound } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import { parseOperatorInput } from '../../lib/operator-input.js';
import { configureWebhookEndpoint, EndpointError, newSigningSecret } from '../../webhooks/endpoint.js';
import type { Webhooks } from '../../webhooks/types.js';
import type { Resolve } from '../../lib/outbound-url.js';
import * as repo from './provider-admin.repository.js';
import { ProviderCreateInput, ProviderSettingsInput, WebhookInput, type ProviderView } from './provider-admin.schemas.js';

export interface ProviderAdminDeps {
  db: Db;
  clock: Clock;
  webhooks: Pick<Webhooks, 'releaseWaiting'>;
  /** Production rules for outbound URLs (https, no internal address); false in tests that stand in loopback receivers. */
  productionUrls: boolean;
  resolve?: Resolve;
  /** Empties this process's API-key cache, so a disabled provider's keys are refused from the next request. */
  forgetAllApiKeys?: () => void;
}

const view = (p: repo.ProviderAdminRow): ProviderView => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  disabled: p.disabled,
  currency: p.currency.trim(),
  support_email: p.support_email,
  external_checkout_url: p.external_checkout_url,
  webhook_url: p.webhook_url,
  has_webhook_signing_secret: Boolean(p.has_signing_secret),
  checkout_secret_prefix: p.webhook_secret_prefix,
  sms_configured: p.sms_configured,
  card_processor_connected: Boolean(p.card_processor_connected),
  created_at: p.created_at.toISOString(),
});

export function createProviderAdminService(deps: ProviderAdminDeps) {
  const { db, clock } = deps;

  /** A provider by its id or its slug; 404 when there is none. */
  async function resolve(ref: string): Promise<repo.ProviderAdminRow> {
    const p = await repo.findProviderForAdmin(db, isUuid(ref) ? { id: ref } : { slug: ref });
    if (!p) throw notFound(`No provider ${ref} (give its id or slug)`);
    return p;
  }

  async function checkoutUrlProblem(url: string | null | undefined) {
    if (!url) return;
    if (deps.productionUrls && !url.startsWith('https://')) {
      throw new AppError(422, 'validation_error', 'external_checkout_url: must be https:// in production');
    }
  }

  /**
   * A new, enabled provider with a checkout secret (X-Webhook-Secret) and a webhook signing secret,
   * both in the answer only. API keys, plans, its admin and its inventory are the next steps.
   */
  async function create(input: ProviderCreateInput) {
    const p = parseOperatorInput(ProviderCreateInput, input);
    await checkoutUrlProblem(p.external_checkout_url);
    const id = newId();
    const checkout = newPrefixedSecret('whs');
    const signing = newSigningSecret();
    try {
      await repo.insertProvider(db, {
        id,
        name: p.name,
        slug: p.slug,
        currency: p.currency,
        support_email: p.support_email,
        branding: JSON.stringify({ display_name: p.name }),
        external_checkout_url: p.external_checkout_url ?? null,
        webhook_secret_prefix: checkout.prefix,
        webhook_secret_hash: checkout.hash,
        webhook_signing_secret: signing,
        created_at: clock.now(),
      });
    } catch (err) {
      if (isUniqueViolation(err, 'providers_slug_key')) throw new AppError(409, 'conflict', `slug: a provider ${p.slug} exists already`);
      throw err;
    }
    return { provider: view(await resolve(id)), checkout_secret: checkout.secret, signing_secret: signing };
  }

  const show = async (ref: string) => view(await resolve(ref));
  const list = async () => (await repo.listProvidersForAdmin(db)).map(view);

  /**
   * A disabled provider's API keys, checkout secret and staff logins are refused (403) from the next
   * request (API keys within the server's 10 s key cache); its data stays. Enabling restores them.
   */
  async function setDisabled(ref: string, disabled: boolean) {
    const p = await resolve(ref);
    await repo.updateProvider(db, p.id, { disabled });
    deps.forgetAllApiKeys?.();
    return show(p.id);
  }

  async function updateSettings(ref: string, input: ProviderSettingsInput) {
    const s = parseOperatorInput(ProviderSettingsInput, input);
    const p = await resolve(ref);
    await checkoutUrlProblem(s.external_checkout_url);
    if (Object.keys(s).length === 0) throw new AppError(422, 'validation_error', 'input: name, support_email or external_checkout_url');
    await repo.updateProvider(db, p.id, s);
    return show(p.id);
  }

  /** Where webhooks go, and a new signing secret on request (shown once); see configureWebhookEndpoint. */
  async function setWebhook(ref: string, input: WebhookInput) {
    const w = parseOperatorInput(WebhookInput, input);
    const p = await resolve(ref);
    try {
      const r = await configureWebhookEndpoint(
        { db, webhooks: deps.webhooks, production: deps.productionUrls, resolve: deps.resolve },
        p.id,
        {
          url: w.url,
          rotateSecret: w.rotate_signing_secret,
        },
      );
      return { provider: await show(p.id), signing_secret: r.newSecret, released_deliveries: r.released };
    } catch (err) {
      if (err instanceof EndpointError) throw new AppError(422, 'validation_error', err.message);
      throw err;
    }
  }

  /** A new checkout secret (X-Webhook-Secret), shown once; the old one stops at once (no overlap: one secret per provider). */
  async function rotateCheckoutSecret(ref: string) {
    const p = await resolve(ref);
    const s = newPrefixedSecret('whs');
    await repo.updateProvider(db, p.id, { webhook_secret_prefix: s.prefix, webhook_secret_hash: s.hash });
    return { provider: await show(p.id), checkout_secret: s.secret };
  }

  return { resolve, create, show, list, setDisabled, updateSettings, setWebhook, rotateCheckoutSecret };
}

export type ProviderAdminService = ReturnType<typeof createProviderAdminService>;
