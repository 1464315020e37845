import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.js';
import { isUuid } from '../lib/ids.js';
import { checkOutboundUrl, type Resolve } from '../lib/outbound-url.js';
import type { Webhooks } from './types.js';
import { lockProviderEndpoint, setProviderEndpoint } from './webhook.repository.js';

/** A Standard Webhooks signing secret: "whsec_" + base64 of 32 random bytes (the raw HMAC key). */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export class EndpointError extends Error {}

export interface EndpointDeps {
  db: Db;
  webhooks: Pick<Webhooks, 'releaseWaiting'>;
  /** NODE_ENV=production: https only, never an internal address (checkOutboundUrl). */
  production: boolean;
  /** Name resolution for that check (tests); DNS otherwise. */
  resolve?: Resolve;
}

export interface EndpointChange {
  /** The provider's webhook URL (see checkOutboundUrl); null takes it away (deliveries then wait in the outbox). */
  url: string | null;
  /** Draw a new signing secret even when the provider has one (receivers must switch to it). */
  rotateSecret?: boolean;
}

export interface EndpointResult {
  providerId: string;
  providerName: string;
  url: string | null;
  /** The new signing secret, shown once; null when the existing one was kept. */
  newSecret: string | null;
  /** Deliveries that waited for a URL and were made due now. */
  released: number;
}

/**
 * Sets where a provider's webhooks go (the operator's step: no API route changes it). A provider
 * without a signing secret gets one (and another on `rotateSecret`); deliveries that waited in the
 * outbox for a URL are released in the same transaction, so they go out now rather than at their
 * next check (up to 15 minutes later).
 */
export async function configureWebhookEndpoint(deps: EndpointDeps, providerId: string, change: EndpointChange): Promise<EndpointResult> {
  if (!isUuid(providerId)) throw new EndpointError(`provider: not a provider id (UUID): ${providerId}`);
  if (change.url !== null) {
    const why = await checkOutboundUrl(change.url, { production: deps.production, resolve: deps.resolve });
    if (why) throw new EndpointError(`url: ${why}`);
  }
  return deps.db.transaction().execute(async (trx) => {
    const p = await lockProviderEndpoint(trx, providerId);
    if (!p) throw new EndpointError(`provider: no provider ${providerId}`);
    const newSecret = change.rotateSecret || !p.webhook_signing_secret ? newSigningSecret() : null;
    await setProviderEndpoint(trx, providerId, change.url, newSecret);
    const released = change.url ? await deps.webhooks.releaseWaiting(trx, providerId) : 0;
    return { providerId, providerName: p.name, url: change.url, newSecret, released };
  });
}
