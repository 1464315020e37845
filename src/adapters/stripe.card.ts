import Stripe from 'stripe';
import { AdapterError, CardRequestError, type CardProcessor, type FaultControl, type PaymentState, type SavedCard } from './types.js';

// The card processor through Stripe's official SDK (docs/integration/card.md). Every request acts on
// the provider's connected account (`stripeAccount`, Stripe Connect). No card number ever passes
// here: the subscriber's browser confirms SetupIntents and PaymentIntents with Stripe.js, and this
// adapter only reads what Stripe then holds (brand, last 4 digits, expiry, status).
//
// A saved card is kept as "<payment method>/<customer>": an off-session charge must name the
// customer the payment method is attached to, and both are ids, not secrets.

export interface StripeCardOptions {
  secretKey: string;
  /** e.g. http://127.0.0.1:12111 (the local stand-in in tests); Stripe's own API when unset. */
  apiUrl?: string;
  timeoutMs?: number;
  /** Retries of a request that failed on the network; charges carry their idempotency key, so a retry never charges twice. */
  maxNetworkRetries?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** Stripe has no fault switch: injecting faults is the simulator's; the control only reports 'none'. */
const noFaults: FaultControl = {
  mode: 'none',
  set() {
    throw new Error('fault injection is the card simulator’s: the Stripe adapter talks to Stripe');
  },
  reset() {},
};

function sdkOptions(o: StripeCardOptions): Stripe.StripeConfig {
  const base: Stripe.StripeConfig = {
    timeout: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxNetworkRetries: o.maxNetworkRetries ?? 1,
    telemetry: false,
  };
  if (!o.apiUrl) return base;
  const u = new URL(o.apiUrl);
  return {
    ...base,
    protocol: u.protocol.replace(':', '') as 'http' | 'https',
    host: u.hostname,
    port: u.port || (u.protocol === 'https:' ? 443 : 80),
  };
}

const splitRef = (ref: string) => {
  const [pm, customer] = ref.split('/');
  return { pm, customer };
};

interface StripeLikeError {
  type?: string;
  code?: string;
  decline_code?: string;
  message?: string;
  raw?: { payment_intent?: { id?: string; status?: string } };
}

/** An SDK error as the adapter contract's: network → unreachable/timeout; Stripe's refusals → CardRequestError. */
function translate(err: unknown, notFound: 'setup_not_found' | 'payment_method_not_found' | 'payment_not_found'): Error {
  const e = err as StripeLikeError;
  switch (e?.type) {
    case 'StripeConnectionError':
      if (/timeout|timed out/i.test(e.message ?? '')) return new AdapterError('card', 'timeout', 'card processor did not answer in time');
      return new AdapterError('card', 'unreachable', 'card processor unreachable');
    case 'StripeCardError':
      return new CardRequestError(e.code === 'incorrect_number' ? 'incorrect_number' : 'card_declined', 'The card was declined');
    case 'StripeIdempotencyError':
      return new CardRequestError('idempotency_key_reused', 'The idempotency key was used for a different request');
    case 'StripeInvalidRequestError':
      if (e.code === 'resource_missing') return new CardRequestError(notFound, 'No such object on this account');
      return new CardRequestError('invalid_request', `card processor refused the request: ${e.code ?? 'invalid_request'}`);
    default:
      // API errors (5xx), rate limits, authentication or permission (a revoked connection): not the card's fault.
      return new AdapterError('card', 'failed', `card processor failed: ${e?.type ?? 'unknown error'}`);
  }
}

async function call<T>(notFound: Parameters<typeof translate>[1], op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw translate(err, notFound);
  }
}

function paymentStatus(s: Stripe.PaymentIntent.Status): PaymentState['status'] {
  return (['succeeded', 'processing', 'requires_payment_method', 'requires_confirmation', 'requires_action', 'canceled'] as const).includes(
    s as never,
  )
    ? (s as PaymentState['status'])
    : 'other';
}

export function createStripeCardProcessor(o: StripeCardOptions): CardProcessor & { readonly stripe: Stripe } {
  const stripe = new Stripe(o.secretKey, sdkOptions(o));

  return {
    stripe,
    faults: noFaults,
    kind: 'stripe',
    takesCardNumbers: false,

    async createSetup({ account, subscriberId, email }) {
      return call('setup_not_found', async () => {
        const customer = await stripe.customers.create({ email, metadata: { subscriber_id: subscriberId } }, { stripeAccount: account });
        const si = await stripe.setupIntents.create(
          { customer: customer.id, usage: 'off_session', metadata: { subscriber_id: subscriberId } },
          { stripeAccount: account },
        );
        if (!si.client_secret) throw new AdapterError('card', 'failed', 'card processor answered a setup without client_secret');
        return { setup_id: si.id, client_secret: si.client_secret };
      });
    },

    async confirmSetup({ account, setupId, cardNumber }) {
      if (cardNumber !== undefined)
        throw new CardRequestError('card_number_refused', 'Card numbers go to Stripe from the card form, never to this server');
      const si = await call('setup_not_found', () =>
        stripe.setupIntents.retrieve(setupId, { expand: ['payment_method'] }, { stripeAccount: account }),
      );
      if (si.status !== 'succeeded') {
        if (si.last_setup_error?.code === 'card_declined') throw new CardRequestError('card_declined', 'The card was declined');
        throw new CardRequestError('setup_incomplete', `The card setup is not confirmed (status ${si.status})`);
      }
      const pm = si.payment_method;
      const customer = typeof si.customer === 'string' ? si.customer : si.customer?.id;
      if (!pm || typeof pm === 'string' || !pm.card || !customer)
        throw new AdapterError('card', 'failed', 'card processor answered a setup without a card payment method');
      const card: SavedCard = {
        payment_method_id: `${pm.id}/${customer}`,
        brand: pm.card.brand,
        last4: pm.card.last4,
        exp_month: pm.card.exp_month,
        exp_year: pm.card.exp_year,
      };
      return card;
    },

    async charge({ account, paymentMethodId, amountCents, currency, idempotencyKey }) {
      const { pm, customer } = splitRef(paymentMethodId);
      if (!pm?.startsWith('pm_') || !customer?.startsWith('cus_'))
        throw new CardRequestError('payment_method_not_found', 'The saved card is not a Stripe payment method');
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: currency.toLowerCase(),
            customer,
            payment_method: pm,
            off_session: true,
            confirm: true,
          },
          { stripeAccount: account, idempotencyKey },
        );
        if (pi.status === 'succeeded') return { payment_intent_id: pi.id, status: 'succeeded' };
        // processing, requires_action: the cardholder (or time) must finish it; the pay link is the way.
        return { payment_intent_id: pi.id, status: pi.status === 'requires_payment_method' ? 'declined' : 'requires_action' };
      } catch (err) {
        const e = err as StripeLikeError;
        const piId = e?.raw?.payment_intent?.id;
        if (e?.type === 'StripeCardError' && piId) {
          const authentication = e.code === 'authentication_required' || e.decline_code === 'authentication_required';
          return { payment_intent_id: piId, status: authentication ? 'requires_action' : 'declined' };
        }
        throw translate(err, 'payment_method_not_found');
      }
    },

    async createPayment({ account, amountCents, currency, invoiceId, description, idempotencyKey }) {
      return call('payment_not_found', async () => {
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: currency.toLowerCase(),
            automatic_payment_methods: { enabled: true },
            description,
            metadata: { invoice_id: invoiceId },
          },
          { stripeAccount: account, idempotencyKey },
        );
        if (!pi.client_secret) throw new AdapterError('card', 'failed', 'card processor answered a payment without client_secret');
        return { payment_intent_id: pi.id, client_secret: pi.client_secret };
      });
    },

    async getPayment({ account, paymentIntentId }) {
      const pi = await call('payment_not_found', () => stripe.paymentIntents.retrieve(paymentIntentId, {}, { stripeAccount: account }));
      return {
        payment_intent_id: pi.id,
        status: paymentStatus(pi.status),
        amount_cents: pi.amount,
        currency: pi.currency.toUpperCase(),
        invoice_id: pi.metadata?.invoice_id ?? null,
      };
    },
  };
}
