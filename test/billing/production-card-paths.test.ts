// Issue 29 "Done when": no path in production mode can mark an invoice paid or a card saved without
// the processor saying so. Production never builds the card or SMS simulator (CARD_PROCESSOR=simulator
// is refused at start); each path is tried: the pay link's form post (with and without a card number),
// the pay page's return, the payment-method confirm (with no card at all), the billing run's
// collection of a saved card, Stripe's events and SMS codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorsOf } from '../../src/adapters/index.js';
import { startStripeStandIn } from '../../src/adapters/stripe.simulator-server.js';
import { loadConfig } from '../../src/config.js';
import { collectInvoice } from '../../src/modules/billing/collection.js';
import { createLinkToken } from '../../src/modules/auth/link-tokens.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';
import { productionEnv } from '../helpers/production.js';
import { customer, insertInvoice } from './fixtures.js';

const productionApp = (env: Record<string, string> = {}) =>
  buildTestApp({ env: productionEnv({ LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'true', ...env }) });

async function openInvoiceWithLink(t: TestApp, o: { savedCard?: string } = {}) {
  const c = await customer(t, { status: 'PENDING_INSTALL' });
  if (o.savedCard) {
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: o.savedCard, card_brand: 'visa', card_last4: '4242', card_exp_month: 12, card_exp_year: 2030 })
      .where('id', '=', c.subscriber.id)
      .execute();
  }
  const inv = await insertInvoice(t, {
    providerId: c.provider.id,
    subscriberId: c.subscriber.id,
    subscriptionId: c.subscription.id,
    month: '2026-11-01',
    status: 'open',
    kind: 'first',
  });
  const { token } = await t.db
    .transaction()
    .execute((trx) => createLinkToken(trx, t.clock, { purpose: 'payment', subscriberId: c.subscriber.id, referenceId: inv.id }));
  return { c, invoiceId: inv.id, token };
}
const invoiceStatus = async (t: TestApp, id: string) =>
  (await t.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const savedCard = async (t: TestApp, subscriberId: string) =>
  (await t.db.selectFrom('subscribers').select('card_payment_method_id').where('id', '=', subscriberId).executeTakeFirstOrThrow())
    .card_payment_method_id;

it('production refuses to start on the card simulator', () => {
  expect(() => loadConfig(productionEnv({ CARD_PROCESSOR: 'simulator' }))).toThrow(/CARD_PROCESSOR: the simulator marks invoices paid/);
});

describe('production without a card processor (no STRIPE_SECRET_KEY): the simulator is not built', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await productionApp();
  });
  afterAll(() => t.close());

  it('builds neither the card nor the SMS simulator', () => {
    expect(t.deps.adapters.cardProcessor).toBeNull();
    expect(t.deps.adapters.sms).toBeNull();
    expect(() => simulatorsOf(t.deps.adapters)).toThrow(/not the embedded simulators/);
  });

  it('pay link: the form post with a card number answers 409 and the invoice stays open; the page shows no card form', async () => {
    const { token, invoiceId } = await openInvoiceWithLink(t);
    const page = await t.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(409);
    expect(page.body).not.toMatch(/name="card_number"|payment-element|<form/);
    const post = await t.app.inject({
      method: 'POST',
      url: `/pay/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'card_number=4111111111111111',
    });
    expect(post.statusCode).toBe(409);
    const back = await t.app.inject({ method: 'GET', url: `/pay/${token}/complete?payment_intent=pi_madeup&redirect_status=succeeded` });
    expect(back.statusCode).toBe(409);
    expect(await invoiceStatus(t, invoiceId)).toBe('open');
  });

  it('payment-method confirm with no card at all (and setup) answer 409; nothing is saved', async () => {
    const c = await customer(t);
    for (const url of ['/subscriber/me/payment-method/setup', '/subscriber/me/payment-method/confirm']) {
      const r = await t.app.inject({ method: 'POST', url, headers: c.headers, payload: { client_secret: 'seti_abc_secret_0123456789' } });
      expect(r.statusCode).toBe(409);
      expect(r.json()).toMatchObject({ detail: expect.stringMatching(/no card-processor connection/) });
    }
    expect(await savedCard(t, c.subscriber.id)).toBeNull();
  });

  it('billing run: collecting an invoice with a saved card charges nothing and mails the pay link; the invoice stays open', async () => {
    const { invoiceId } = await openInvoiceWithLink(t, { savedCard: 'pm_savedbeforeproduction' });
    expect(await collectInvoice(t.deps, invoiceId)).toEqual({ outcome: 'link_sent' });
    expect(await invoiceStatus(t, invoiceId)).toBe('open');
  });

  it("Stripe's events route answers 503 dependency_unconfigured without an endpoint secret", async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: '{}',
    });
    expect(r.statusCode).toBe(503);
  });

  it('SMS codes: a provider with SMS switched on but no gateway answers 503 dependency_unconfigured (no simulator)', async () => {
    const p = await createProvider(t.db, { smsConfigured: true });
    expect(await t.services.integrations.showIntegrations(p.id)).toMatchObject({ sms: { enabled: true, gateway: null } });
    const sender = await t.services.integrations.smsSenderFor(t.db, p.id);
    expect(sender).toBeNull();
  });
});

describe('production with Stripe (the stand-in, reached through TEST_ALLOW_LOOPBACK)', () => {
  let t: TestApp;
  let stand: Awaited<ReturnType<typeof startStripeStandIn>>;
  beforeAll(async () => {
    stand = await startStripeStandIn();
    t = await productionApp({
      TEST_ALLOW_LOOPBACK: 'true',
      VITEST: process.env.VITEST ?? 'true',
      STRIPE_SECRET_KEY: `sk_test_${randomAlnum(24)}`,
      STRIPE_PUBLISHABLE_KEY: `pk_test_${randomAlnum(24)}`,
      STRIPE_WEBHOOK_SECRET: `whsec_${randomAlnum(32)}`,
      STRIPE_API_URL: stand.url,
    });
  });
  afterAll(async () => {
    await t.close();
    await stand.close();
  });

  it('pay link: a card number is refused unread (400); the return with an unconfirmed payment answers 402; the invoice stays open', async () => {
    const { token, invoiceId } = await openInvoiceWithLink(t);
    const page = await t.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('payment-element');
    const pi = /"clientSecret":"(pi_\w+?)_secret_/.exec(page.body)![1];
    const before = stand.standIn.requests.length;
    const post = await t.app.inject({
      method: 'POST',
      url: `/pay/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'card_number=4111111111111111',
    });
    expect(post.statusCode).toBe(400);
    expect(stand.standIn.requests.length).toBe(before);
    expect(
      (await t.app.inject({ method: 'GET', url: `/pay/${token}/complete?payment_intent=${pi}&redirect_status=succeeded` })).statusCode,
    ).toBe(402);
    expect(await invoiceStatus(t, invoiceId)).toBe('open');
  });

  it('payment-method confirm: with a card number 422, with no card confirmed at Stripe 409; nothing saved', async () => {
    const c = await customer(t);
    const secret = (await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers })).json()
      .client_secret;
    const confirm = (payload: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/confirm', headers: c.headers, payload });
    expect((await confirm({ client_secret: secret, card_number: '4242424242424242' })).statusCode).toBe(422);
    expect((await confirm({ client_secret: secret })).statusCode).toBe(409);
    expect(await savedCard(t, c.subscriber.id)).toBeNull();
  });

  it('billing run: a saved card id Stripe does not know is not charged; the pay link goes out and the invoice stays open', async () => {
    const { invoiceId } = await openInvoiceWithLink(t, { savedCard: 'pm_notatstripe/cus_notatstripe' });
    expect(await collectInvoice(t.deps, invoiceId)).toEqual({ outcome: 'link_sent' });
    expect(await invoiceStatus(t, invoiceId)).toBe('open');
  });

  it('an unsigned event moves nothing (400)', async () => {
    const { invoiceId } = await openInvoiceWithLink(t);
    const r = await t.app.inject({
      method: 'POST',
      url: '/webhooks/stripe',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      payload: JSON.stringify({ id: 'evt_x', type: 'payment_intent.succeeded', data: { object: { metadata: { invoice_id: invoiceId } } } }),
    });
    expect(r.statusCode).toBe(400);
    expect(await invoiceStatus(t, invoiceId)).toBe('open');
  });
});
