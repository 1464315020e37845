import type { Clock } from '../lib/clock.js';
import { randomAlnum } from '../lib/ids.js';
import { createFaults, simulateCall, type SimFaultControl } from './faults.js';
import { CardRequestError, type CardProcessor, type ChargeStatus, type PaymentState, type SavedCard } from './types.js';

/** Test card numbers the simulator knows (any other Luhn-valid number is a working card). */
export const TEST_CARDS = {
  /** Saves and charges. */
  succeeds: '4242424242424242',
  /** Declined when the setup is confirmed: nothing is saved. */
  declined: '4000000000000002',
  /** Saves, but every charge on it is declined. */
  chargeDeclined: '4000000000000341',
  /** Stripe's "always authenticate" card: saves, but every off-session charge answers requires_action (3-D Secure). */
  authenticationRequired: '4000002760003184',
} as const;

/**
 * A payment method id the simulator did not create (seeded data, or a process restart: this
 * simulator keeps cards in memory) counts as a working card, unless the id contains this marker.
 */
export const DECLINING_PAYMENT_METHOD_MARKER = 'chargeDeclined';

interface ChargeRecord {
  account: string;
  paymentMethodId: string;
  amountCents: number;
  currency: string;
  idempotencyKey: string;
  payment_intent_id: string;
  status: ChargeStatus;
  created_at: Date;
}

interface PaymentRecord {
  account: string;
  state: PaymentState;
  client_secret: string;
  idempotencyKey: string;
}

interface CardSetupRecord {
  setup_id: string;
  account: string;
  subscriberId: string;
  email: string;
  status: 'requires_confirmation' | 'succeeded';
  payment_method_id: string | null;
}

export interface CardProcessorSimulator extends CardProcessor {
  readonly faults: SimFaultControl;
  /** Set by createAdapters once the simulator's server runs (see CardProcessor.browserUrl). */
  browserUrl: string | null;
  /** Every charge the processor took (an idempotent replay adds none), declined ones included. */
  readonly charges: readonly ChargeRecord[];
  /** Setups of an account, oldest first. */
  setups(account: string): CardSetupRecord[];
  /** Cards saved on an account, with the subscriber each belongs to. */
  savedCards(account: string): (SavedCard & { subscriberId: string })[];
  /**
   * The browser's side (what Stripe.js does with Stripe): pays a payment created with createPayment by a
   * test card number, given the payment's client secret. Reached through the simulator's own server
   * (card.simulator-routes.ts), never through this server's routes.
   */
  confirmPayment(req: { paymentIntentId: string; clientSecret: string; cardNumber: string }): Promise<PaymentState>;
}

interface StoredCard {
  card: SavedCard;
  subscriberId: string;
  chargeOutcome: ChargeStatus;
}

/** What an off-session charge on a card of this number answers. */
const chargeOutcomeOf = (number: string): ChargeStatus =>
  number === TEST_CARDS.chargeDeclined ? 'declined' : number === TEST_CARDS.authenticationRequired ? 'requires_action' : 'succeeded';

function cardNumberProblem(number: string): CardRequestError | null {
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) return new CardRequestError('incorrect_number', 'The card number is incorrect');
  if (number === TEST_CARDS.declined) return new CardRequestError('card_declined', 'The card was declined');
  return null;
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function brandOf(n: string): string {
  if (n.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(n)) return 'mastercard';
  if (/^3[47]/.test(n)) return 'amex';
  return 'unknown';
}

/**
 * The card processor simulator: setups, saved cards and charges live in memory per connected
 * account (the provider's card_processor_account). `charge` is idempotent on (account,
 * idempotencyKey): a repeat answers the first result and charges nothing.
 */
export function createCardSimulator({ clock, timeoutMs }: { clock: Clock; timeoutMs?: number }): CardProcessorSimulator {
  const faults = createFaults(timeoutMs);
  const setups = new Map<string, CardSetupRecord>();
  const cards = new Map<string, Map<string, StoredCard>>(); // account -> payment_method_id -> card
  const charges: ChargeRecord[] = [];
  const byKey = new Map<string, ChargeRecord>(); // `${account}\n${idempotencyKey}`
  const payments = new Map<string, PaymentRecord>();
  const paymentsByKey = new Map<string, PaymentRecord>();

  function accountCards(account: string) {
    let m = cards.get(account);
    if (!m) cards.set(account, (m = new Map<string, StoredCard>()));
    return m;
  }

  function requireString(name: string, v: unknown, max = 500) {
    if (typeof v !== 'string' || v.length === 0 || v.length > max)
      throw new CardRequestError('invalid_request', `${name} must be a non-empty string`);
  }

  return {
    faults: faults.control,
    kind: 'simulator',
    takesCardNumbers: true,
    browserUrl: null,
    get charges() {
      return charges;
    },

    createSetup(req) {
      return simulateCall('card', faults, async () => {
        requireString('account', req?.account);
        requireString('subscriberId', req.subscriberId);
        requireString('email', req.email);
        const setupId = `seti_${randomAlnum(24)}`;
        setups.set(setupId, {
          setup_id: setupId,
          account: req.account,
          subscriberId: req.subscriberId,
          email: req.email,
          status: 'requires_confirmation',
          payment_method_id: null,
        });
        return { setup_id: setupId, client_secret: `${setupId}_secret_${randomAlnum(32)}` };
      });
    },

    confirmSetup(req) {
      return simulateCall('card', faults, async () => {
        requireString('account', req?.account);
        const setup = setups.get(req.setupId);
        if (!setup || setup.account !== req.account) throw new CardRequestError('setup_not_found', 'No such card setup on this account');
        // Confirming twice (a retried request) answers the card saved the first time.
        if (setup.status === 'succeeded') return { ...accountCards(req.account).get(setup.payment_method_id!)!.card };
        const number = (req.cardNumber ?? TEST_CARDS.succeeds).replace(/[\s-]/g, '');
        const problem = cardNumberProblem(number);
        if (problem) throw problem;
        const card: SavedCard = {
          payment_method_id: `pm_${randomAlnum(24)}`,
          brand: brandOf(number),
          last4: number.slice(-4),
          exp_month: 12,
          exp_year: clock.now().getUTCFullYear() + 3,
        };
        accountCards(req.account).set(card.payment_method_id, {
          card,
          subscriberId: setup.subscriberId,
          chargeOutcome: chargeOutcomeOf(number),
        });
        setup.status = 'succeeded';
        setup.payment_method_id = card.payment_method_id;
        return { ...card };
      });
    },

    charge(req) {
      return simulateCall('card', faults, async () => {
        requireString('account', req?.account);
        requireString('paymentMethodId', req.paymentMethodId);
        requireString('idempotencyKey', req.idempotencyKey, 255);
        if (!Number.isSafeInteger(req.amountCents) || req.amountCents <= 0)
          throw new CardRequestError('invalid_request', 'amountCents must be a positive integer');
        if (typeof req.currency !== 'string' || !/^[A-Za-z]{3}$/.test(req.currency))
          throw new CardRequestError('invalid_request', 'currency must be an ISO 4217 code');
        const currency = req.currency.toUpperCase();

        const key = `${req.account}\n${req.idempotencyKey}`;
        const prior = byKey.get(key);
        if (prior) {
          if (prior.paymentMethodId !== req.paymentMethodId || prior.amountCents !== req.amountCents || prior.currency !== currency) {
            throw new CardRequestError('idempotency_key_reused', 'The idempotency key was used for a different charge');
          }
          return { payment_intent_id: prior.payment_intent_id, status: prior.status };
        }

        const stored = accountCards(req.account).get(req.paymentMethodId);
        let status: ChargeStatus;
        if (stored) status = stored.chargeOutcome;
        else if (req.paymentMethodId.startsWith('pm_'))
          status = req.paymentMethodId.includes(DECLINING_PAYMENT_METHOD_MARKER) ? 'declined' : 'succeeded';
        else throw new CardRequestError('payment_method_not_found', 'No such payment method on this account');

        const record: ChargeRecord = {
          account: req.account,
          paymentMethodId: req.paymentMethodId,
          amountCents: req.amountCents,
          currency,
          idempotencyKey: req.idempotencyKey,
          payment_intent_id: `pi_${randomAlnum(24)}`,
          status,
          created_at: clock.now(),
        };
        charges.push(record);
        byKey.set(key, record);
        return { payment_intent_id: record.payment_intent_id, status: record.status };
      });
    },

    createPayment(req) {
      return simulateCall('card', faults, async () => {
        requireString('account', req?.account);
        requireString('idempotencyKey', req.idempotencyKey, 255);
        if (!Number.isSafeInteger(req.amountCents) || req.amountCents <= 0)
          throw new CardRequestError('invalid_request', 'amountCents must be a positive integer');
        const key = `${req.account}\n${req.idempotencyKey}`;
        const prior = paymentsByKey.get(key);
        if (prior) return { payment_intent_id: prior.state.payment_intent_id, client_secret: prior.client_secret };
        const id = `pi_${randomAlnum(24)}`;
        const record: PaymentRecord = {
          account: req.account,
          idempotencyKey: req.idempotencyKey,
          client_secret: `${id}_secret_${randomAlnum(32)}`,
          state: {
            payment_intent_id: id,
            status: 'requires_payment_method',
            amount_cents: req.amountCents,
            currency: req.currency.toUpperCase(),
            invoice_id: req.invoiceId,
          },
        };
        payments.set(id, record);
        paymentsByKey.set(key, record);
        return { payment_intent_id: id, client_secret: record.client_secret };
      });
    },

    getPayment(req) {
      return simulateCall('card', faults, async () => {
        const p = payments.get(req?.paymentIntentId);
        if (!p || p.account !== req.account) throw new CardRequestError('payment_not_found', 'No such payment on this account');
        return { ...p.state };
      });
    },

    async confirmPayment(req) {
      const p = payments.get(req?.paymentIntentId);
      if (!p || typeof req.clientSecret !== 'string' || req.clientSecret !== p.client_secret)
        throw new CardRequestError('payment_not_found', 'No such payment');
      if (p.state.status === 'succeeded') return { ...p.state };
      const number = String(req.cardNumber ?? '').replace(/[\s-]/g, '');
      const problem = cardNumberProblem(number);
      if (problem) throw problem;
      // On-session, the cardholder is present: a 3-D Secure card authenticates here and pays.
      if (number === TEST_CARDS.chargeDeclined) throw new CardRequestError('card_declined', 'The card was declined');
      p.state.status = 'succeeded';
      return { ...p.state };
    },

    setups(account) {
      return [...setups.values()].filter((s) => s.account === account).map((s) => ({ ...s }));
    },

    savedCards(account) {
      return [...accountCards(account).values()].map((s) => ({ ...s.card, subscriberId: s.subscriberId }));
    },
  };
}
