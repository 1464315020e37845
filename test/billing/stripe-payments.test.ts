// Issue 29 §1: with Stripe as the card processor (the SDK pointed at the local Stripe stand-in) no
// card number reaches this server. The pay page embeds Stripe's Payment Element for the invoice's
// PaymentIntent (tested through its HTML and Content-Security-Policy: Stripe.js cannot load here);
// the invoice is paid only when Stripe says so (the return route asks, or a signed event);
// saving a card is a SetupIntent the browser confirms with Stripe; events are applied once per id.
import Stripe from 'stripe';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeStandIn } from '../../src/adapters/stripe.simulator-server.js';
import { collectFirstPayment } from '../../src/modules/billing/first-payment.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import { customer, mailsTo, tokenIn } from './fixtures.js';

const SECRET = `sk_test_${randomAlnum(24)}`;
const PUBLISHABLE = `pk_test_${randomAlnum(24)}`;
const WEBHOOK_SECRET = `whsec_${randomAlnum(32)}`;
let t: TestApp;
let stand: Awaited<ReturnType<typeof startStripeStandIn>>;
const signer = new Stripe(SECRET);

beforeAll(async () => {
  stand = await startStripeStandIn();
  t = await buildTestApp({
    env: {
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: SECRET,
      STRIPE_PUBLISHABLE_KEY: PUBLISHABLE,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stand.url,
    },
  });
});
afterAll(async () => {
  await t.close();
  await stand.close();
});

const browser = (path: string, account: string, form: Record<string, string>) =>
  fetch(`${stand.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PUBLISHABLE}`, 'stripe-account': account, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
const invoiceOf = (id: string) => t.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const status = async (id: string) =>
  (await t.db.selectFrom('subscriptions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

const accountOf = async (providerId: string) =>
  (await t.db.selectFrom('providers').select('card_processor_account').where('id', '=', providerId).executeTakeFirstOrThrow())
    .card_processor_account!;

/** An installed subscription whose first invoice waits on the pay link. */
async function awaitingPayment() {
  const c = await customer(t, { status: 'PENDING_INSTALL' });
  const r = await collectFirstPayment(t.deps, c.subscription.id);
  expect(r.outcome).toBe('link_sent');
  const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
  const account = await accountOf(c.provider.id);
  return { c, token, invoiceId: r.invoiceId!, account };
}

function pageConfig(body: string) {
  const m = /<script type="application\/json" id="pay-config">(.*?)<\/script>/.exec(body);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!) as { publishableKey: string; account: string; clientSecret: string; returnUrl: string };
}

describe('pay page with Stripe', () => {
  it("shows Stripe's Payment Element for the invoice's PaymentIntent, no card field, and a CSP that lets only Stripe.js in", async () => {
    const { token, account, invoiceId } = await awaitingPayment();
    const page = await t.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(200);
    expectPageHeaders(page, { token: true });
    expect(page.body).toContain('<div id="payment-element"></div>');
    expect(page.body).toContain('<script src="https://js.stripe.com/v3/"></script>');
    expect(page.body).not.toMatch(/name="card_number"|method="post"/);
    const cfg = pageConfig(page.body);
    expect(cfg).toEqual({
      publishableKey: PUBLISHABLE,
      account,
      clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/),
      returnUrl: `http://api.test/pay/${token}/complete`,
    });
    const piId = cfg.clientSecret.split('_secret_')[0]!;
    expect(stand.standIn.requests.find((r) => r.path === '/v1/payment_intents' && r.account === account)?.params).toMatchObject({
      metadata: { invoice_id: invoiceId },
      automatic_payment_methods: { enabled: 'true' },
    });
    // The same link shows the same PaymentIntent (idempotent), so two tabs cannot pay twice.
    expect(pageConfig((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).body).clientSecret.startsWith(piId)).toBe(true);

    const csp = String(page.headers['content-security-policy']);
    const inline = /<script>(.*?)<\/script>/.exec(page.body)![1]!;
    const hash = `'sha256-${createHash('sha256').update(inline).digest('base64')}'`;
    expect(csp).toMatch(new RegExp(`script-src https://js\\.stripe\\.com ${hash.replace(/[+/]/g, '\\$&')}`));
    expect(csp).toContain('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(csp).toContain('connect-src https://api.stripe.com');
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain("'unsafe-inline'; script");
  });

  it('the return route pays the invoice only once Stripe reports the PaymentIntent succeeded', async () => {
    const { c, token, account, invoiceId } = await awaitingPayment();
    const cfg = pageConfig((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).body);
    const piId = cfg.clientSecret.split('_secret_')[0];
    // Coming back with redirect_status=succeeded proves nothing: Stripe is asked.
    const early = await t.app.inject({ method: 'GET', url: `/pay/${token}/complete?payment_intent=${piId}&redirect_status=succeeded` });
    expect(early.statusCode).toBe(402);
    expect((await invoiceOf(invoiceId)).status).toBe('open');

    const declined = await browser(`/payment_intents/${piId}/confirm`, account, {
      client_secret: cfg.clientSecret,
      payment_method: 'pm_card_visa_chargeDeclined',
    });
    expect(declined.status).toBe(402);
    expect((await t.app.inject({ method: 'GET', url: `/pay/${token}/complete?payment_intent=${piId}` })).statusCode).toBe(402);

    expect(
      (await browser(`/payment_intents/${piId}/confirm`, account, { client_secret: cfg.clientSecret, payment_method: 'pm_card_visa' }))
        .status,
    ).toBe(200);
    const done = await t.app.inject({ method: 'GET', url: `/pay/${token}/complete?payment_intent=${piId}&redirect_status=succeeded` });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('the invoice is paid');
    expect(await invoiceOf(invoiceId)).toMatchObject({ status: 'paid', payment_method: 'payment_link', payment_intent_id: piId });
    expect(await status(c.subscription.id)).toBe('ACTIVE');
  });

  it('a PaymentIntent of another invoice never pays this one (404), and the form post with a card number answers 400 without reading it', async () => {
    const a = await awaitingPayment();
    const b = await awaitingPayment();
    const cfgB = pageConfig((await t.app.inject({ method: 'GET', url: `/pay/${b.token}` })).body);
    const piB = cfgB.clientSecret.split('_secret_')[0];
    await browser(`/payment_intents/${piB}/confirm`, b.account, { client_secret: cfgB.clientSecret, payment_method: 'pm_card_visa' });
    const wrong = await t.app.inject({ method: 'GET', url: `/pay/${a.token}/complete?payment_intent=${piB}` });
    expect(wrong.statusCode).toBe(404);
    expect((await invoiceOf(a.invoiceId)).status).toBe('open');

    const before = stand.standIn.requests.length;
    const post = await t.app.inject({
      method: 'POST',
      url: `/pay/${a.token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'card_number=4242424242424242',
    });
    expect(post.statusCode).toBe(400);
    expect(stand.standIn.requests.length).toBe(before);
    expect((await invoiceOf(a.invoiceId)).status).toBe('open');
  });
});

describe('saved card with Stripe', () => {
  it('setup answers a SetupIntent client_secret; confirm refuses a card number (422), waits for Stripe (409), then saves brand/last4/expiry', async () => {
    const c = await customer(t);
    const account = await accountOf(c.provider.id);
    const setup = await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers });
    expect(setup.statusCode).toBe(201);
    const secret = setup.json().client_secret as string;
    expect(secret).toMatch(/^seti_\w+_secret_\w+$/);
    const confirm = (payload: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/confirm', headers: c.headers, payload });
    const withNumber = await confirm({ client_secret: secret, card_number: '4242424242424242' });
    expect(withNumber.statusCode).toBe(422);
    expect(withNumber.json().detail).toMatch(/never sent to this server/);
    expect((await confirm({ client_secret: secret })).statusCode).toBe(409);
    await browser(`/setup_intents/${secret.split('_secret_')[0]}/confirm`, account, {
      client_secret: secret,
      payment_method: 'pm_card_visa',
    });
    const saved = await confirm({ client_secret: secret });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toEqual({ payment_method: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034 } });
    const row = await t.db
      .selectFrom('subscribers')
      .select(['card_payment_method_id', 'card_last4'])
      .where('id', '=', c.subscriber.id)
      .executeTakeFirstOrThrow();
    expect(row.card_payment_method_id).toMatch(/^pm_\w+\/cus_\w+$/);
  });

  it('a saved 3-D Secure card: the first invoice is not charged off-session; the subscriber gets the pay link', async () => {
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    const account = await accountOf(c.provider.id);
    const secret = (await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers })).json()
      .client_secret as string;
    await browser(`/setup_intents/${secret.split('_secret_')[0]}/confirm`, account, {
      client_secret: secret,
      payment_method: 'pm_card_authenticationRequired',
    });
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/subscriber/me/payment-method/confirm',
          headers: c.headers,
          payload: { client_secret: secret },
        })
      ).statusCode,
    ).toBe(200);
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r.outcome).toBe('link_sent');
    expect((await invoiceOf(r.invoiceId!)).status).toBe('open');
    expect(await status(c.subscription.id)).toBe('PENDING_INSTALL');
  });
});

describe('POST /webhooks/stripe', () => {
  const deliver = (event: Record<string, unknown>, secret = WEBHOOK_SECRET) => {
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret });
    return t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      payload,
    });
  };
  const event = (type: string, account: string, object: Record<string, unknown>) => ({
    id: `evt_${randomAlnum(20)}`,
    object: 'event',
    type,
    account,
    api_version: '2026-10-28.endive',
    created: 1_790_000_000,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });

  it('a signed payment_intent.succeeded pays its invoice once; a redelivery answers duplicate; a bad signature 400 and nothing moves', async () => {
    const { c, invoiceId, account } = await awaitingPayment();
    const inv = await invoiceOf(invoiceId);
    const e = event('payment_intent.succeeded', account, {
      id: 'pi_fromevent1',
      object: 'payment_intent',
      amount: inv.total_cents,
      currency: 'eur',
      metadata: { invoice_id: invoiceId },
      status: 'succeeded',
    });

    const forged = await deliver(e, `whsec_${randomAlnum(32)}`);
    expect(forged.statusCode).toBe(400);
    const unsigned = await t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(e),
    });
    expect(unsigned.statusCode).toBe(400);
    expect((await invoiceOf(invoiceId)).status).toBe('open');

    const first = await deliver(e);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true, outcome: 'applied' });
    expect(await invoiceOf(invoiceId)).toMatchObject({ status: 'paid', payment_intent_id: 'pi_fromevent1' });
    expect(await status(c.subscription.id)).toBe('ACTIVE');
    expect((await deliver(e)).json()).toEqual({ received: true, outcome: 'duplicate' });
    const rows = await t.db.selectFrom('card_processor_events').selectAll().where('id', '=', e.id).execute();
    expect(rows).toEqual([expect.objectContaining({ type: 'payment_intent.succeeded', account })]);
  });

  it('an event of another account, or another amount, never pays the invoice', async () => {
    const { invoiceId, account } = await awaitingPayment();
    const inv = await invoiceOf(invoiceId);
    const base = { id: 'pi_x', object: 'payment_intent', amount: inv.total_cents, currency: 'eur', metadata: { invoice_id: invoiceId } };
    expect((await deliver(event('payment_intent.succeeded', `acct_${randomAlnum(12)}`, base))).json().outcome).toBe('ignored');
    expect((await deliver(event('payment_intent.succeeded', account, { ...base, amount: 1 }))).json().outcome).toBe('ignored');
    expect((await deliver(event('payment_intent.payment_failed', account, base))).json().outcome).toBe('applied');
    expect((await invoiceOf(invoiceId)).status).toBe('open');
  });

  it('setup_intent.succeeded saves the card of the subscriber whose setup it is, read back from Stripe', async () => {
    const c = await customer(t);
    const account = await accountOf(c.provider.id);
    const secret = (await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers })).json()
      .client_secret as string;
    const setupId = secret.split('_secret_')[0];
    await browser(`/setup_intents/${setupId}/confirm`, account, { client_secret: secret, payment_method: 'pm_card_mastercard' });
    const r = await deliver(event('setup_intent.succeeded', account, { id: setupId, object: 'setup_intent', status: 'succeeded' }));
    expect(r.json()).toEqual({ received: true, outcome: 'applied' });
    const row = await t.db
      .selectFrom('subscribers')
      .select(['card_brand', 'card_last4', 'card_setup_id'])
      .where('id', '=', c.subscriber.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ card_brand: 'mastercard', card_last4: '4444', card_setup_id: null });
  });
});
