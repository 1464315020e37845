// The authorization matrix, generated from the app's own route table: every route must be listed
// here (a new route fails the test until it is), and every route is called with no credential, a
// malformed one, a disabled account's key, a key lacking the feature or scope, an expired JWT, a JWT
// signed with another key, a JWT of the wrong role and a verified session of another customer.
// Every route that takes an id answers a credential of another provider (or another subscriber)
// exactly like an id that does not exist.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';
import { createLinkToken } from '../../src/modules/auth/link-tokens.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { agentOperations } from '../../src/surfaces/agent/mcp.catalogue.js';
import {
  createBuilding,
  createCheckoutSession,
  createInvoice,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
  createUser,
} from '../helpers/factories.js';

type Auth =
  | 'none' // public, or authorised by a link token in the path
  | 'agent' // X-API-Key with agent_api_access
  | 'agentVerified' // … plus X-Verified-Session of the customer in the path
  | 'partnerKey' // X-API-Key with the scope in `scope`
  | 'webhookSecret'
  | 'subscriber' // subscriber JWT
  | 'dashboard' // provider staff or platform admin JWT
  | 'staffAdmin' // provider staff with sp_role sp_admin (or none)
  | 'platformAdmin'; // platform administrator JWT

interface World {
  A: Party;
  B: Party;
  disabled: Awaited<ReturnType<typeof createProvider>>;
  noAgent: Awaited<ReturnType<typeof createProvider>>;
  noScope: Awaited<ReturnType<typeof createProvider>>;
  randomUuid: string;
}
interface Party {
  provider: Awaited<ReturnType<typeof createProvider>>;
  planA: string;
  planB: string;
  buildingId: string;
  customer: string;
  otherCustomer: string;
  subscription: string;
  invoice: string;
  creditNote: string;
  job: string;
  session: string;
  staffUser: string;
  session_token: string;
  other_session_token: string;
  subscriberJwt: string;
  adminJwt: string;
  supportJwt: string;
  platformJwt: string;
}

interface Entry {
  auth: Auth;
  scope?: string;
  /** Values for the path parameters: those of party P (the owner). */
  params?: (p: Party, w: World) => Record<string, string>;
  query?: (p: Party, w: World) => string;
  body?: (p: Party, w: World) => unknown;
  /** The owned-resource variant: the same call with another provider's (or subscriber's) id. */
  crossId?: 'path' | 'body' | 'query';
}

const subscriberBody = { email: 'matrix@example.test', first_name: 'Matrix', last_name: 'Test' };

const MATRIX: Record<string, Entry> = {
  // /agent
  'GET /agent/customers/search': { auth: 'agent', query: () => 'q=Mustermann' },
  'POST /agent/verify/issue': { auth: 'agent', body: (p) => ({ customer_id: p.customer, channel: 'email' }), crossId: 'body' },
  'POST /agent/verify/check': { auth: 'agent', body: (p) => ({ customer_id: p.customer, code: '000000' }), crossId: 'body' },
  'GET /agent/customers/:customerId': { auth: 'agentVerified', params: (p) => ({ customerId: p.customer }), crossId: 'path' },
  'GET /agent/customers/:customerId/billing-summary': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    crossId: 'path',
  },
  'GET /agent/customers/:customerId/payments': { auth: 'agentVerified', params: (p) => ({ customerId: p.customer }), crossId: 'path' },
  'GET /agent/customers/:customerId/network-health': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    crossId: 'path',
  },
  'GET /agent/customers/:customerId/tickets': { auth: 'agentVerified', params: (p) => ({ customerId: p.customer }), crossId: 'path' },
  'GET /agent/customers/:customerId/plan-options': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    query: (p) => `subscription_id=${p.subscription}`,
    crossId: 'path',
  },
  'GET /agent/customers/:customerId/recent-changes': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/recent-changes/:changeId/resend-confirmation': {
    auth: 'agentVerified',
    params: (p, w) => ({ customerId: p.customer, changeId: w.randomUuid }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/plan-change/preview': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    body: (p) => ({ subscription_id: p.subscription, plan_version_id: p.planB }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/plan-change': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    body: (p) => ({ subscription_id: p.subscription, plan_version_id: p.planB, confirm: false }),
    crossId: 'path',
  },
  'PATCH /agent/customers/:customerId/contact': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    body: () => ({ contact_type: 'contract', first_name: 'Erika' }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/password-reset': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    body: () => ({ action: 'password_reset' }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/invoices/:invoiceId/resend': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer, invoiceId: p.invoice }),
    crossId: 'path',
  },
  'POST /agent/customers/:customerId/notes': {
    auth: 'agentVerified',
    params: (p) => ({ customerId: p.customer }),
    body: () => ({ note: 'matrix' }),
    crossId: 'path',
  },
  'POST /agent/tickets': {
    auth: 'agent',
    body: (p) => ({ customer_id: p.customer, priority: 'low', ai_summary: 'matrix' }),
    crossId: 'body',
  },
  // the MCP endpoint: the same key hook; its tool calls go through the matrix again below
  'POST /agent/mcp': { auth: 'agent', body: () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) },
  'GET /agent/mcp': { auth: 'agent' },
  'DELETE /agent/mcp': { auth: 'agent' },
  // auth
  'POST /auth/login': { auth: 'none' },
  'POST /auth/set-password': { auth: 'none' },
  // partner: plan change
  'GET /partner/subscriptions/:id/change-plan/preview': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    params: (p) => ({ id: p.subscription }),
    query: (p) => `plan_version_id=${p.planB}`,
    crossId: 'path',
  },
  'POST /partner/subscriptions/:id/change-plan': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    params: (p) => ({ id: p.subscription }),
    body: (p) => ({ plan_version_id: p.planB }),
    crossId: 'path',
  },
  // the aliases the partner document's note uses (issue 28 §3): the same operations
  'GET /subscriptions/:id/change-plan/preview': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    params: (p) => ({ id: p.subscription }),
    query: (p) => `plan_version_id=${p.planB}`,
    crossId: 'path',
  },
  'POST /subscriptions/:id/change-plan': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    params: (p) => ({ id: p.subscription }),
    body: (p) => ({ plan_version_id: p.planB }),
    crossId: 'path',
  },
  // serviceability
  'GET /serviceability/autocomplete': { auth: 'partnerKey', scope: 'serviceability:read', query: () => 'q=Hauptstr' },
  'POST /serviceability/check': {
    auth: 'partnerKey',
    scope: 'serviceability:read',
    body: () => ({ address: 'Hauptstraße 5, 10115 Berlin' }),
  },
  'GET /serviceability/units': {
    auth: 'partnerKey',
    scope: 'serviceability:read',
    query: (p) => `building_id=${p.buildingId}`,
    crossId: 'query',
  },
  // location
  'POST /location/lookup': { auth: 'none' },
  'POST /location/details': { auth: 'dashboard', body: () => ({ location_identifier: 'LID-NOPE' }) },
  // checkout
  'POST /external-checkout/sessions': { auth: 'none' },
  'GET /external-checkout/sessions/:session_id': { auth: 'webhookSecret', params: (p) => ({ session_id: p.session }), crossId: 'path' },
  'PATCH /external-checkout/sessions/:session_id': {
    auth: 'webhookSecret',
    params: (p) => ({ session_id: p.session }),
    body: () => ({ partner_reference: 'm' }),
    crossId: 'path',
  },
  'POST /external-checkout/sessions/:session_id/cancel': {
    auth: 'webhookSecret',
    params: (p) => ({ session_id: p.session }),
    crossId: 'path',
  },
  'GET /external-checkout/sessions/:session_id/status': { auth: 'none' },
  'POST /external-checkout/subscription-status': {
    auth: 'webhookSecret',
    body: (p) => ({ subscription_id: p.subscription, action: 'restore' }),
    crossId: 'body',
  },
  'POST /external-checkout/complete': {
    auth: 'webhookSecret',
    body: (p) => ({ session_id: p.session, subscriber: subscriberBody }),
    crossId: 'body',
  },
  'POST /external-checkout/anonymous-complete': {
    auth: 'webhookSecret',
    body: (p) => ({ session_id: p.session, subscriber: subscriberBody }),
    crossId: 'body',
  },
  'GET /sandbox/checkout': { auth: 'none' },
  'POST /sandbox/checkout/pay': { auth: 'none' },
  'POST /sandbox/checkout/cancel': { auth: 'none' },
  // provisioning
  'POST /provisioning/provider-initiated': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    body: (p) => ({ plan_version_id: p.planA, location_hash: 'loc_does_not_exist', subscriber: subscriberBody }),
  },
  'POST /provisioning/bulk': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    body: (p) => ({ items: [{ plan_version_id: p.planA, location_hash: 'loc_nope', subscriber: subscriberBody }] }),
  },
  'GET /provisioning/jobs/:job_id': {
    auth: 'partnerKey',
    scope: 'provisioning:write',
    params: (p) => ({ job_id: p.job }),
    crossId: 'path',
  },
  'POST /provisioning/confirm-install': { auth: 'dashboard', body: (p) => ({ subscription_id: p.subscription }), crossId: 'body' },
  // the CORS preflight of the session status route (@fastify/cors's hidden OPTIONS route)
  'OPTIONS /external-checkout/sessions/:session_id/status*': { auth: 'none' },
  'POST /provisioning/ship-install': {
    auth: 'dashboard',
    body: (p) => ({ subscription_id: p.subscription, carrier: 'DHL', tracking_reference: 'JJD0001' }),
    crossId: 'body',
  },
  // booking and payment pages: the link token is the credential
  'GET /booking/:token': { auth: 'none' },
  'GET /booking/:token/slots': { auth: 'none' },
  'POST /booking/:token': { auth: 'none' },
  'DELETE /booking/:token': { auth: 'none' },
  'GET /pay/:token': { auth: 'none' },
  'POST /pay/:token': { auth: 'none' },
  'GET /pay/:token/complete': { auth: 'none' },
  // Stripe's events: the Stripe-Signature is the credential (400 without it), checked by the SDK.
  'POST /webhooks/stripe': { auth: 'none' },
  'GET /rollback/:token': { auth: 'none' },
  'POST /rollback/:token': { auth: 'none' },
  // subscriber self-service
  'GET /subscriber/me': { auth: 'subscriber' },
  'GET /subscriber/me/details': { auth: 'subscriber' },
  'PATCH /subscriber/me/password': {
    auth: 'subscriber',
    body: () => ({ current_password: 'wrong-password', new_password: 'another-password-1' }),
  },
  'GET /subscriber/me/invoices': { auth: 'subscriber' },
  'GET /subscriber/me/credit-notes': { auth: 'subscriber' },
  'GET /subscriber/me/usage': { auth: 'subscriber' },
  'GET /subscriber/status-history': { auth: 'subscriber' },
  'PATCH /subscriber/me/billing-day': {
    auth: 'subscriber',
    body: (p) => ({ subscription_id: p.subscription, billing_day: 5 }),
    crossId: 'body',
  },
  'GET /subscriber/me/payment-method': { auth: 'subscriber' },
  'POST /subscriber/me/payment-method/setup': { auth: 'subscriber' },
  'POST /subscriber/me/payment-method/confirm': { auth: 'subscriber', body: () => ({ client_secret: 'seti_secret_nope_12345' }) },
  // internal API (/api/v1 only)
  'GET /api/v1/credit-notes/:id/pdf': { auth: 'subscriber', params: (p) => ({ id: p.creditNote }), crossId: 'path' },
  'GET /api/v1/subscription/:id/cancel/preview': {
    auth: 'dashboard',
    params: (p) => ({ id: p.subscription }),
    query: () => 'end_date=2026-12-31',
    crossId: 'path',
  },
  'POST /api/v1/subscription/:id/cancel': {
    auth: 'dashboard',
    params: (p) => ({ id: p.subscription }),
    body: () => ({ end_date: '2026-12-31' }),
    crossId: 'path',
  },
  'POST /api/v1/provider/users/invite': { auth: 'staffAdmin', body: () => ({ email: 'invitee@example.test', sp_role: 'support' }) },
  'GET /api/v1/provider/users': { auth: 'staffAdmin' },
  'POST /api/v1/provider/users/:user_id/resend-invite': { auth: 'staffAdmin', params: (p) => ({ user_id: p.staffUser }), crossId: 'path' },
  'DELETE /api/v1/provider/users/:user_id': { auth: 'staffAdmin', params: (p) => ({ user_id: p.staffUser }), crossId: 'path' },
  'POST /api/v1/admin/subscriptions/:id/change-plan': {
    auth: 'platformAdmin',
    params: (p) => ({ id: p.subscription }),
    body: (p) => ({ plan_version_id: p.planB, override_reason: 'matrix: limit override' }),
  },
  // The operator's routes (docs/operations.md): X-Admin-Token or a platform_admin login.
  'POST /api/v1/admin/providers': {
    auth: 'platformAdmin',
    body: () => ({ name: 'Matrix Fibre', slug: `matrix-${randomBytes(4).toString('hex')}`, support_email: 'm@matrix.test' }),
  },
  'GET /api/v1/admin/providers': { auth: 'platformAdmin' },
  'GET /api/v1/admin/providers/:provider': { auth: 'platformAdmin', params: (p) => ({ provider: p.provider.id }) },
  'PATCH /api/v1/admin/providers/:provider': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
    body: () => ({ support_email: 'care@matrix.test' }),
  },
  'POST /api/v1/admin/providers/:provider/disable': { auth: 'platformAdmin', params: (_p, w) => ({ provider: w.disabled.id }) },
  'POST /api/v1/admin/providers/:provider/enable': { auth: 'platformAdmin', params: (_p, w) => ({ provider: w.randomUuid }) },
  'PUT /api/v1/admin/providers/:provider/webhook': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
    body: () => ({ url: null }),
  },
  'POST /api/v1/admin/providers/:provider/checkout-secret/rotate': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
  },
  'POST /api/v1/admin/providers/:provider/admins': {
    auth: 'platformAdmin',
    params: (p) => ({ provider: p.provider.id }),
    body: () => ({ email: `admin-${randomBytes(4).toString('hex')}@matrix.test` }),
  },
  'GET /api/v1/admin/providers/:provider/integrations': { auth: 'platformAdmin', params: (p) => ({ provider: p.provider.id }) },
  'PUT /api/v1/admin/providers/:provider/card-processor': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
    body: () => ({ account: 'acct_Matrix01' }),
  },
  'DELETE /api/v1/admin/providers/:provider/card-processor': { auth: 'platformAdmin', params: (_p, w) => ({ provider: w.randomUuid }) },
  'PUT /api/v1/admin/providers/:provider/sms-gateway': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
    body: () => ({ account_sid: `AC${'0'.repeat(32)}`, auth_token: 'a'.repeat(32), from: '+4930123456' }),
  },
  'DELETE /api/v1/admin/providers/:provider/sms-gateway': { auth: 'platformAdmin', params: (_p, w) => ({ provider: w.randomUuid }) },
  'POST /api/v1/admin/providers/:provider/api-keys': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid }),
    body: () => ({ features: [] }),
  },
  'GET /api/v1/admin/providers/:provider/api-keys': { auth: 'platformAdmin', params: (p) => ({ provider: p.provider.id }) },
  'POST /api/v1/admin/api-keys/:key_id/rotate': { auth: 'platformAdmin', params: (_p, w) => ({ key_id: w.randomUuid }), body: () => ({}) },
  'POST /api/v1/admin/api-keys/:key_id/revoke': { auth: 'platformAdmin', params: (_p, w) => ({ key_id: w.randomUuid }) },
  'PUT /api/v1/admin/api-keys/:key_id/scopes': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ key_id: w.randomUuid }),
    body: () => ({ features: ['agent_api_access'] }),
  },
  'POST /api/v1/admin/providers/:provider/plans': {
    auth: 'platformAdmin',
    params: (p) => ({ provider: p.provider.id }),
    body: () => ({ name: 'Matrix 100', download_mbps: 100, upload_mbps: 20, monthly_price: '19.90' }),
  },
  'GET /api/v1/admin/providers/:provider/plans': { auth: 'platformAdmin', params: (p) => ({ provider: p.provider.id }) },
  'POST /api/v1/admin/plans/:plan_id/versions': { auth: 'platformAdmin', params: (_p, w) => ({ plan_id: w.randomUuid }), body: () => ({}) },
  'POST /api/v1/admin/providers/:provider/imports/:kind': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ provider: w.randomUuid, kind: 'units' }),
    body: () => 'building_ref,label\nB-1,1A\n',
  },
  'PATCH /api/v1/admin/plan-versions/:plan_version_id': {
    auth: 'platformAdmin',
    params: (_p, w) => ({ plan_version_id: w.randomUuid }),
    body: () => ({ active: true }),
  },
};

// /metrics checks its own bearer token (METRICS_TOKEN; test/foundation/operations.test.ts).
const SERVICE_ROUTES = new Set(['GET /openapi.json', 'GET /agent/openapi.json', 'GET /', 'GET /healthz', 'GET /readyz', 'GET /metrics']);

let t: TestApp;
let w: World;

async function party(t: TestApp): Promise<Party> {
  const provider = await createProvider(t.db);
  const planA = await createPlanVersion(t.db, provider.id, { priceCents: 3000 });
  const planB = await createPlanVersion(t.db, provider.id, { priceCents: 4000 });
  const building = await createBuilding(t.db, provider.id, { lineType: 'first_line' });
  const loc = await createLocation(t.db, provider.id, building.id, building.units[0]!.id);
  const user = await createUser(t.db, { role: 'subscriber' });
  const cust = await createSubscriber(t.db, provider.id, { userId: user.id });
  const other = await createSubscriber(t.db, provider.id);
  const sub = await createSubscription(t.db, {
    providerId: provider.id,
    subscriberId: cust.id,
    planVersionId: planA.id,
    buildingId: building.id,
    unitId: building.units[0]!.id,
    locationId: loc.id,
  });
  const inv = await createInvoice(t.db, { providerId: provider.id, subscriberId: cust.id, subscriptionId: sub.id });
  const creditNote = newId();
  await t.db
    .insertInto('credit_notes')
    .values({
      id: creditNote,
      provider_id: provider.id,
      subscriber_id: cust.id,
      subscription_id: sub.id,
      number: `CN-${creditNote.slice(0, 8)}`,
      state: 'open',
      amount_cents: 500,
      currency: 'EUR',
      reason: 'matrix',
      issued_at: t.clock.now(),
    })
    .execute();
  const job = newId();
  await t.db
    .insertInto('jobs')
    .values({
      id: job,
      kind: 'provisioning.port',
      payload: JSON.stringify({ subscription_id: sub.id }),
      provider_id: provider.id,
      subscription_id: sub.id,
      status: 'succeeded',
    })
    .execute();
  const session = await createCheckoutSession(t.db, {
    providerId: provider.id,
    planVersionId: planA.id,
    buildingId: building.id,
    unitId: building.units[1]!.id,
    createdAt: t.clock.now(),
  });
  const staff = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: provider.id, password: null });
  const admin = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: provider.id });
  const platform = await createUser(t.db, { role: 'platform_admin' });
  const token = `vs_matrix_${newId()}`;
  const otherToken = `vs_matrix_${newId()}`;
  const expires = new Date(t.clock.now().getTime() + 600_000);
  await t.db
    .insertInto('verified_sessions')
    .values([
      { id: newId(), provider_id: provider.id, subscriber_id: cust.id, token_hash: sha256(token), expires_at: expires },
      { id: newId(), provider_id: provider.id, subscriber_id: other.id, token_hash: sha256(otherToken), expires_at: expires },
    ])
    .execute();
  const jwt = async (u: { id: string }, role: string, spRole: string | null, providerId: string | null) =>
    `Bearer ${(await t.services.auth.issueJwt({ id: u.id, role, sp_role: spRole, provider_id: providerId })).access_token}`;
  return {
    provider,
    planA: planA.id,
    planB: planB.id,
    buildingId: building.id,
    customer: cust.id,
    otherCustomer: other.id,
    subscription: sub.id,
    invoice: inv.id,
    creditNote,
    job,
    session: session.id,
    staffUser: staff.id,
    session_token: token,
    other_session_token: otherToken,
    subscriberJwt: await jwt(user, 'subscriber', null, null),
    adminJwt: await jwt(admin, 'service_provider', 'sp_admin', provider.id),
    supportJwt: await jwt(staff, 'service_provider', 'support', provider.id),
    platformJwt: await jwt(platform, 'platform_admin', null, null),
  };
}

beforeAll(async () => {
  t = await buildTestApp({ env: { SANDBOX: 'true' } });
  w = {
    A: await party(t),
    B: await party(t),
    disabled: await createProvider(t.db, { disabled: true }),
    noAgent: await createProvider(t.db, { features: ['provisioning:write', 'serviceability:read'] }),
    noScope: await createProvider(t.db, { features: ['agent_api_access'] }),
    randomUuid: '7a1f0c5e-3b2d-4c8e-9f6a-1d2e3f4a5b6c',
  };
}, 60_000);
afterAll(() => t.close());

function uniqueRoutes() {
  const seen = new Map<string, { method: string; url: string }>();
  for (const r of t.app.routeTable) {
    if (r.url.startsWith('/docs') || r.url.startsWith('/agent/docs')) continue;
    seen.set(`${r.method} ${r.url}`, r);
  }
  return [...seen.values()];
}

/** The matrix entry of a route; /api/v1 copies of partner routes share the root route's entry. */
function entryOf(method: string, url: string): Entry | undefined {
  return MATRIX[`${method} ${url}`] ?? MATRIX[`${method} ${url.replace(/^\/api\/v1(?=\/)/, '')}`];
}

function call(
  method: string,
  url: string,
  e: Entry,
  p: Party,
  headers: Record<string, string | undefined>,
  over: { params?: Record<string, string>; body?: unknown; query?: string } = {},
) {
  const params = over.params ?? e.params?.(p, w) ?? {};
  let path = url.replace(/:(\w+)/g, (_, name) => encodeURIComponent(params[name] ?? w.randomUuid));
  const query = over.query ?? e.query?.(p, w);
  if (query) path += `?${query}`;
  const body = over.body ?? e.body?.(p, w);
  const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return t.app.inject({ method: method as never, url: path, headers: clean, ...(body !== undefined ? { payload: body as object } : {}) });
}

/** Valid credentials of party P for the entry's auth kind. */
function goodHeaders(e: Entry, p: Party): Record<string, string> {
  switch (e.auth) {
    case 'agent':
    case 'partnerKey':
      return { 'x-api-key': p.provider.apiKey };
    case 'agentVerified':
      return { 'x-api-key': p.provider.apiKey, 'x-verified-session': p.session_token };
    case 'webhookSecret':
      return { 'x-webhook-secret': p.provider.webhookSecret };
    case 'subscriber':
      return { authorization: p.subscriberJwt };
    case 'dashboard':
    case 'staffAdmin':
      return { authorization: p.adminJwt };
    case 'platformAdmin':
      return { authorization: p.platformJwt };
    default:
      return {};
  }
}

const stripRequestId = (body: string) => body.replace(/"request_id":"[^"]*"/g, '"request_id":"-"');

async function expiredJwt(): Promise<string> {
  const tok = await t.services.auth.issueJwt({ id: newId(), role: 'service_provider', sp_role: 'sp_admin', provider_id: w.A.provider.id });
  t.clock.advance(2 * 3600_000);
  return tok.access_token;
}

async function foreignJwt(role: string): Promise<string> {
  const now = Math.floor(t.clock.now().getTime() / 1000);
  return new SignJWT({ role, sp_role: 'sp_admin', service_provider_id: w.A.provider.id })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(newId())
    .setIssuer('netsvc-api')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode('another-signing-key-another-signing-key-123'));
}

describe('authorization matrix', () => {
  it('lists every route of the app (a new route fails here until it is added)', () => {
    const missing = uniqueRoutes()
      .map((r) => `${r.method} ${r.url}`)
      .filter((k) => !SERVICE_ROUTES.has(k) && !entryOf(...(k.split(' ') as [string, string])));
    expect(missing).toEqual([]);
    const stale = Object.keys(MATRIX).filter((k) => !uniqueRoutes().some((r) => `${r.method} ${r.url}` === k));
    expect(stale).toEqual([]);
  });

  it('refuses a missing, malformed, disabled or under-privileged API key on every key route', async () => {
    for (const { method, url } of uniqueRoutes()) {
      const e = entryOf(method, url);
      if (!e || !['agent', 'agentVerified', 'partnerKey'].includes(e.auth)) continue;
      const agent = url.startsWith('/agent');
      const extra = e.auth === 'agentVerified' ? { 'x-verified-session': w.A.session_token } : {};
      const missing = await call(method, url, e, w.A, { ...extra });
      const malformed = await call(method, url, e, w.A, { ...extra, 'x-api-key': 'sk_not_a_key' });
      const disabled = await call(method, url, e, w.A, { ...extra, 'x-api-key': w.disabled.apiKey });
      const lacking = await call(method, url, e, w.A, { ...extra, 'x-api-key': agent ? w.noAgent.apiKey : w.noScope.apiKey });
      const label = `${method} ${url}`;
      if (agent) {
        for (const r of [missing, malformed, disabled]) {
          expect(r.statusCode, label).toBe(403);
          expect(r.json().error.code, label).toBe('invalid_api_key');
        }
        expect(lacking.statusCode, label).toBe(403);
        expect(lacking.json().error.code, label).toBe('feature_not_enabled');
      } else {
        expect(missing.statusCode, label).toBe(401);
        expect(missing.json(), label).toEqual({ detail: 'Not authenticated' });
        for (const r of [malformed, disabled]) {
          expect(r.statusCode, label).toBe(403);
          expect(r.json(), label).toEqual({ detail: 'Invalid credentials' });
        }
        expect(lacking.statusCode, `${label} without ${e.scope}`).toBe(403);
      }
    }
  });

  it('refuses a missing, malformed or disabled webhook secret', async () => {
    for (const { method, url } of uniqueRoutes()) {
      const e = entryOf(method, url);
      if (e?.auth !== 'webhookSecret') continue;
      const label = `${method} ${url}`;
      const missing = await call(method, url, e, w.A, {});
      const malformed = await call(method, url, e, w.A, { 'x-webhook-secret': 'whs_nope' });
      const disabled = await call(method, url, e, w.A, { 'x-webhook-secret': w.disabled.webhookSecret });
      expect(missing.statusCode, label).toBe(401);
      expect(missing.json(), label).toEqual({ detail: 'Not authenticated' });
      for (const r of [malformed, disabled]) {
        expect(r.statusCode, label).toBe(403);
        expect(r.json(), label).toEqual({ detail: 'Invalid credentials' });
      }
    }
  });

  it('refuses a missing, malformed, expired, foreign-signed or wrong-role JWT on every JWT route', async () => {
    const expired = await expiredJwt();
    try {
      for (const { method, url } of uniqueRoutes()) {
        const e = entryOf(method, url);
        if (!e || !['subscriber', 'dashboard', 'staffAdmin', 'platformAdmin'].includes(e.auth)) continue;
        const label = `${method} ${url}`;
        const missing = await call(method, url, e, w.A, {});
        expect(missing.statusCode, label).toBe(401);
        expect(missing.json(), label).toEqual({ detail: 'Not authenticated' });
        for (const bad of [
          'Bearer nonsense',
          `Bearer ${expired}`,
          `Bearer ${await foreignJwt(e.auth === 'subscriber' ? 'subscriber' : 'service_provider')}`,
        ]) {
          const r = await call(method, url, e, w.A, { authorization: bad });
          expect(r.statusCode, `${label} with ${bad.slice(0, 20)}`).toBe(403);
          expect(r.json(), label).toEqual({ detail: 'Invalid credentials' });
        }
      }
    } finally {
      t.clock.advance(-2 * 3600_000);
    }
    for (const { method, url } of uniqueRoutes()) {
      const e = entryOf(method, url);
      if (!e || !['subscriber', 'dashboard', 'staffAdmin', 'platformAdmin'].includes(e.auth)) continue;
      const label = `${method} ${url}`;
      // subscribers never reach dashboard routes; staff sub-roles other than sp_admin never manage staff
      const wrong = e.auth === 'subscriber' ? null : w.A.subscriberJwt;
      if (wrong) expect((await call(method, url, e, w.A, { authorization: wrong })).statusCode, `${label} as subscriber`).toBe(403);
      if (e.auth === 'staffAdmin')
        expect((await call(method, url, e, w.A, { authorization: w.A.supportJwt })).statusCode, `${label} as support`).toBe(403);
      // only a platform administrator overrides: provider staff (even sp_admin) are refused
      if (e.auth === 'platformAdmin')
        expect((await call(method, url, e, w.A, { authorization: w.A.adminJwt })).statusCode, `${label} as provider admin`).toBe(403);
    }
  });

  it('verified routes need the session of that very customer', async () => {
    for (const { method, url } of uniqueRoutes()) {
      const e = entryOf(method, url);
      if (e?.auth !== 'agentVerified') continue;
      const label = `${method} ${url}`;
      const none = await call(method, url, e, w.A, { 'x-api-key': w.A.provider.apiKey });
      expect(none.statusCode, label).toBe(401);
      expect(none.json().error.code, label).toBe('verification_required');
      const garbage = await call(method, url, e, w.A, { 'x-api-key': w.A.provider.apiKey, 'x-verified-session': 'vs_garbage' });
      expect(garbage.statusCode, label).toBe(401);
      expect(garbage.json().error.code, label).toBe('session_invalid');
      const otherCustomer = await call(method, url, e, w.A, {
        'x-api-key': w.A.provider.apiKey,
        'x-verified-session': w.A.other_session_token,
      });
      expect(otherCustomer.statusCode, label).toBe(403);
      expect(otherCustomer.json().error.code, label).toBe('session_customer_mismatch');
    }
  });

  it('another provider (or subscriber) asking for an owned id gets exactly the answer of an id that does not exist', async () => {
    let compared = 0;
    const mismatches: string[] = [];
    for (const { method, url } of uniqueRoutes()) {
      const e = entryOf(method, url);
      if (!e?.crossId) continue;
      const label = `${method} ${url}`;
      // B's valid credentials, A's resource id vs a random id
      const headers = goodHeaders(e, w.B);
      const swap = (p: Party) => {
        if (e.crossId === 'path') return { params: e.params!(p, w) };
        if (e.crossId === 'query') return { query: e.query!(p, w) };
        return { body: e.body!(p, w) };
      };
      const fake: Party = {
        ...w.A,
        customer: w.randomUuid,
        subscription: w.randomUuid,
        invoice: w.randomUuid,
        creditNote: w.randomUuid,
        job: w.randomUuid,
        session: w.randomUuid,
        staffUser: w.randomUuid,
        buildingId: w.randomUuid,
      };
      const owned = await call(method, url, e, w.B, headers, swap(w.A));
      const missing = await call(method, url, e, w.B, headers, swap(fake));
      if (
        owned.statusCode < 400 ||
        owned.statusCode !== missing.statusCode ||
        stripRequestId(owned.body) !== stripRequestId(missing.body)
      ) {
        mismatches.push(
          `${label}: owned id -> ${owned.statusCode} ${owned.body.slice(0, 120)} | missing id -> ${missing.statusCode} ${missing.body.slice(0, 120)}`,
        );
      }
      compared++;
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(15);
  });
});

// The /agent rows again, as MCP tool calls (POST /agent/mcp, tools/call): each operation's tool
// refuses what its route refuses, with the same code, and answers another provider's id exactly
// like an id that does not exist.
describe('authorization matrix over MCP tools', () => {
  const agentRows = () => agentOperations(t.app).map((op) => ({ op, e: entryOf(op.method, op.url)! }));

  /** The tool call of a matrix row: path parameters under their argument names, query and body merged. */
  function toolCall(
    op: ReturnType<typeof agentOperations>[number],
    e: Entry,
    p: Party,
    headers: Record<string, string>,
    over: { params?: Record<string, string>; body?: unknown; query?: string } = {},
    session?: string,
  ) {
    const params = over.params ?? e.params?.(p, w) ?? {};
    const args: Record<string, unknown> = {};
    for (const [k, arg] of Object.entries(op.paramArgs)) args[arg] = params[k] ?? w.randomUuid;
    for (const [k, v] of new URLSearchParams(over.query ?? e.query?.(p, w) ?? '')) args[k] = v;
    Object.assign(args, over.body ?? e.body?.(p, w) ?? {});
    if (session) args.verified_session = session;
    return t.app.inject({
      method: 'POST',
      url: '/agent/mcp',
      headers: { ...headers, accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.tool, arguments: args } },
    });
  }
  const resultOf = (r: { statusCode: number; body: string }) => {
    expect(r.statusCode, r.body).toBe(200);
    return JSON.parse(r.body).result as { isError?: boolean; structuredContent: { error?: { code: string } } };
  };

  it('every /agent operation is a tool and has its matrix row', () => {
    const rows = agentRows();
    expect(rows.length).toBe(18);
    expect(rows.filter((r) => !r.e).map((r) => r.op.tool)).toEqual([]);
  });

  it('refuses a missing, malformed, disabled or under-privileged API key on every tool call, before any tool runs', async () => {
    for (const { op, e } of agentRows()) {
      const session = e.auth === 'agentVerified' ? w.A.session_token : undefined;
      for (const [key, code] of [
        [undefined, 'invalid_api_key'],
        ['sk_not_a_key', 'invalid_api_key'],
        [w.disabled.apiKey, 'invalid_api_key'],
        [w.noAgent.apiKey, 'feature_not_enabled'],
      ] as const) {
        const r = await toolCall(op, e, w.A, key ? { 'x-api-key': key } : {}, {}, session);
        expect({ tool: op.tool, status: r.statusCode, code: r.json().error?.code }).toEqual({ tool: op.tool, status: 403, code });
      }
    }
  });

  it('verified tools need the session of that very customer', async () => {
    for (const { op, e } of agentRows()) {
      if (e.auth !== 'agentVerified') continue;
      const key = { 'x-api-key': w.A.provider.apiKey };
      const codes = [
        resultOf(await toolCall(op, e, w.A, key)),
        resultOf(await toolCall(op, e, w.A, key, {}, 'vs_garbage')),
        resultOf(await toolCall(op, e, w.A, key, {}, w.A.other_session_token)),
      ].map((r) => (r.isError ? r.structuredContent.error?.code : 'ok'));
      expect({ tool: op.tool, codes }).toEqual({
        tool: op.tool,
        codes: ['verification_required', 'session_invalid', 'session_customer_mismatch'],
      });
    }
  });

  it('another provider asking a tool for an owned id gets exactly the answer of an id that does not exist', async () => {
    const mismatches: string[] = [];
    let compared = 0;
    for (const { op, e } of agentRows()) {
      if (!e.crossId) continue;
      const swap = (p: Party) => (e.crossId === 'path' ? { params: e.params!(p, w) } : { body: e.body!(p, w) });
      const fake: Party = { ...w.A, customer: w.randomUuid, subscription: w.randomUuid, invoice: w.randomUuid };
      const headers = { 'x-api-key': w.B.provider.apiKey };
      const session = e.auth === 'agentVerified' ? w.B.session_token : undefined;
      const owned = resultOf(await toolCall(op, e, w.B, headers, swap(w.A), session));
      const missing = resultOf(await toolCall(op, e, w.B, headers, swap(fake), session));
      // structuredContent carries the envelope; the text content is the same JSON as a string
      const strip = (x: ReturnType<typeof resultOf>) =>
        stripRequestId(JSON.stringify({ isError: x.isError, content: x.structuredContent }));
      if (!owned.isError || strip(owned) !== strip(missing))
        mismatches.push(`${op.tool}: owned id -> ${strip(owned).slice(0, 160)} | missing id -> ${strip(missing).slice(0, 160)}`);
      compared++;
    }
    expect(mismatches).toEqual([]);
    expect(compared).toBe(17); // every tool but search_customers takes an id
  });
});

// decisions.md, Safety, JWT: a token is good only while its signature, `exp`, user and that user's
// token_version all hold. Each case below is refused on every JWT route (both mounts) and on the
// optional Bearer of POST /external-checkout/sessions, with 403 Invalid credentials.
describe('revoked, forged and incomplete JWTs', () => {
  type Kind = 'subscriber' | 'dashboard';
  interface Pair {
    subscriber: { id: string; email: string; password: string | null };
    staff: { id: string; email: string; password: string | null };
  }

  function jwtRoutes() {
    return uniqueRoutes().flatMap(({ method, url }) => {
      const e = entryOf(method, url);
      if (!e) return [];
      const kind: Kind | null = ['subscriber', 'dashboard', 'staffAdmin'].includes(e.auth)
        ? e.auth === 'subscriber'
          ? 'subscriber'
          : 'dashboard'
        : entryOf(method, url) === MATRIX['POST /external-checkout/sessions']
          ? 'subscriber'
          : null;
      return kind ? [{ method, url, e, kind }] : [];
    });
  }

  async function pair(): Promise<Pair> {
    return {
      subscriber: await createUser(t.db, { role: 'subscriber' }),
      staff: await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: w.A.provider.id }),
    };
  }

  /** A token as login issues it: from the user's row as it is now. */
  async function issued(userId: string): Promise<string> {
    const row = await t.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
    return (await t.services.auth.issueJwt(row)).access_token;
  }

  /** A token signed by hand: the claims login would put in, minus or plus what the case says. */
  async function signed(key: string, claims: { sub: string; role: string; exp?: boolean; ver?: number | null }) {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const body: Record<string, unknown> = {
      role: claims.role,
      sp_role: claims.role === 'subscriber' ? null : 'sp_admin',
      service_provider_id: claims.role === 'subscriber' ? null : w.A.provider.id,
    };
    if (claims.ver !== null) body.ver = claims.ver ?? 0;
    const jwt = new SignJWT(body)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer('netsvc-api')
      .setIssuedAt(now);
    if (claims.exp !== false) jwt.setExpirationTime(now + 600);
    return jwt.sign(new TextEncoder().encode(key));
  }

  /** The tokens work before the case happens: otherwise a refusal afterwards would prove nothing. */
  async function expectAccepted(tokens: Record<Kind, string>) {
    const me = await t.app.inject({
      method: 'GET',
      url: '/subscriber/status-history',
      headers: { authorization: `Bearer ${tokens.subscriber}` },
    });
    expect(me.statusCode, me.body).toBe(200);
    const staff = await t.app.inject({
      method: 'GET',
      url: '/api/v1/provider/users',
      headers: { authorization: `Bearer ${tokens.dashboard}` },
    });
    expect(staff.statusCode, staff.body).toBe(200);
  }

  async function expectRefusedEverywhere(tokens: Record<Kind, string>, what: string) {
    const routes = jwtRoutes();
    expect(routes.length).toBeGreaterThan(25);
    expect(routes.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        '/subscriber/me',
        '/api/v1/subscriber/me',
        '/external-checkout/sessions',
        '/api/v1/external-checkout/sessions',
      ]),
    );
    for (const { method, url, e, kind } of routes) {
      const r = await call(method, url, e, w.A, { authorization: `Bearer ${tokens[kind]}` });
      expect(r.statusCode, `${what}: ${method} ${url} answered ${r.body}`).toBe(403);
      expect(r.json(), `${what}: ${method} ${url}`).toEqual({ detail: 'Invalid credentials' });
    }
  }

  it('a token signed with the old time-and-pid secret or a rotated-away secret is refused on every JWT route', async () => {
    const p = await pair();
    const tokens = (key: string) =>
      Promise.all([
        signed(key, { sub: p.subscriber.id, role: 'subscriber' }),
        signed(key, { sub: p.staff.id, role: 'service_provider' }),
      ]).then(([subscriber, dashboard]) => ({ subscriber, dashboard }));
    // The same claims under the real key are accepted: only the key differs.
    await expectAccepted(await tokens(t.config.jwtSecret));
    await expectRefusedEverywhere(await tokens(`dev-only-${process.pid}-${Date.now()}-not-for-production-use`), 'old derived secret');
    await expectRefusedEverywhere(await tokens(randomBytes(32).toString('base64url')), 'rotated secret');
  });

  it('a token without exp, without a token version, or naming no user is refused on every JWT route, even under the real key', async () => {
    const p = await pair();
    const key = t.config.jwtSecret;
    await expectRefusedEverywhere(
      {
        subscriber: await signed(key, { sub: p.subscriber.id, role: 'subscriber', exp: false }),
        dashboard: await signed(key, { sub: p.staff.id, role: 'service_provider', exp: false }),
      },
      'no exp',
    );
    await expectRefusedEverywhere(
      {
        subscriber: await signed(key, { sub: p.subscriber.id, role: 'subscriber', ver: null }),
        dashboard: await signed(key, { sub: p.staff.id, role: 'service_provider', ver: null }),
      },
      'no ver',
    );
    await expectRefusedEverywhere(
      {
        subscriber: await signed(key, { sub: newId(), role: 'subscriber' }),
        dashboard: await signed(key, { sub: newId(), role: 'platform_admin' }),
      },
      'no such user',
    );
  });

  it('the tokens of a deleted user are refused on every JWT route', async () => {
    const p = await pair();
    const tokens = { subscriber: await issued(p.subscriber.id), dashboard: await issued(p.staff.id) };
    await expectAccepted(tokens);
    await t.db.deleteFrom('link_tokens').where('user_id', 'in', [p.subscriber.id, p.staff.id]).execute();
    await t.db.deleteFrom('users').where('id', 'in', [p.subscriber.id, p.staff.id]).execute();
    await expectRefusedEverywhere(tokens, 'deleted user');
  });

  it('the tokens of a disabled user are refused on every JWT route, and the user cannot log in', async () => {
    const p = await pair();
    const tokens = { subscriber: await issued(p.subscriber.id), dashboard: await issued(p.staff.id) };
    await expectAccepted(tokens);
    await t.db.updateTable('users').set({ disabled: true }).where('id', 'in', [p.subscriber.id, p.staff.id]).execute();
    await expectRefusedEverywhere(tokens, 'disabled user');
    // A token minted from the disabled row is refused as well (disabled, not only an older version).
    await expectRefusedEverywhere(
      { subscriber: await issued(p.subscriber.id), dashboard: await issued(p.staff.id) },
      'token of a disabled row',
    );
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: p.staff.email, password: p.staff.password } });
    expect(login.statusCode).toBe(401);
    expect(login.json()).toEqual({ detail: 'Invalid credentials' });
  });

  it('a token issued before a password change (PATCH /subscriber/me/password, POST /auth/set-password) is refused on every JWT route; a new login works', async () => {
    const p = await pair();
    const tokens = { subscriber: await issued(p.subscriber.id), dashboard: await issued(p.staff.id) };
    await expectAccepted(tokens);
    const change = await t.app.inject({
      method: 'PATCH',
      url: '/subscriber/me/password',
      headers: { authorization: `Bearer ${tokens.subscriber}` },
      payload: { current_password: p.subscriber.password, new_password: 'a-brand-new-password-1' },
    });
    expect(change.statusCode, change.body).toBe(200);
    const { token } = await createLinkToken(t.db, t.clock, { purpose: 'password_reset', userId: p.staff.id });
    const reset = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/set-password',
      payload: { token, password: 'another-new-password-2' },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    await expectRefusedEverywhere(tokens, 'issued before the password change');
    const relogin = async (email: string, password: string) =>
      (await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } })).json().access_token as string;
    await expectAccepted({
      subscriber: await relogin(p.subscriber.email, 'a-brand-new-password-1'),
      dashboard: await relogin(p.staff.email, 'another-new-password-2'),
    });
  });

  it('a token issued before a role change is refused on every JWT route', async () => {
    const p = await pair();
    const tokens = { subscriber: await issued(p.subscriber.id), dashboard: await issued(p.staff.id) };
    await expectAccepted(tokens);
    await t.db.updateTable('users').set({ sp_role: 'support' }).where('id', '=', p.staff.id).execute();
    await t.db
      .updateTable('users')
      .set({ role: 'service_provider', sp_role: 'sales', provider_id: w.A.provider.id })
      .where('id', '=', p.subscriber.id)
      .execute();
    await expectRefusedEverywhere(tokens, 'issued before the role change');
  });
});
