// Issue 29 §1: the card simulator and the Stripe adapter pass the same cases (save, decline, charge
// once per idempotency key, declined and 3-D Secure charges, the pay page's payment, an unreachable
// processor, a timeout). The Stripe adapter talks, through the SDK's host/port/protocol options, to the
// local stand-in, which checks every request against the parameters Stripe publishes
// (test/fixtures/stripe) and refuses what Stripe would refuse.
import { freePort } from '../helpers/processes.js';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardSimulator, TEST_CARDS, type CardProcessorSimulator } from '../../src/adapters/card.simulator.js';
import { createStripeCardProcessor } from '../../src/adapters/stripe.card.js';
import { startStripeStandIn } from '../../src/adapters/stripe.simulator-server.js';
import { AdapterError, CardRequestError, type CardProcessor, type SavedCard } from '../../src/adapters/types.js';
import { fixedClock } from '../../src/lib/clock.js';
import { randomAlnum } from '../../src/lib/ids.js';

type TestCard = keyof typeof TEST_CARDS;
const STRIPE_TOKENS: Record<TestCard, string> = {
  succeeds: 'pm_card_visa',
  declined: 'pm_card_visa_chargeDeclined',
  chargeDeclined: 'pm_card_chargeCustomerFail',
  authenticationRequired: 'pm_card_authenticationRequired',
};
const SECRET = `sk_test_${randomAlnum(24)}`;
const PUBLISHABLE = `pk_test_${randomAlnum(24)}`;

interface Driver {
  processor: CardProcessor;
  /** The subscriber's browser confirming a setup or a payment with the processor (Stripe.js, or the simulator's form). */
  browserConfirmSetup(account: string, setup: { setup_id: string; client_secret: string }, card: TestCard): Promise<string | undefined>;
  browserConfirmPayment(account: string, payment: { payment_intent_id: string; client_secret: string }, card: TestCard): Promise<void>;
  makeUnreachable(): CardProcessor;
  makeSlow(): { processor: CardProcessor; restore(): void };
}

let stand: Awaited<ReturnType<typeof startStripeStandIn>>;
let closedPort: number;

async function browser(path: string, account: string, form: Record<string, string>) {
  return fetch(`${stand.url}/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PUBLISHABLE}`, 'stripe-account': account, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

beforeAll(async () => {
  stand = await startStripeStandIn();
  closedPort = await freePort();
});
afterAll(() => stand.close());

function simulatorDriver(): Driver {
  const sim: CardProcessorSimulator = createCardSimulator({ clock: fixedClock('2026-11-16T10:00:00Z'), timeoutMs: 300 });
  return {
    processor: sim,
    // The simulator's setups confirm with the test card number (its own form's job).
    browserConfirmSetup: async (_account, _setup, card) => TEST_CARDS[card],
    async browserConfirmPayment(_account, payment, card) {
      await sim
        .confirmPayment({ paymentIntentId: payment.payment_intent_id, clientSecret: payment.client_secret, cardNumber: TEST_CARDS[card] })
        .catch(() => undefined);
    },
    makeUnreachable() {
      sim.faults.set('unreachable', { times: 1 });
      return sim;
    },
    makeSlow() {
      sim.faults.set('slow', { delayMs: 1_000, times: 1 });
      return { processor: sim, restore: () => sim.faults.reset() };
    },
  };
}

function stripeDriver(): Driver {
  const make = (apiUrl: string, timeoutMs = 5_000) =>
    createStripeCardProcessor({ secretKey: SECRET, apiUrl, timeoutMs, maxNetworkRetries: 0 });
  return {
    processor: make(stand.url),
    async browserConfirmSetup(account, setup, card) {
      await browser(`/setup_intents/${setup.setup_id}/confirm`, account, {
        client_secret: setup.client_secret,
        payment_method: STRIPE_TOKENS[card],
      });
      return undefined;
    },
    async browserConfirmPayment(account, payment, card) {
      await browser(`/payment_intents/${payment.payment_intent_id}/confirm`, account, {
        client_secret: payment.client_secret,
        payment_method: STRIPE_TOKENS[card],
        return_url: 'https://api.example.test/pay/x/complete',
      });
    },
    makeUnreachable: () => make(`http://127.0.0.1:${closedPort}`),
    makeSlow() {
      stand.standIn.fault = 'hang';
      return { processor: make(stand.url, 300), restore: () => (stand.standIn.fault = 'none') };
    },
  };
}

describe.each([
  ['card simulator', simulatorDriver],
  ['Stripe adapter against the Stripe stand-in', stripeDriver],
])('%s', (_name, makeDriver) => {
  let d: Driver;
  const account = `acct_${randomAlnum(16)}`;
  beforeAll(() => {
    d = makeDriver();
  });

  async function saveCard(card: TestCard): Promise<SavedCard> {
    const setup = await d.processor.createSetup({ account, subscriberId: 'sub-1', email: 'card@example.test' });
    expect(setup.client_secret).toMatch(/^seti_\w+_secret_\w+$/);
    const cardNumber = await d.browserConfirmSetup(account, setup, card);
    return d.processor.confirmSetup({ account, setupId: setup.setup_id, cardNumber });
  }

  it('a confirmed setup answers the saved card: brand, last 4 digits, expiry (no number)', async () => {
    const card = await saveCard('succeeds');
    expect(card).toEqual({
      payment_method_id: expect.stringMatching(/^pm_/),
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: expect.any(Number),
    });
  });

  it('a declined card is refused at confirm (card_declined) and nothing is saved', async () => {
    await expect(saveCard('declined')).rejects.toMatchObject({ name: 'CardRequestError', code: 'card_declined' });
  });

  it('charges off-session once per idempotency key: a repeat answers the same payment; another amount under the key is refused', async () => {
    const card = await saveCard('succeeds');
    const req = {
      account,
      paymentMethodId: card.payment_method_id,
      amountCents: 4999,
      currency: 'EUR',
      idempotencyKey: `invoice:${randomAlnum(8)}`,
    };
    const first = await d.processor.charge(req);
    expect(first).toEqual({ payment_intent_id: expect.stringMatching(/^pi_/), status: 'succeeded' });
    expect(await d.processor.charge(req)).toEqual(first);
    await expect(d.processor.charge({ ...req, amountCents: 5000 })).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('a card whose charges are declined: status declined (the pay link follows)', async () => {
    const card = await saveCard('chargeDeclined');
    const r = await d.processor.charge({
      account,
      paymentMethodId: card.payment_method_id,
      amountCents: 100,
      currency: 'EUR',
      idempotencyKey: randomAlnum(12),
    });
    expect(r).toEqual({ payment_intent_id: expect.stringMatching(/^pi_/), status: 'declined' });
  });

  it('a 3-D Secure card: the off-session charge answers requires_action (the subscriber gets the pay link)', async () => {
    const card = await saveCard('authenticationRequired');
    expect(card.last4).toBe('3184');
    const r = await d.processor.charge({
      account,
      paymentMethodId: card.payment_method_id,
      amountCents: 100,
      currency: 'EUR',
      idempotencyKey: randomAlnum(12),
    });
    expect(r.status).toBe('requires_action');
  });

  it("the pay page's payment: open until the browser confirms it with the processor, then succeeded for its invoice and amount", async () => {
    const req = {
      account,
      amountCents: 2599,
      currency: 'EUR',
      invoiceId: 'inv-1',
      description: 'Invoice R-1',
      idempotencyKey: `pay-link:${randomAlnum(8)}`,
    };
    const p = await d.processor.createPayment(req);
    expect(await d.processor.createPayment(req)).toEqual(p);
    expect(await d.processor.getPayment({ account, paymentIntentId: p.payment_intent_id })).toMatchObject({
      status: 'requires_payment_method',
    });
    await d.browserConfirmPayment(account, p, 'declined');
    expect((await d.processor.getPayment({ account, paymentIntentId: p.payment_intent_id })).status).not.toBe('succeeded');
    await d.browserConfirmPayment(account, p, 'succeeds');
    expect(await d.processor.getPayment({ account, paymentIntentId: p.payment_intent_id })).toEqual({
      payment_intent_id: p.payment_intent_id,
      status: 'succeeded',
      amount_cents: 2599,
      currency: 'EUR',
      invoice_id: 'inv-1',
    });
    // Another account does not see it.
    await expect(
      d.processor.getPayment({ account: `acct_${randomAlnum(12)}`, paymentIntentId: p.payment_intent_id }),
    ).rejects.toMatchObject({
      code: 'payment_not_found',
    });
  });

  it('an unreachable processor: AdapterError unreachable (a transient failure, retried by the job)', async () => {
    const err = await d
      .makeUnreachable()
      .createSetup({ account, subscriberId: 's', email: 'e@example.test' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err).not.toBeInstanceOf(CardRequestError);
    expect(err).toMatchObject({ system: 'card', failure: 'unreachable' });
  });

  it('a processor that does not answer in time: AdapterError timeout', async () => {
    const slow = d.makeSlow();
    try {
      const err = await slow.processor
        .createPayment({ account, amountCents: 100, currency: 'EUR', invoiceId: 'i', description: 'd', idempotencyKey: randomAlnum(10) })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'AdapterError', system: 'card', failure: 'timeout' });
    } finally {
      slow.restore();
    }
  });
});

describe('Stripe adapter: what only a real processor does', () => {
  const account = `acct_${randomAlnum(16)}`;
  let stripe: ReturnType<typeof createStripeCardProcessor>;
  beforeAll(() => {
    stripe = createStripeCardProcessor({ secretKey: SECRET, apiUrl: stand.url, maxNetworkRetries: 0 });
  });

  it('never takes a card number: confirm with one is refused before any request', async () => {
    const before = stand.standIn.requests.length;
    await expect(stripe.confirmSetup({ account, setupId: 'seti_x', cardNumber: '4242424242424242' })).rejects.toMatchObject({
      code: 'card_number_refused',
    });
    expect(stand.standIn.requests.length).toBe(before);
    expect(stripe.takesCardNumbers).toBe(false);
  });

  it('a setup the browser has not confirmed is setup_incomplete, nothing saved', async () => {
    const setup = await stripe.createSetup({ account, subscriberId: 's', email: 'e@example.test' });
    await expect(stripe.confirmSetup({ account, setupId: setup.setup_id })).rejects.toMatchObject({ code: 'setup_incomplete' });
  });

  it('every request carries the connected account (Stripe-Account) and passed the published parameter checks', async () => {
    const account = `acct_${randomAlnum(16)}`;
    const setup = await stripe.createSetup({ account, subscriberId: 's', email: 'e@example.test' });
    await browser(`/setup_intents/${setup.setup_id}/confirm`, account, {
      client_secret: setup.client_secret,
      payment_method: 'pm_card_visa',
    });
    const card = await stripe.confirmSetup({ account, setupId: setup.setup_id });
    await stripe.charge({
      account,
      paymentMethodId: card.payment_method_id,
      amountCents: 100,
      currency: 'EUR',
      idempotencyKey: randomAlnum(12),
    });
    const mine = stand.standIn.requests.filter((r) => r.account === account);
    expect(mine.map((r) => `${r.method} ${r.path.replace(/\/(seti|pi)_\w+/, '/{id}')}`)).toEqual([
      'POST /v1/customers',
      'POST /v1/setup_intents',
      'POST /v1/setup_intents/{id}/confirm',
      'GET /v1/setup_intents/{id}',
      'POST /v1/payment_intents',
    ]);
    expect(mine.at(-1)!.params).toMatchObject({ off_session: 'true', confirm: 'true', amount: '100', currency: 'eur' });
  });

  it('the stand-in refuses what Stripe refuses: an unknown parameter, a missing required one, a wrong type, no key', async () => {
    const sdk = new Stripe(SECRET, { host: '127.0.0.1', port: new URL(stand.url).port, protocol: 'http', maxNetworkRetries: 0 });
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: { type?: string; code?: string; param?: string }) => ({ type: e.type, code: e.code, param: e.param }),
      );
    expect(
      await refused(sdk.paymentIntents.create({ amount: 100, currency: 'eur', bogus: 'x' } as never, { stripeAccount: account })),
    ).toEqual({
      type: 'StripeInvalidRequestError',
      code: 'parameter_unknown',
      param: 'bogus',
    });
    expect(await refused(sdk.paymentIntents.create({ currency: 'eur' } as never, { stripeAccount: account }))).toMatchObject({
      code: 'parameter_missing',
      param: 'amount',
    });
    expect(await refused(sdk.paymentIntents.create({ amount: 'ten' as never, currency: 'eur' }, { stripeAccount: account }))).toMatchObject(
      { code: 'parameter_invalid', param: 'amount' },
    );
    expect(await refused(sdk.setupIntents.create({ usage: 'sometimes' as never }, { stripeAccount: account }))).toMatchObject({
      code: 'parameter_invalid',
      param: 'usage',
    });
    const noKey = await fetch(`${stand.url}/v1/customers`, { method: 'POST' });
    expect(noKey.status).toBe(401);
  });
});
