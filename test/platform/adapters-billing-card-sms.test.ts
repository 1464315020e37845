import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import {
  DECLINING_PAYMENT_METHOD_MARKER,
  resetAllFaults,
  simulatorsOf,
  TEST_CARDS,
  type SimulatedAdapters,
} from '../../src/adapters/index.js';
import { AdapterError, CardRequestError, type BillingCreditNote } from '../../src/adapters/types.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';

let t: TestApp;
let sim: SimulatedAdapters;
let providerId: string;

beforeAll(async () => {
  t = await buildTestApp();
  sim = simulatorsOf(t.deps.adapters);
  providerId = (await createProvider(t.db)).id;
});
afterAll(() => t.close());
afterEach(() => {
  resetAllFaults(sim);
  for (const a of [sim.switchController, sim.billingSystem, sim.cardProcessor, sim.sms]) a.faults.timeoutMs = 5_000;
});

async function expectAdapterError(p: Promise<unknown>, system: AdapterError['system'], failure: AdapterError['failure']) {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  expect(err).toMatchObject({ system, failure });
  return err as AdapterError;
}

async function expectCardError(p: Promise<unknown>, code: CardRequestError['code']) {
  const err = await expectAdapterError(p, 'card', 'failed');
  expect(err).toBeInstanceOf(CardRequestError);
  expect((err as CardRequestError).code).toBe(code);
}

/** Each fault mode against one call that would otherwise succeed. */
async function checkFaultModes(system: AdapterError['system'], faults: SimulatedAdapters['sms']['faults'], call: () => Promise<unknown>) {
  faults.set('unreachable');
  await expectAdapterError(call(), system, 'unreachable');
  faults.set('failing');
  await expectAdapterError(call(), system, 'failed');
  faults.set('slow', { delayMs: 120 });
  const started = Date.now();
  await call();
  expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  faults.timeoutMs = 50;
  faults.set('slow', { delayMs: 200 });
  await expectAdapterError(call(), system, 'timeout');
  faults.reset();
  faults.timeoutMs = 5_000;
  await call();
}

describe('billing system simulator', () => {
  let subscriberId: string;
  let other: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    subscriberId = (await createSubscriber(t.db, providerId)).id;
    other = (await createSubscriber(t.db, providerId)).id;
    const states: BillingCreditNote['state'][] = ['draft', 'open', 'refunded', 'paid_out', 'applied', 'archived', 'voided'];
    for (const [i, state] of states.entries()) {
      ids[state] = newId();
      await t.db
        .insertInto('credit_notes')
        .values({
          id: ids[state],
          provider_id: providerId,
          subscriber_id: subscriberId,
          number: `CN-${randomAlnum(8)}`,
          state,
          amount_cents: 1000 + i,
          currency: 'EUR',
          reason: `reason ${state}`,
          issued_at: new Date(Date.UTC(2026, 0, 1 + i)),
        })
        .execute();
    }
    await t.db
      .insertInto('credit_notes')
      .values({
        id: newId(),
        provider_id: providerId,
        subscriber_id: other,
        number: `CN-${randomAlnum(8)}`,
        state: 'open',
        amount_cents: 5,
        currency: 'EUR',
        reason: 'other',
        issued_at: new Date('2026-03-01T00:00:00Z'),
      })
      .execute();
  });

  it('lists every credit note of the subscriber in every state, newest first (filtering is the service’s rule)', async () => {
    const notes = await sim.billingSystem.listCreditNotes(subscriberId);
    expect(notes.map((n) => n.state)).toEqual(['voided', 'archived', 'applied', 'paid_out', 'refunded', 'open', 'draft']);
    expect(notes.every((n) => n.subscriber_id === subscriberId)).toBe(true);
    expect(notes.at(-1)).toEqual({
      id: ids.draft,
      number: expect.stringMatching(/^CN-/),
      state: 'draft',
      amount_cents: 1000,
      currency: 'EUR',
      reason: 'reason draft',
      issued_at: new Date('2026-01-01T00:00:00Z'),
      subscriber_id: subscriberId,
      subscription_id: null,
    });
  });

  it('reads one credit note by id; unknown and malformed ids answer null / an empty list', async () => {
    expect(await sim.billingSystem.getCreditNote(ids.open!)).toMatchObject({ id: ids.open, state: 'open', amount_cents: 1001 });
    expect(await sim.billingSystem.getCreditNote(newId())).toBeNull();
    expect(await sim.billingSystem.getCreditNote('CN-1')).toBeNull();
    expect(await sim.billingSystem.listCreditNotes('not-a-uuid')).toEqual([]);
    expect(await sim.billingSystem.listCreditNotes(newId())).toEqual([]);
  });

  it('records the rescheduled send date durably in sim_billing_schedules; a second reschedule replaces it', async () => {
    const plan = await createPlanVersion(t.db, providerId);
    const sub = await createSubscription(t.db, { providerId, subscriberId, planVersionId: plan.id });
    expect(await sim.billingSystem.getNextInvoiceSendDate(sub.id)).toBeNull();
    await sim.billingSystem.rescheduleNextInvoice({ subscriptionId: sub.id, sendDate: '2026-12-05' });
    await sim.billingSystem.rescheduleNextInvoice({ subscriptionId: sub.id, sendDate: '2026-12-07' });
    expect(await sim.billingSystem.getNextInvoiceSendDate(sub.id)).toBe('2026-12-07');
    const row = await t.db.selectFrom('sim_billing_schedules').selectAll().where('subscription_id', '=', sub.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ next_send_date: '2026-12-07', reschedules: 2 });
  });

  it('refuses a malformed reschedule', async () => {
    await expectAdapterError(
      sim.billingSystem.rescheduleNextInvoice({ subscriptionId: newId(), sendDate: '2026-02-30' }),
      'billing',
      'failed',
    );
    await expectAdapterError(sim.billingSystem.rescheduleNextInvoice({ subscriptionId: 'x', sendDate: '2026-02-03' }), 'billing', 'failed');
  });

  it('each fault mode: unreachable, failing, slow, timeout (a list is never silently empty)', async () => {
    await checkFaultModes('billing', sim.billingSystem.faults, () => sim.billingSystem.listCreditNotes(subscriberId));
    const sid = newId();
    sim.billingSystem.faults.set('unreachable');
    await expectAdapterError(
      sim.billingSystem.rescheduleNextInvoice({ subscriptionId: sid, sendDate: '2026-12-05' }),
      'billing',
      'unreachable',
    );
    expect(await sim.billingSystem.getNextInvoiceSendDate(sid)).toBeNull();
  });
});

describe('card processor simulator', () => {
  const account = `acct_${randomAlnum(10)}`;

  async function saveCard(cardNumber?: string, acct = account) {
    const setup = await sim.cardProcessor.createSetup({ account: acct, subscriberId: newId(), email: 'card@example.test' });
    return sim.cardProcessor.confirmSetup({ account: acct, setupId: setup.setup_id, cardNumber });
  }

  it(`saves ${TEST_CARDS.succeeds} as a visa card; confirming the setup again answers the same card`, async () => {
    const setup = await sim.cardProcessor.createSetup({ account, subscriberId: 'sub-1', email: 'a@example.test' });
    expect(setup.setup_id).toMatch(/^seti_/);
    expect(setup.client_secret.startsWith(`${setup.setup_id}_secret_`)).toBe(true);
    const card = await sim.cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: '4242 4242 4242 4242' });
    expect(card).toEqual({ payment_method_id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2029 });
    expect(await sim.cardProcessor.confirmSetup({ account, setupId: setup.setup_id })).toEqual(card);
    expect(sim.cardProcessor.savedCards(account).filter((c) => c.subscriberId === 'sub-1')).toEqual([{ ...card, subscriberId: 'sub-1' }]);
    expect(sim.cardProcessor.setups(account).find((s) => s.setup_id === setup.setup_id)).toMatchObject({
      status: 'succeeded',
      payment_method_id: card.payment_method_id,
    });
  });

  it(`declines ${TEST_CARDS.declined} (CardRequestError card_declined) and saves nothing; the setup can be retried`, async () => {
    const setup = await sim.cardProcessor.createSetup({ account, subscriberId: 'sub-2', email: 'b@example.test' });
    await expectCardError(
      sim.cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: TEST_CARDS.declined }),
      'card_declined',
    );
    expect(sim.cardProcessor.savedCards(account).filter((c) => c.subscriberId === 'sub-2')).toEqual([]);
    await expectCardError(
      sim.cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: '4242424242424241' }),
      'incorrect_number',
    );
    const card = await sim.cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: TEST_CARDS.succeeds });
    expect(card.last4).toBe('4242');
  });

  it('does not confirm a setup of another account or an unknown one', async () => {
    const setup = await sim.cardProcessor.createSetup({ account, subscriberId: 'sub-3', email: 'c@example.test' });
    await expectCardError(sim.cardProcessor.confirmSetup({ account: 'acct_other', setupId: setup.setup_id }), 'setup_not_found');
    await expectCardError(sim.cardProcessor.confirmSetup({ account, setupId: 'seti_nope' }), 'setup_not_found');
  });

  it('charges a saved card once per idempotency key: a repeat answers the same payment intent and takes no money', async () => {
    const card = await saveCard();
    const before = sim.cardProcessor.charges.length;
    const req = {
      account,
      paymentMethodId: card.payment_method_id,
      amountCents: 3999,
      currency: 'eur',
      idempotencyKey: `first-invoice-${newId()}`,
    };
    const first = await sim.cardProcessor.charge(req);
    const again = await sim.cardProcessor.charge(req);
    expect(first).toEqual({ payment_intent_id: expect.stringMatching(/^pi_/), status: 'succeeded' });
    expect(again).toEqual(first);
    expect(sim.cardProcessor.charges.length).toBe(before + 1);
    expect(sim.cardProcessor.charges.at(-1)).toMatchObject({
      amountCents: 3999,
      currency: 'EUR',
      status: 'succeeded',
      created_at: t.clock.now(),
    });
    await expectCardError(sim.cardProcessor.charge({ ...req, amountCents: 1 }), 'idempotency_key_reused');
    const other = await sim.cardProcessor.charge({ ...req, idempotencyKey: `second-${newId()}` });
    expect(other.payment_intent_id).not.toBe(first.payment_intent_id);
  });

  it(`declines charges on ${TEST_CARDS.chargeDeclined} (status declined, recorded, idempotent too)`, async () => {
    const card = await saveCard(TEST_CARDS.chargeDeclined);
    const req = { account, paymentMethodId: card.payment_method_id, amountCents: 500, currency: 'EUR', idempotencyKey: newId() };
    const r = await sim.cardProcessor.charge(req);
    expect(r.status).toBe('declined');
    expect(await sim.cardProcessor.charge(req)).toEqual(r);
  });

  it('treats payment methods it did not create (seeded data, after a restart) as working cards unless marked declining', async () => {
    const ok = await sim.cardProcessor.charge({
      account,
      paymentMethodId: 'pm_seeded_visa',
      amountCents: 100,
      currency: 'EUR',
      idempotencyKey: newId(),
    });
    expect(ok.status).toBe('succeeded');
    const no = await sim.cardProcessor.charge({
      account,
      paymentMethodId: `pm_card_${DECLINING_PAYMENT_METHOD_MARKER}`,
      amountCents: 100,
      currency: 'EUR',
      idempotencyKey: newId(),
    });
    expect(no.status).toBe('declined');
    await expectCardError(
      sim.cardProcessor.charge({ account, paymentMethodId: 'card_123', amountCents: 100, currency: 'EUR', idempotencyKey: newId() }),
      'payment_method_not_found',
    );
    await expectCardError(
      sim.cardProcessor.charge({ account, paymentMethodId: 'pm_x', amountCents: 0, currency: 'EUR', idempotencyKey: newId() }),
      'invalid_request',
    );
    await expectCardError(
      sim.cardProcessor.charge({ account, paymentMethodId: 'pm_x', amountCents: 10, currency: 'EURO', idempotencyKey: newId() }),
      'invalid_request',
    );
  });

  it('keeps cards per account: a card of one account cannot be charged through another', async () => {
    const card = await saveCard(undefined, 'acct_one');
    expect(sim.cardProcessor.savedCards('acct_two')).toEqual([]);
    expect(sim.cardProcessor.savedCards('acct_one').map((c) => c.payment_method_id)).toContain(card.payment_method_id);
  });

  it('each fault mode; an unreachable processor takes no charge', async () => {
    await checkFaultModes('card', sim.cardProcessor.faults, () =>
      sim.cardProcessor.createSetup({ account, subscriberId: 's', email: 'f@example.test' }),
    );
    const card = await saveCard();
    const before = sim.cardProcessor.charges.length;
    sim.cardProcessor.faults.set('unreachable');
    await expectAdapterError(
      sim.cardProcessor.charge({
        account,
        paymentMethodId: card.payment_method_id,
        amountCents: 100,
        currency: 'EUR',
        idempotencyKey: newId(),
      }),
      'card',
      'unreachable',
    );
    sim.cardProcessor.faults.set('failing');
    await expectAdapterError(
      sim.cardProcessor.charge({
        account,
        paymentMethodId: card.payment_method_id,
        amountCents: 100,
        currency: 'EUR',
        idempotencyKey: newId(),
      }),
      'card',
      'failed',
    );
    expect(sim.cardProcessor.charges.length).toBe(before);
  });
});

describe('SMS gateway simulator', () => {
  it('records every accepted message in `sent` with the clock time', async () => {
    await sim.sms.send({ to: '+4915123456789', text: 'Your code is 123456' });
    expect(sim.sms.sent.at(-1)).toEqual({ to: '+4915123456789', text: 'Your code is 123456', sent_at: t.clock.now() });
  });

  it('refuses a destination that is not E.164 and an empty text, recording nothing', async () => {
    const n = sim.sms.sent.length;
    await expectAdapterError(sim.sms.send({ to: '0151 234', text: 'x' }), 'sms', 'failed');
    await expectAdapterError(sim.sms.send({ to: '+4915123456789', text: '' }), 'sms', 'failed');
    expect(sim.sms.sent.length).toBe(n);
  });

  it('each fault mode; a failed send records nothing', async () => {
    const n = sim.sms.sent.length;
    sim.sms.faults.set('unreachable');
    await expectAdapterError(sim.sms.send({ to: '+4915123456789', text: 'x' }), 'sms', 'unreachable');
    expect(sim.sms.sent.length).toBe(n);
    await checkFaultModes('sms', sim.sms.faults, () => sim.sms.send({ to: '+4915123456789', text: 'y' }));
  });
});

describe('createAdapters', () => {
  it('wires all four simulators into deps.adapters', () => {
    expect(Object.keys(t.deps.adapters).sort()).toEqual(['billingSystem', 'cardProcessor', 'sms', 'switchController']);
    expect(() => simulatorsOf({} as never)).toThrow(/not the embedded simulators/);
  });
});
