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
