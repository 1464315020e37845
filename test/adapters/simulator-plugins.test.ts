// Issue 29: the stand-ins are Fastify plugins, so one shared simulator server can mount them all (the
// registration src/adapters/README.md names): Stripe under /v1, Twilio under /2010-04-01, the card
// simulator's pay form under /card (then CARD_SIMULATOR_URL is <server>/card).
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cardSimulatorRoutes } from '../../src/adapters/card.simulator-routes.js';
import { createCardSimulator } from '../../src/adapters/card.simulator.js';
import { stripeSimulatorRoutes } from '../../src/adapters/stripe.simulator-routes.js';
import { twilioSimulatorRoutes } from '../../src/adapters/twilio.simulator-routes.js';
import { fixedClock } from '../../src/lib/clock.js';

const app = Fastify({ logger: false });
const card = createCardSimulator({ clock: fixedClock('2026-11-16T10:00:00Z') });
const sid = `AC${'0123456789abcdef'.repeat(2)}`;
beforeAll(async () => {
  await app.register(stripeSimulatorRoutes, { prefix: '/v1' });
  await app.register(twilioSimulatorRoutes, {
    prefix: '/2010-04-01',
    standIn: { accounts: new Map([[sid, 'tok'.repeat(8)]]), messages: [], fault: 'none' },
  });
  await app.register(cardSimulatorRoutes, { prefix: '/card', simulator: card, returnOrigins: ['https://api.example.test'] });
  await app.ready();
});
afterAll(() => app.close());

it('one server answers as Stripe, as Twilio and as the card simulator, each under its prefix', async () => {
  const stripe = await app.inject({
    method: 'POST',
    url: '/v1/customers',
    headers: { authorization: 'Bearer sk_test_abcdefghij', 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=a%40example.test',
  });
  expect(stripe.statusCode).toBe(200);
  expect(stripe.json()).toMatchObject({ object: 'customer', email: 'a@example.test', id: expect.stringMatching(/^cus_/) });

  const twilio = await app.inject({
    method: 'POST',
    url: `/2010-04-01/Accounts/${sid}/Messages.json`,
    headers: {
      authorization: `Basic ${Buffer.from(`${sid}:${'tok'.repeat(8)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'To=%2B4915112345678&From=%2B4930123456&Body=123456',
  });
  expect(twilio.statusCode).toBe(201);
  expect(twilio.json()).toMatchObject({ status: 'queued', to: '+4915112345678', sid: expect.stringMatching(/^SM/) });

  const p = await card.createPayment({
    account: 'acct_demo',
    amountCents: 100,
    currency: 'EUR',
    invoiceId: 'i',
    description: 'd',
    idempotencyKey: 'k',
  });
  const form = new URLSearchParams({
    client_secret: p.client_secret,
    return_url: 'https://api.example.test/pay/t/complete',
    card_number: '4242424242424242',
  });
  const pay = await app.inject({
    method: 'POST',
    url: `/card/payments/${p.payment_intent_id}/confirm`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
  expect(pay.statusCode).toBe(303);
  expect(pay.headers.location).toBe(
    `https://api.example.test/pay/t/complete?payment_intent=${p.payment_intent_id}&redirect_status=succeeded`,
  );
});
