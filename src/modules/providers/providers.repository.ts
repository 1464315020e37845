import type { Executor } from '../../db/executor.js';

// One read of a provider for every module: what its mails, pages, checks and answers need
// (never its credentials: the card-processor account has its own read below).
const providerQuery = (ex: Executor, providerId: string) =>
  ex
    .selectFrom('providers')
    .select([
      'id',
      'name',
      'currency',
      'support_email',
      'sms_configured',
      'branding',
      'booking_window_days',
      'disabled',
      'external_checkout_url',
    ])
    .where('id', '=', providerId);

export function findProvider(ex: Executor, providerId: string) {
  return providerQuery(ex, providerId).executeTakeFirst();
}

/** For a provider the caller already proved (an API key's, an invoice's): its absence is a fault. */
export function getProvider(ex: Executor, providerId: string) {
  return providerQuery(ex, providerId).executeTakeFirstOrThrow();
}

export async function findCardProcessorAccount(ex: Executor, providerId: string): Promise<string | null> {
  const p = await ex.selectFrom('providers').select('card_processor_account').where('id', '=', providerId).executeTakeFirstOrThrow();
  return p.card_processor_account;
}

/** Records (or, with null, removes) the provider's card-processor connection. False: no such provider. */
export async function setCardProcessorAccount(ex: Executor, providerId: string, account: string | null): Promise<boolean> {
  const r = await ex.updateTable('providers').set({ card_processor_account: account }).where('id', '=', providerId).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** Turns SMS one-time codes on or off for the provider. False: no such provider. */
export async function setSmsConfigured(ex: Executor, providerId: string, on: boolean): Promise<boolean> {
  const r = await ex.updateTable('providers').set({ sms_configured: on }).where('id', '=', providerId).executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** What the integrations summary shows of a provider (its connection ids, never a secret). */
export function findIntegrationSettings(ex: Executor, providerId: string) {
  return ex
    .selectFrom('providers')
    .select(['id', 'card_processor_account', 'sms_configured'])
    .where('id', '=', providerId)
    .executeTakeFirst();
}
