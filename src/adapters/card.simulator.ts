import type { Clock } from '../lib/clock.js';
import { randomAlnum } from '../lib/ids.js';
import { createFaults, simulateCall, type SimFaultControl } from './faults.js';
import { CardRequestError, type CardProcessor, type SavedCard } from './types.js';

/** Test card numbers the simulator knows (any other Luhn-valid number is a working card). */
export const TEST_CARDS = {
  /** Saves and charges. */
  succeeds: '4242424242424242',
  /** Declined when the setup is confirmed: nothing is saved. */
  declined: '4000000000000002',
  /** Saves, but every charge on it is declined. */
  chargeDeclined: '4000000000000341',
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
  status: 'succeeded' | 'declined';
  created_at: Date;
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
  /** Every charge the processor took (an idempotent replay adds none), declined ones included. */
  readonly charges: readonly ChargeRecord[];
  /** Setups of an account, oldest first. */
  setups(account: string): CardSetupRecord[];
  /** Cards saved on an account, with the subscriber each belongs to. */
  savedCards(account: string): (SavedCard & { subscriberId: string })[];
}

interface StoredCard {
  card: SavedCard;
  subscriberId: string;
  declinesCharges: boolean;
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

  function accountCards(account: string) {
    let m = cards.get(account);
    if (!m) cards.set(account, (m = new Map()));
    return m;
  }

  function requireString(name: string, v: unknown, max = 500) {
    if (typeof v !== 'string' || v.length === 0 || v.length > max)
      throw new CardRequestError('invalid_request', `${name} must be a non-empty string`);
  }

  return {
    faults: faults.control,
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
        if (!/^\d{12,19}$/.test(number) || !luhnValid(number))
          throw new CardRequestError('incorrect_number', 'The card number is incorrect');
        if (number === TEST_CARDS.declined) throw new CardRequestError('card_declined', 'The card was declined');
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
          declinesCharges: number === TEST_CARDS.chargeDeclined,
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
        let declines: boolean;
        if (stored) declines = stored.declinesCharges;
        else if (req.paymentMethodId.startsWith('pm_')) declines = req.paymentMethodId.includes(DECLINING_PAYMENT_METHOD_MARKER);
        else throw new CardRequestError('payment_method_not_found', 'No such payment method on this account');

        const record: ChargeRecord = {
          account: req.account,
          paymentMethodId: req.paymentMethodId,
          amountCents: req.amountCents,
          currency,
          idempotencyKey: req.idempotencyKey,
          payment_intent_id: `pi_${randomAlnum(24)}`,
          status: declines ? 'declined' : 'succeeded',
          created_at: clock.now(),
        };
        charges.push(record);
        byKey.set(key, record);
        return { payment_intent_id: record.payment_intent_id, status: record.status };
      });
    },

    setups(account) {
      return [...setups.values()].filter((s) => s.account === account).map((s) => ({ ...s }));
    },

    savedCards(account) {
      return [...accountCards(account).values()].map((s) => ({ ...s.card, subscriberId: s.subscriberId }));
    },
  };
}
