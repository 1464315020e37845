import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { resetAllFaults, simulatorsOf, TEST_CARDS, DECLINING_PAYMENT_METHOD_MARKER } from '../../src/adapters/index.js';
import { collectFirstPayment } from '../../src/modules/billing/first-payment.js';
import { createBillingRunService } from '../../src/modules/billing/billing-run.service.js';
import { customer, mailsTo, tokenIn, jobsOf } from './fixtures.js';
import { expectPageHeaders } from '../helpers/page-headers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(() => t.clock.set(DEFAULT_NOW));
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

const subscription = (id: string) =>
  t.db.selectFrom('subscriptions').select(['status', 'activated_at']).where('id', '=', id).executeTakeFirstOrThrow();
const firstInvoices = (id: string) =>
  t.db.selectFrom('invoices').selectAll().where('subscription_id', '=', id).where('kind', '=', 'first').execute();

async function installed(o: { card?: string | null; serviceBilled?: boolean; cardProcessor?: string | null } = {}) {
  const c = await customer(t, { status: 'PENDING_INSTALL', serviceBilled: o.serviceBilled, cardProcessor: o.cardProcessor });
  if (o.card) {
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: o.card, card_brand: 'visa', card_last4: '4242', card_exp_month: 12, card_exp_year: 2030 })
      .where('id', '=', c.subscriber.id)
      .execute();
  }
  return c;
}

describe('collectFirstPayment after install confirmation', () => {
  it('charges the saved card: first invoice (installation month pro rata) paid by card, subscription ACTIVE', async () => {
    const c = await installed({ card: 'pm_savedcardforfirstpayment' });
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r).toMatchObject({ subscriptionId: c.subscription.id, outcome: 'charged', activated: true });
    const [inv] = await firstInvoices(c.subscription.id);
    // 16..30 Nov = 15 of 30 days of 30.00
    expect(inv).toMatchObject({
      id: r.invoiceId,
      kind: 'first',
      period_start: '2026-11-01',
      invoice_date: '2026-11-16',
      total_cents: 1500,
      status: 'paid',
      payment_method: 'card',
    });
    expect(inv!.payment_intent_id).toMatch(/^pi_/);
    const lines = await t.db
      .selectFrom('invoice_lines')
      .select(['description', 'amount_cents'])
      .where('invoice_id', '=', inv!.id)
      .execute();
    expect(lines).toEqual([{ description: 'Fast, 16–30 Nov 2026 (from installation, pro rata)', amount_cents: 1500 }]);
    expect(
      await t.db
        .selectFrom('billing_documents')
        .select('invoice_id')
        .where('subscription_id', '=', c.subscription.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ invoice_id: inv!.id });
    const sub = await subscription(c.subscription.id);
    expect(sub.status).toBe('ACTIVE');
    expect(sub.activated_at?.toISOString()).toBe(DEFAULT_NOW);
    const charges = simulatorsOf(t.deps.adapters).cardProcessor.charges.filter((x) => x.paymentMethodId === 'pm_savedcardforfirstpayment');
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ amountCents: 1500, currency: 'EUR', status: 'succeeded' });
    expect(await mailsTo(t, c.user.email)).toHaveLength(0);
  });

  it('is idempotent: a second call finds the paid first invoice and charges nothing', async () => {
    const c = await installed({ card: 'pm_idempotentfirstpayment' });
    await collectFirstPayment(t.deps, c.subscription.id);
    const again = await collectFirstPayment(t.deps, c.subscription.id);
    expect(again.outcome).toBe('already_paid');
    expect(await firstInvoices(c.subscription.id)).toHaveLength(1);
    expect(
      simulatorsOf(t.deps.adapters).cardProcessor.charges.filter((x) => x.paymentMethodId === 'pm_idempotentfirstpayment'),
    ).toHaveLength(1);
  });

  it('without a saved card mails a payment link; the subscription stays PENDING_INSTALL until the link is paid on the pay page', async () => {
    const c = await installed();
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r).toMatchObject({ outcome: 'link_sent', activated: false });
    expect((await subscription(c.subscription.id)).status).toBe('PENDING_INSTALL');
    const [mail] = await mailsTo(t, c.user.email);
    expect(mail).toMatchObject({ tag: 'payment_link', subject: expect.stringContaining('Pay your first invoice') });
    expect(mail!.text).toContain('15.00 EUR');
    const token = tokenIn(mail!.text, '/pay/');
    const link = await t.db.selectFrom('link_tokens').selectAll().where('reference_id', '=', r.invoiceId).executeTakeFirstOrThrow();
    expect(link).toMatchObject({ purpose: 'payment', subscriber_id: c.subscriber.id, used_at: null });

    const page = await t.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('15.00 EUR');
    // decisions.md "HTML pages": the payment page (reached by its token) and its form answers.
    expectPageHeaders(page, { token: true });
    expect(String(page.headers['content-security-policy'])).not.toContain('script-src');
    expect(page.body).toContain('<form method="post"');

    // a declined card leaves the link usable
    const declined = await t.app.inject({
      method: 'POST',
      url: `/pay/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `card_number=${TEST_CARDS.declined}`,
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain('declined');
    expectPageHeaders(declined, { token: true });
    expect((await t.db.selectFrom('link_tokens').select('used_at').where('id', '=', link.id).executeTakeFirstOrThrow()).used_at).toBeNull();

    const paid = await t.app.inject({
      method: 'POST',
      url: `/pay/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `card_number=${TEST_CARDS.succeeds}&save_card=on`,
    });
    expect(paid.statusCode).toBe(200);
    expect(paid.body).toContain('the invoice is paid');
    const [inv] = await firstInvoices(c.subscription.id);
    expect(inv).toMatchObject({ status: 'paid', payment_method: 'payment_link' });
    expect((await subscription(c.subscription.id)).status).toBe('ACTIVE');
    expect(
      await t.db.selectFrom('subscribers').select(['card_brand', 'card_last4']).where('id', '=', c.subscriber.id).executeTakeFirstOrThrow(),
    ).toEqual({ card_brand: 'visa', card_last4: '4242' });
    expect(
      (await t.db.selectFrom('link_tokens').select('used_at').where('id', '=', link.id).executeTakeFirstOrThrow()).used_at,
    ).not.toBeNull();

    // the link works once
    const twice = await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: TEST_CARDS.succeeds } });
    expect(twice.statusCode).toBe(200);
    expect(twice.body).toContain('already paid');
    expect(
      simulatorsOf(t.deps.adapters).cardProcessor.charges.filter(
        (x) => x.amountCents === 1500 && x.status === 'succeeded' && x.idempotencyKey.startsWith(`invoice:${inv!.id}`),
      ),
    ).toHaveLength(1);
    expect((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).body).toContain('Invoice paid');
  });

  it('falls back to the payment link when the saved card is declined', async () => {
    const c = await installed({ card: `pm_${DECLINING_PAYMENT_METHOD_MARKER}abc` });
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r.outcome).toBe('link_sent');
    expect((await firstInvoices(c.subscription.id))[0]!.status).toBe('open');
    expect(await mailsTo(t, c.user.email)).toHaveLength(1);
  });

  it('queues the collection when the card processor is unreachable, and the billing.collect job charges later', async () => {
    const c = await installed({ card: 'pm_laterwhenprocessorisback' });
    simulatorsOf(t.deps.adapters).cardProcessor.faults.set('unreachable');
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r.outcome).toBe('queued');
    expect((await subscription(c.subscription.id)).status).toBe('PENDING_INSTALL');
    simulatorsOf(t.deps.adapters).cardProcessor.faults.reset();
    await t.deps.jobs.drain();
    expect((await subscription(c.subscription.id)).status).toBe('ACTIVE');
    expect((await firstInvoices(c.subscription.id))[0]!.status).toBe('paid');
  });

  it("inside a caller's transaction writes the invoice and a billing.collect job only (no external call); the job collects after commit", async () => {
    const c = await installed({ card: 'pm_chargedbythecollectjob' });
    const r = await t.db.transaction().execute((trx) => collectFirstPayment(t.deps, c.subscription.id, { trx }));
    expect(r).toMatchObject({ outcome: 'queued', activated: false });
    expect(
      simulatorsOf(t.deps.adapters).cardProcessor.charges.filter((x) => x.paymentMethodId === 'pm_chargedbythecollectjob'),
    ).toHaveLength(0);
    const job = (await jobsOf(t, 'billing.collect')).find((j) => j.payload.invoice_id === r.invoiceId);
    expect(job?.status).toBe('queued');
    await t.deps.jobs.drain();
    expect((await subscription(c.subscription.id)).status).toBe('ACTIVE');
  });

  it('a provider-billed subscription is never invoiced: it becomes ACTIVE with nothing to collect', async () => {
    const c = await installed({ serviceBilled: false, card: 'pm_nevercharged' });
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    expect(r).toEqual({
      subscriptionId: c.subscription.id,
      invoiceId: null,
      outcome: 'not_billed',
      activated: true,
      portJobId: expect.any(String),
    });
    expect(await t.db.selectFrom('invoices').select('id').where('subscription_id', '=', c.subscription.id).execute()).toHaveLength(0);
    // The activation queued the port (the subscription's port is attached): the port follows the activation.
    expect(await t.db.selectFrom('jobs').select(['kind', 'payload']).where('id', '=', r.portJobId!).executeTakeFirstOrThrow()).toEqual({
      kind: 'provisioning.port',
      payload: { subscription_id: c.subscription.id, reason: 'install' },
    });
    expect((await subscription(c.subscription.id)).status).toBe('ACTIVE');
  });

  it('the monthly run does not bill the installation month again', async () => {
    const c = await installed({ card: 'pm_installmonthonce' });
    await collectFirstPayment(t.deps, c.subscription.id);
    await createBillingRunService(t.deps).runMonthly();
    const all = await t.db
      .selectFrom('invoices')
      .select(['kind', 'period_start'])
      .where('subscription_id', '=', c.subscription.id)
      .execute();
    expect(all).toEqual([{ kind: 'first', period_start: '2026-11-01' }]);
  });
});

describe('the pay page', () => {
  it('answers 404 (HTML) for an unknown or expired link', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/pay/this-token-does-not-exist' });
    expect(r.statusCode).toBe(404);
    expect(r.body).toContain('invalid or has expired');
    const c = await installed();
    await collectFirstPayment(t.deps, c.subscription.id);
    const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
    t.clock.advance(31 * 86_400_000);
    expect((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).statusCode).toBe(404);
    const post = await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: TEST_CARDS.succeeds } });
    expect(post.statusCode).toBe(404);
    expect((await firstInvoices(c.subscription.id))[0]!.status).toBe('open');
  });

  it('answers 502 (HTML) when the card processor is unreachable, leaving the link usable', async () => {
    const c = await installed();
    await collectFirstPayment(t.deps, c.subscription.id);
    const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
    simulatorsOf(t.deps.adapters).cardProcessor.faults.set('unreachable');
    const r = await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: TEST_CARDS.succeeds } });
    expect(r.statusCode).toBe(502);
    simulatorsOf(t.deps.adapters).cardProcessor.faults.reset();
    const ok = await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: TEST_CARDS.succeeds } });
    expect(ok.statusCode).toBe(200);
  });
});
