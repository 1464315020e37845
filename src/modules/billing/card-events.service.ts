// The card processor's events (POST /webhooks/stripe): signature checked by the SDK, each event id
// applied once (card_processor_events, inserted in the transaction that applies it), and only what
// Stripe reports moves state: payment_intent.succeeded pays the invoice named in its metadata (same
// connected account, amount and currency); payment_intent.payment_failed leaves it open (the pay link
// stays usable); setup_intent.succeeded saves the card of the subscriber whose setup it is, read back
// from the processor. docs/integration/card.md "Events".
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError, CardRequestError, type SavedCard } from '../../adapters/types.js';
import { EventSignatureError, type CardEvent, type StripeEventVerifier } from '../../adapters/stripe.events.js';
import { AppError, serviceUnavailable } from '../../lib/errors.js';
import { findInvoiceWithParties } from '../../documents/index.js';
import { findSubscriberByCardSetup, saveCard } from '../subscribers/index.js';
import { recordCardEvent } from './card-events.repository.js';
import { markInvoicePaid } from './settlement.js';

export interface CardEventsDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  adapters: Adapters;
  log: FastifyBaseLogger;
  /** Null without STRIPE_WEBHOOK_SECRET: the route answers 503. */
  verifyEvent: StripeEventVerifier | null;
}

export type CardEventOutcome = 'applied' | 'duplicate' | 'ignored';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

export function createCardEventsService(deps: CardEventsDeps) {
  const { db, clock, log } = deps;

  async function paymentSucceeded(e: CardEvent): Promise<CardEventOutcome> {
    const o = e.object;
    const invoiceId = str((o.metadata as Record<string, unknown> | undefined)?.invoice_id);
    const inv = invoiceId && /^[0-9a-f-]{36}$/.test(invoiceId) ? await findInvoiceWithParties(db, invoiceId) : undefined;
    // An event of another account, amount or currency never pays this invoice.
    if (
      !inv ||
      inv.card_processor_account !== e.account ||
      o.amount !== inv.total_cents ||
      String(o.currency).toUpperCase() !== inv.currency.trim().toUpperCase()
    ) {
      return record(e, 'ignored');
    }
    return db.transaction().execute(async (trx) => {
      if (!(await recordCardEvent(trx, { id: e.id, type: e.type, account: e.account, now: clock.now() }))) return 'duplicate';
      await markInvoicePaid(trx, deps, inv.id, { method: 'payment_link', paymentIntentId: str(o.id), reference: inv.invoice_number });
      return 'applied';
    });
  }

  async function setupSucceeded(e: CardEvent): Promise<CardEventOutcome> {
    const setupId = str(e.object.id);
    const sub = setupId ? await findSubscriberByCardSetup(db, setupId) : undefined;
    const processor = deps.adapters.cardProcessor;
    if (!sub || !processor || !sub.card_processor_account || sub.card_processor_account !== e.account) return record(e, 'ignored');
    let card: SavedCard;
    try {
      // Read back from the processor: the event's copy is not what is saved.
      card = await processor.confirmSetup({ account: sub.card_processor_account, setupId: setupId! });
    } catch (err) {
      if (err instanceof CardRequestError) return record(e, 'ignored');
      if (err instanceof AdapterError) throw new AppError(502, 'dependency_failed', 'The card processor is unreachable; redeliver later');
      throw err;
    }
    return db.transaction().execute(async (trx) => {
      if (!(await recordCardEvent(trx, { id: e.id, type: e.type, account: e.account, now: clock.now() }))) return 'duplicate';
      await saveCard(trx, sub.id, card, clock.now(), true);
      return 'applied';
    });
  }

  async function record(e: CardEvent, outcome: 'applied' | 'ignored'): Promise<CardEventOutcome> {
    const fresh = await recordCardEvent(db, { id: e.id, type: e.type, account: e.account, now: clock.now() });
    return fresh ? outcome : 'duplicate';
  }

  /** Verifies and applies one delivery; the answer tells Stripe not to redeliver (2xx) or to retry (5xx). */
  async function receive(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; outcome: CardEventOutcome }> {
    // Unsigned is refused first: nobody but Stripe can sign, configured or not.
    if (!signature) throw new AppError(400, 'bad_request', 'The Stripe-Signature header is missing');
    if (!deps.verifyEvent) throw serviceUnavailable('dependency_unconfigured', 'Stripe events are not configured (STRIPE_WEBHOOK_SECRET)');
    let e: CardEvent;
    try {
      e = deps.verifyEvent(rawBody, signature);
    } catch (err) {
      if (err instanceof EventSignatureError) throw new AppError(400, 'bad_request', 'The Stripe-Signature does not verify');
      throw err;
    }
    let outcome: CardEventOutcome;
    if (e.type === 'payment_intent.succeeded') outcome = await paymentSucceeded(e);
    else if (e.type === 'setup_intent.succeeded') outcome = await setupSucceeded(e);
    // payment_failed: the invoice stays open and the pay link usable; the attempt is on record.
    else outcome = await record(e, e.type === 'payment_intent.payment_failed' ? 'applied' : 'ignored');
    log.info({ event_id: e.id, type: e.type, outcome }, 'card processor event');
    return { received: true, outcome };
  }

  return { receive };
}
