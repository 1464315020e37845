// The platform-administration operations (/api/v1/admin), on a new provider "Glasfaser Nord" as the
// operator sets it up (docs/go-live.md).
import type { ExampleMap } from '../../../plugins/openapi-examples.js';

const PROVIDER_ID = '3f1c7a52-8d4e-4b6a-9c21-5e7f0a1b2c3d';
const provider = (over: Record<string, unknown> = {}) => ({
  id: PROVIDER_ID,
  name: 'Glasfaser Nord',
  slug: 'glasfaser-nord',
  disabled: false,
  currency: 'EUR',
  support_email: 'hilfe@glasfaser-nord.example',
  external_checkout_url: 'https://shop.glasfaser-nord.example/checkout',
  webhook_url: null,
  has_webhook_signing_secret: true,
  checkout_secret_prefix: 'k3v9x2qa',
  sms_configured: false,
  card_processor_connected: false,
  created_at: '2026-11-16T10:00:00.000Z',
  ...over,
});
const KEY_ID = '8b2d4f60-1a3c-4e5f-8a7b-9c0d1e2f3a4b';
const NEW_KEY_ID = 'c4e6a8b0-2d4f-4a6b-8c0d-2e4f6a8b0c2d';
const key = (over: Record<string, unknown> = {}) => ({
  id: KEY_ID,
  provider_id: PROVIDER_ID,
  name: 'support-agent',
  prefix: 'p7m2c9ze',
  features: ['agent_api_access'],
  status: 'active',
  created_at: '2026-11-16T10:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  replaced_by: null,
  ...over,
});
const SECRET_KEY = 'sk_p7m2c9ze_Vq3Xn8Lr2Tb6Kw0Yh4Jd9Fs1Gm5Pc7Az3Ue8Io2';
const PLAN_ID = 'e1a2b3c4-d5e6-4f70-8a9b-0c1d2e3f4a5b';
const version = (over: Record<string, unknown> = {}) => ({
  id: 'f0e1d2c3-b4a5-4968-8776-655443322110',
  version: 1,
  name: 'Fibre 250',
  download_mbps: 250,
  upload_mbps: 50,
  monthly_price: '34.90',
  currency: 'EUR',
  store_product_id: null,
  active: true,
  created_at: '2026-11-16T10:00:00.000Z',
  ...over,
});
const plan = (versions: unknown[]) => ({ id: PLAN_ID, provider_id: PROVIDER_ID, name: 'Fibre 250', description: null, versions });

const NO_PROVIDER = [{ name: 'provider_not_found', detail: 'No provider glasfaser-sued (give its id or slug)' }];
const NO_KEY = [{ name: 'key_not_found', detail: `No API key ${KEY_ID}` }];
const NO_PLAN = [{ name: 'plan_not_found', detail: `No plan ${PLAN_ID}` }];
const BAD_KEY_ID = [{ name: 'key_id_invalid_uuid', detail: 'key_id: Invalid UUID' }];
const BAD_PROVIDER = [{ name: 'provider_too_long', detail: 'provider: Too big: expected string to have <=100 characters' }];

const importReport = () => ({
  kind: 'buildings',
  provider_id: PROVIDER_ID,
  dry_run: false,
  committed: true,
  rows: 3,
  inserted: 3,
  updated: 0,
  errors: [],
  errors_total: 0,
});

export const ADMIN_EXAMPLES: ExampleMap = {
  adminImportInventory: {
    200: importReport(),
    404: NO_PROVIDER,
    422: [{ name: 'file_has_problems', detail: '1 problem(s) in the file: nothing was imported' }],
  },
  adminCreateProvider: {
    201: {
      provider: provider(),
      checkout_secret: 'whs_k3v9x2qa_Hq8Zt2Lm6Rb0Xn4Wc9Ke3Vy7Pd1Sj5Fa8Gu2Io6',
      signing_secret: 'whsec_q7N2v9XbL4tR8mK1pW6yC3hJ0sD5fG2aE9uI3oP7lKw=',
    },
    409: [{ name: 'slug_taken', detail: 'slug: a provider glasfaser-nord exists already' }],
    422: [{ name: 'support_email_invalid', detail: 'support_email: Invalid email address' }],
  },
  adminListProviders: { 200: [provider()] },
  adminShowProvider: { 200: provider(), 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminUpdateProvider: {
    200: provider({ support_email: 'service@glasfaser-nord.example' }),
    404: NO_PROVIDER,
    422: [{ name: 'support_email_invalid', detail: 'support_email: Invalid email address' }],
  },
  adminDisableProvider: { 200: provider({ disabled: true }), 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminEnableProvider: { 200: provider(), 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminSetProviderWebhook: {
    200: {
      provider: provider({ webhook_url: 'https://hooks.glasfaser-nord.example/netsvc' }),
      signing_secret: null,
      released_deliveries: 0,
    },
    404: NO_PROVIDER,
    422: [{ name: 'url_not_https', detail: 'url: must be https:// in production' }],
  },
  adminRotateCheckoutSecret: {
    200: {
      provider: provider({ checkout_secret_prefix: 'w8d1m4tq' }),
      checkout_secret: 'whs_w8d1m4tq_Pz4Xc8Vb2Nm6Lk0Jh3Gf7Ds1Aq5Wr9Ty2Ui6Op4',
    },
    404: NO_PROVIDER,
    422: BAD_PROVIDER,
  },
  adminInviteProviderAdmin: {
    201: {
      id: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
      email: 'admin@glasfaser-nord.example',
      first_name: 'Ada',
      last_name: 'Nord',
      sp_role: 'sp_admin',
      status: 'invited',
      created_at: '2026-11-16T10:00:00.000Z',
    },
    404: NO_PROVIDER,
    409: [{ name: 'login_exists', detail: 'A login with the email admin@glasfaser-nord.example exists already' }],
    422: [{ name: 'email_invalid', detail: 'email: Invalid email address' }],
  },
  adminIssueApiKey: {
    201: { ...key(), key: SECRET_KEY },
    404: NO_PROVIDER,
    422: [
      {
        name: 'features_invalid',
        detail: 'features.0: Invalid option: expected one of "agent_api_access"|"provisioning:write"|"serviceability:read"',
      },
    ],
  },
  adminListApiKeys: { 200: [key()], 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminRotateApiKey: {
    200: {
      key: { ...key({ id: NEW_KEY_ID, prefix: 'b5n8r1kx' }), key: 'sk_b5n8r1kx_Lm3Np7Qr1St5Uv9Wx3Yz7Ab1Cd5Ef9Gh3Ij7Kl1' },
      previous: key({ status: 'expiring', expires_at: '2026-11-17T10:00:00.000Z', replaced_by: NEW_KEY_ID }),
    },
    404: NO_KEY,
    409: [{ name: 'key_not_active', detail: 'The key is expiring: only an active key can be rotated; issue a new one instead' }],
    422: [{ name: 'overlap_out_of_range', detail: 'overlap_hours: Too big: expected number to be <=720' }],
  },
  adminRevokeApiKey: { 200: key({ status: 'revoked', revoked_at: '2026-11-16T10:00:00.000Z' }), 404: NO_KEY, 422: BAD_KEY_ID },
  adminSetApiKeyScopes: {
    200: key({ features: ['agent_api_access', 'serviceability:read'] }),
    404: NO_KEY,
    422: [
      {
        name: 'features_invalid',
        detail: 'features.0: Invalid option: expected one of "agent_api_access"|"provisioning:write"|"serviceability:read"',
      },
    ],
  },
  adminCreatePlan: {
    201: plan([version()]),
    404: NO_PROVIDER,
    422: [{ name: 'monthly_price_invalid', detail: 'monthly_price: a decimal amount with at most two decimals, e.g. 29.90' }],
  },
  adminListPlans: { 200: [plan([version()])], 404: NO_PROVIDER, 422: BAD_PROVIDER },
  adminAddPlanVersion: {
    201: plan([version({ active: false }), version({ id: 'a9b8c7d6-e5f4-4321-8fed-cba987654321', version: 2, monthly_price: '39.90' })]),
    404: NO_PLAN,
    422: [{ name: 'monthly_price_invalid', detail: 'monthly_price: a decimal amount with at most two decimals, e.g. 29.90' }],
  },
  adminSetPlanVersionActive: {
    200: plan([version({ active: false })]),
    404: [{ name: 'plan_version_not_found', detail: 'No plan version f0e1d2c3-b4a5-4968-8776-655443322110' }],
    422: [{ name: 'active_required', detail: 'active: Invalid input: expected boolean, received undefined' }],
  },
};
