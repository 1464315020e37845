// The subscriber's saved card, through the provider's own card-processor connection
// (providers.card_processor_account). Only brand, last4 and expiry are kept and shown; the
// processor's ids (setup, payment method) stay internal.
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError, CardRequestError } from '../../adapters/types.js';
import { bytesEqual, sha256 } from '../../lib/crypto.js';
import { AppError, dependencyFailed } from '../../lib/errors.js';
import { findCardProcessorAccount } from '../providers/index.js';
import * as repo from './account.repository.js';
import type { SubscriberService } from './account.service.js';

export interface PaymentMethodDeps {
  db: Db;
  clock: Clock;
  adapters: Adapters;
  log: FastifyBaseLogger;
  subscribers: SubscriberService;
}

const NO_CARD_PROCESSOR = 'Your provider has no card-processor connection; card payments are not available';

export interface CardSummary {
  brand: string;
  last4: string;
  exp_month: number | null;
  exp_year: number | null;
}

function cardOf(s: repo.SubscriberRow): CardSummary | null {
  if (!s.card_payment_method_id || !s.card_brand || !s.card_last4) return null;
  return { brand: s.card_brand, last4: s.card_last4, exp_month: s.card_exp_month, exp_year: s.card_exp_year };
}

const unreachable = () => dependencyFailed('The card processor is unreachable right now; try again in a few minutes');

export function createPaymentMethodService(deps: PaymentMethodDeps) {
  const { db, clock, adapters } = deps;
  const { subscribers } = deps;

  async function connected(userId: string) {
    const s = await subscribers.requireSubscriber(userId);
    const account = await findCardProcessorAccount(db, s.provider_id);
    // No processor on this server (production without Stripe) counts as no connection: never a simulator.
    const processor = adapters.cardProcessor;
    if (!account || !processor) throw new AppError(409, 'dependency_unconfigured', NO_CARD_PROCESSOR);
    return { subscriber: s, account, processor };
  }

  async function get(userId: string) {
    const { subscriber } = await connected(userId);
    return { payment_method: cardOf(subscriber) };
  }

  async function setup(userId: string) {
    const { subscriber, account, processor } = await connected(userId);
    let r;
    try {
      r = await processor.createSetup({ account, subscriberId: subscriber.id, email: subscriber.email });
    } catch (err) {
      if (err instanceof AdapterError) throw unreachable();
      throw err;
    }
    await repo.startCardSetup(db, subscriber.id, r.setup_id, sha256(r.client_secret), clock.now());
    return { client_secret: r.client_secret, status: 'requires_confirmation' as const };
  }

  async function confirm(userId: string, input: { client_secret: string; card_number?: string }) {
    const { subscriber, account, processor } = await connected(userId);
    // Card numbers go to the processor's card form; only the embedded simulator (never in production) takes one here.
    if (input.card_number !== undefined && !processor.takesCardNumbers) {
      throw new AppError(
        422,
        'unprocessable',
        "card_number: card numbers are never sent to this server; confirm the setup with the card processor's form, then call confirm without one",
      );
    }
    const stored = subscriber.card_setup_secret_hash;
    if (!subscriber.card_setup_id || !stored || !bytesEqual(sha256(input.client_secret), stored)) {
      throw new AppError(
        409,
        'conflict',
        'No card setup with this client_secret is in progress; start one with POST /subscriber/me/payment-method/setup',
      );
    }
    let card;
    try {
      card = await processor.confirmSetup({ account, setupId: subscriber.card_setup_id, cardNumber: input.card_number });
    } catch (err) {
      if (err instanceof CardRequestError) {
        if (err.code === 'card_declined') throw new AppError(402, 'payment_declined', 'The card was declined; nothing was saved');
        if (err.code === 'incorrect_number') throw new AppError(422, 'unprocessable', 'card_number: the card number is incorrect');
        if (err.code === 'setup_not_found') throw new AppError(409, 'conflict', 'The card setup is no longer valid; start a new one');
        if (err.code === 'setup_incomplete') {
          throw new AppError(
            409,
            'conflict',
            "The card setup is not confirmed with the card processor yet: confirm it in the processor's card form (client_secret), then call confirm again",
          );
        }
        throw new AppError(422, 'unprocessable', err.message);
      }
      if (err instanceof AdapterError) throw unreachable();
      throw err;
    }
    await repo.saveCard(db, subscriber.id, card, clock.now(), true);
    return { payment_method: { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year } };
  }

  return { get, setup, confirm };
}
