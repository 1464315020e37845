// A provider's connections to the outside systems that are per provider: the card processor (a
// Stripe connected account, docs/decisions.md "Card processor and SMS gateway") and the SMS
// gateway (Twilio credentials, the auth token sealed under SECRETS_KEY). The operator CLI and the
// admin routes call these; nothing here ever returns a secret.
import type { Adapters } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Executor } from '../../db/executor.js';
import type { Clock } from '../../lib/clock.js';
import { E164, TWILIO_ACCOUNT_SID, TWILIO_MESSAGING_SERVICE_SID, createTwilioClient, type SmsSender } from '../../adapters/twilio.sms.js';
import { AppError, notFound } from '../../lib/errors.js';
import { createSecretBox, SecretBoxError, secretsKeyOf } from '../../lib/secret-box.js';
import { findIntegrationSettings, setCardProcessorAccount, setSmsConfigured } from '../providers/index.js';
import * as repo from './integrations.repository.js';

export interface IntegrationsDeps {
  db: Db;
  clock: Clock;
  config: Config;
  adapters: Adapters;
  /** Tests: the HTTP client Twilio requests go through. */
  fetch?: typeof fetch;
}

/** A Stripe connected account id. */
const CONNECTED_ACCOUNT = /^acct_[A-Za-z0-9_]{1,250}$/;

const boxContext = (providerId: string) => `sms_gateway:${providerId}`;
const invalid = (field: string, message: string) => new AppError(422, 'unprocessable', `${field}: ${message}`);
const noProvider = () => notFound('No such provider');

export interface IntegrationsSummary {
  provider_id: string;
  card_processor: {
    /** The processor this server runs (one for every provider). */
    processor: 'stripe' | 'simulator' | null;
    account: string | null;
    /** False when the account is set but this server has no card processor (production without STRIPE_SECRET_KEY). */
    usable: boolean;
  };
  sms: {
    enabled: boolean;
    gateway: 'twilio' | 'simulator' | null;
    account_sid: string | null;
    from: string | null;
  };
}

export function createIntegrationsService(deps: IntegrationsDeps) {
  const { db, clock, config, adapters } = deps;
  let box: ReturnType<typeof createSecretBox> | undefined;
  // Built on first use: tools that never touch a gateway need no key.
  const secretBox = () => (box ??= createSecretBox(secretsKeyOf(config)));
  const twilio = createTwilioClient({ baseUrl: config.TWILIO_API_URL, fetch: deps.fetch });

  async function showIntegrations(providerId: string): Promise<IntegrationsSummary> {
    const p = await findIntegrationSettings(db, providerId);
    if (!p) throw noProvider();
    const gw = await repo.findSmsGateway(db, providerId);
    const processor = adapters.cardProcessor ? config.CARD_PROCESSOR : null;
    return {
      provider_id: p.id,
      card_processor: { processor, account: p.card_processor_account, usable: !!(processor && p.card_processor_account) },
      sms: {
        enabled: p.sms_configured,
        gateway: !p.sms_configured ? null : gw ? 'twilio' : adapters.sms ? 'simulator' : null,
        account_sid: gw?.account_sid ?? null,
        from: gw?.sender ?? null,
      },
    };
  }

  /** Records the provider's Stripe connected account (acct_…); card payments start working with it. */
  async function setCardProcessor(providerId: string, input: { account: string }) {
    if (typeof input?.account !== 'string' || !CONNECTED_ACCOUNT.test(input.account))
      throw invalid('account', 'must be a Stripe connected account id (acct_…)');
    if (!(await setCardProcessorAccount(db, providerId, input.account))) throw noProvider();
    return showIntegrations(providerId);
  }

  /** Removes the connection: card endpoints answer 409 and invoices are collected by payment link only. */
  async function clearCardProcessor(providerId: string) {
    if (!(await setCardProcessorAccount(db, providerId, null))) throw noProvider();
    return showIntegrations(providerId);
  }

  /** Stores Twilio credentials (the auth token sealed) and turns SMS codes on. */
  async function setSmsGateway(providerId: string, input: { accountSid: string; authToken: string; from: string }) {
    if (typeof input?.accountSid !== 'string' || !TWILIO_ACCOUNT_SID.test(input.accountSid))
      throw invalid('account_sid', 'must be a Twilio account SID (AC followed by 32 hex digits)');
    if (typeof input.authToken !== 'string' || !/^[A-Za-z0-9]{16,128}$/.test(input.authToken))
      throw invalid('auth_token', 'must be the Twilio auth token (16 to 128 letters and digits)');
    if (typeof input.from !== 'string' || !(E164.test(input.from) || TWILIO_MESSAGING_SERVICE_SID.test(input.from)))
      throw invalid('from', 'must be an E.164 number (+4930123456) or a Messaging Service SID (MG…)');
    await db.transaction().execute(async (trx) => {
      if (!(await setSmsConfigured(trx, providerId, true))) throw noProvider();
      await repo.upsertSmsGateway(trx, {
        providerId,
        accountSid: input.accountSid,
        authTokenSealed: secretBox().seal(input.authToken, boxContext(providerId)),
        sender: input.from,
        now: clock.now(),
      });
    });
    return showIntegrations(providerId);
  }

  /** Forgets the credentials and turns SMS codes off (503 dependency_unconfigured again). */
  async function clearSmsGateway(providerId: string) {
    await db.transaction().execute(async (trx) => {
      if (!(await setSmsConfigured(trx, providerId, false))) throw noProvider();
      await repo.deleteSmsGateway(trx, providerId);
    });
    return showIntegrations(providerId);
  }

  /**
   * How the provider's SMS codes are sent, or null (503 dependency_unconfigured): its Twilio
   * gateway; outside production a provider with SMS on and no gateway uses the simulator.
   */
  async function smsSenderFor(ex: Executor, providerId: string): Promise<SmsSender | null> {
    const p = await findIntegrationSettings(ex, providerId);
    if (!p?.sms_configured) return null;
    const gw = await repo.findSmsGateway(ex, providerId);
    if (!gw) return adapters.sms;
    let authToken: string;
    try {
      authToken = secretBox().open(gw.auth_token_sealed, boxContext(providerId));
    } catch (err) {
      // Sealed under another SECRETS_KEY (or altered): as good as no gateway until stored again.
      if (err instanceof SecretBoxError) return null;
      throw err;
    }
    return twilio.sender({ accountSid: gw.account_sid, authToken, from: gw.sender });
  }

  return { showIntegrations, setCardProcessor, clearCardProcessor, setSmsGateway, clearSmsGateway, smsSenderFor };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
