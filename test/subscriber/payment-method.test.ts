import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { resetAllFaults, simulatorsOf, TEST_CARDS } from '../../src/adapters/index.js';
import { bearerFor, customer } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

const card = (id: string) =>
  t.db
    .selectFrom('subscribers')
    .select([
      'card_payment_method_id',
      'card_brand',
      'card_last4',
      'card_exp_month',
      'card_exp_year',
      'card_setup_id',
      'card_setup_secret_hash',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('subscriber payment method', () => {
  it('answers 409 {detail} on GET, setup and confirm when the provider has no card-processor connection', async () => {
    const c = await customer(t, { cardProcessor: null });
    const calls = [
      { method: 'GET' as const, url: '/subscriber/me/payment-method' },
      { method: 'POST' as const, url: '/subscriber/me/payment-method/setup' },
      { method: 'POST' as const, url: '/subscriber/me/payment-method/confirm', payload: { client_secret: 'seti_abc_secret_0123456789' } },
    ];
    for (const call of calls) {
      const r = await t.app.inject({ ...call, headers: c.headers });
      expect(r.statusCode, call.url).toBe(409);
      expect(r.json().detail).toMatch(/no card-processor connection/);
    }
  });

  it('answers 404 without a subscriber record', async () => {
    const u = await createUser(t.db);
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me/payment-method', headers: await bearerFor(t, { id: u.id }) });
    expect(r.statusCode).toBe(404);
  });

  it("saves a card through setup and confirm on the provider's account; stores brand, last4, expiry and the processor id (internal), exposes no processor id", async () => {
    const c = await customer(t);
    const none = await t.app.inject({ method: 'GET', url: '/subscriber/me/payment-method', headers: c.headers });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ payment_method: null });

    const setup = await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers });
    expect(setup.statusCode).toBe(201);
    expect(setup.json()).toEqual({ client_secret: expect.any(String), status: 'requires_confirmation' });
    const stored = await card(c.subscriber.id);
    expect(stored.card_setup_id).toMatch(/^seti_/);
    const account = (
      await t.db.selectFrom('providers').select('card_processor_account').where('id', '=', c.provider.id).executeTakeFirstOrThrow()
    ).card_processor_account!;
    expect(simulatorsOf(t.deps.adapters).cardProcessor.setups(account)).toHaveLength(1);

    const confirm = await t.app.inject({
      method: 'POST',
      url: '/subscriber/me/payment-method/confirm',
      headers: c.headers,
      payload: { client_secret: setup.json().client_secret, card_number: TEST_CARDS.succeeds },
    });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.json()).toEqual({ payment_method: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2029 } });
    expect(confirm.body).not.toMatch(/pm_|seti_|cus_/);
    const saved = await card(c.subscriber.id);
    expect(saved).toMatchObject({
      card_brand: 'visa',
      card_last4: '4242',
      card_exp_month: 12,
      card_exp_year: 2029,
      card_setup_id: null,
      card_setup_secret_hash: null,
    });
    expect(saved.card_payment_method_id).toMatch(/^pm_/);
    expect(simulatorsOf(t.deps.adapters).cardProcessor.savedCards(account)[0]!.subscriberId).toBe(c.subscriber.id);

    const got = await t.app.inject({ method: 'GET', url: '/subscriber/me/payment-method', headers: c.headers });
    expect(got.json()).toEqual({ payment_method: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2029 } });
    expect(got.body).not.toMatch(/pm_/);
  });

  it('a declined card answers 402 and saves nothing; a wrong client_secret answers 409; an incorrect number 422', async () => {
    const c = await customer(t);
    const setup = (await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers })).json();
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/subscriber/me/payment-method/confirm',
      headers: c.headers,
      payload: { client_secret: `${setup.client_secret}x` },
    });
    expect(wrong.statusCode).toBe(409);
    const bad = await t.app.inject({
      method: 'POST',
      url: '/subscriber/me/payment-method/confirm',
      headers: c.headers,
      payload: { client_secret: setup.client_secret, card_number: '4242424242424241' },
    });
    expect(bad.statusCode).toBe(422);
    const declined = await t.app.inject({
      method: 'POST',
      url: '/subscriber/me/payment-method/confirm',
      headers: c.headers,
      payload: { client_secret: setup.client_secret, card_number: TEST_CARDS.declined },
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.json()).toEqual({ detail: 'The card was declined; nothing was saved' });
    expect((await card(c.subscriber.id)).card_payment_method_id).toBeNull();
  });

  it('answers 502 when the card processor is unreachable', async () => {
    const c = await customer(t);
    simulatorsOf(t.deps.adapters).cardProcessor.faults.set('unreachable');
    const r = await t.app.inject({ method: 'POST', url: '/subscriber/me/payment-method/setup', headers: c.headers });
    expect(r.statusCode).toBe(502);
    expect((await card(c.subscriber.id)).card_setup_id).toBeNull();
  });
});
