// The card-processor and SMS-gateway operations of /api/v1/admin, on the provider "Glasfaser Nord" of
// admin.examples.ts (docs/go-live.md step 7).
import type { ExampleMap } from '../../../plugins/openapi-examples.js';

const PROVIDER_ID = '3f1c7a52-8d4e-4b6a-9c21-5e7f0a1b2c3d';
const ACCOUNT = 'acct_1QzX8vLm2Nb4Tr6K';
const SID = 'AC3f9e2b7c1d4a6e8f0b2c4d6e8f0a1b2c';
const card = { processor: 'stripe', account: ACCOUNT, usable: true };
const noCard = { processor: 'stripe', account: null, usable: false };
const sms = { enabled: true, gateway: 'twilio', account_sid: SID, from: '+4930123456' };
const noSms = { enabled: false, gateway: null, account_sid: null, from: null };
const view = (c: object, s: object) => ({ provider_id: PROVIDER_ID, card_processor: c, sms: s });

const NO_PROVIDER = [{ name: 'provider_not_found', detail: 'No provider glasfaser-sued (give its id or slug)' }];
const BAD_PROVIDER = [{ name: 'provider_too_long', detail: 'provider: Too big: expected string to have <=100 characters' }];

export const ADMIN_INTEGRATION_EXAMPLES: ExampleMap = {
  adminShowProviderIntegrations: { 200: view(card, sms), 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminSetCardProcessor: {
    200: view(card, noSms),
    404: NO_PROVIDER,
    422: [{ name: 'account_invalid', detail: 'account: must be a Stripe connected account id (acct_…)' }],
  },
  adminClearCardProcessor: { 200: view(noCard, sms), 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminSetSmsGateway: {
    200: view(card, sms),
    404: NO_PROVIDER,
    422: [
      { name: 'account_sid_invalid', detail: 'account_sid: must be a Twilio account SID (AC followed by 32 hex digits)' },
      { name: 'from_invalid', detail: 'from: must be an E.164 number (+4930123456) or a Messaging Service SID (MG…)' },
    ],
  },
  adminClearSmsGateway: { 200: view(card, noSms), 404: NO_PROVIDER, 422: BAD_PROVIDER },
};
