// The small payment page behind an emailed payment link. GET shows the invoice and the processor's
// card form for a payment created for it (Stripe's Payment Element; with the simulator, its test form,
// which posts to the simulator's own server); the browser confirms the payment with the processor and
// comes back to /pay/<token>/complete, where the invoice is marked paid only when the processor says
// the payment succeeded. No card number reaches this server, except on the legacy sandbox form of the
// embedded simulator (never built in production). docs/integration/card.md
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Config } from '../../config.js';
import { AdapterError, CardRequestError } from '../../adapters/types.js';
import { consumeLinkToken, findLinkToken, releaseLinkToken } from '../auth/index.js';
import { saveCard } from '../subscribers/index.js';
import { formatCents } from '../../lib/money.js';
import { markInvoicePaid } from './settlement.js';
import { findInvoiceWithParties, type InvoiceWithParties } from '../../documents/index.js';

export interface PayPageDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  adapters: Adapters;
  log: FastifyBaseLogger;
  config: Pick<Config, 'publicBaseUrl' | 'STRIPE_PUBLISHABLE_KEY' | 'CARD_SIMULATOR_URL'>;
}

/** How the page takes the card: the processor's own form, which the browser submits to the processor. */
export type PayCheckout =
  | { kind: 'stripe'; publishableKey: string; account: string; clientSecret: string; returnUrl: string }
  | { kind: 'simulator'; confirmUrl: string; clientSecret: string; returnUrl: string }
  /** The embedded simulator without its own server: the sandbox form posts the test card here (never in production). */
  | { kind: 'legacy' };

export interface PayInvoice {
  invoiceNumber: string;
  amount: string;
  currency: string;
  dueDate: string;
  providerName: string;
  first: boolean;
}

export type PayViewState = 'payable' | 'paid' | 'in_progress' | 'invalid' | 'no_card_processor' | 'unavailable';
export type PayResultState =
  | 'paid'
  | 'already_paid'
  | 'declined'
  | 'incorrect_number'
  | 'unavailable'
  | 'no_card_processor'
  | 'in_progress'
  | 'invalid'
  | 'card_number_refused';

const NO_CARDS = (provider: string) => `${provider} does not take card payments online yet; please pay by bank transfer.`;
const UNAVAILABLE = 'Card payments are unavailable right now; please try again in a few minutes.';

export function createPayPageService(deps: PayPageDeps) {
  const { db, clock, log } = deps;

  const present = (inv: InvoiceWithParties): PayInvoice => ({
    invoiceNumber: inv.invoice_number,
    amount: formatCents(inv.total_cents),
    currency: inv.currency.trim(),
    dueDate: inv.due_date,
    providerName: inv.provider_name,
    first: inv.kind === 'first',
  });

  /** Where the simulator's test form posts: CARD_SIMULATOR_URL, else the simulator server's /card; undefined: nowhere (legacy form). */
  function simulatorUrlOf(): string | undefined {
    const processor = deps.adapters.cardProcessor;
    if (processor?.kind !== 'simulator') return undefined;
    return deps.config.CARD_SIMULATOR_URL ?? processor.browserUrl ?? undefined;
  }

  const returnUrl = (token: string) => `${deps.config.publicBaseUrl}/pay/${encodeURIComponent(token)}/complete`;

  /** The processor's form for this link's invoice: one payment per link and amount (idempotent), or null (no processor). */
  async function checkoutFor(token: string, linkId: string, inv: InvoiceWithParties): Promise<PayCheckout | 'none' | 'unavailable'> {
    const processor = deps.adapters.cardProcessor;
    const account = inv.card_processor_account;
    if (!processor || !account) return 'none';
    const simulatorUrl = simulatorUrlOf();
    if (processor.kind === 'simulator' && !simulatorUrl) return { kind: 'legacy' };
    if (processor.kind === 'stripe' && !deps.config.STRIPE_PUBLISHABLE_KEY) return 'none';
    let payment;
    try {
      payment = await processor.createPayment({
        account,
        amountCents: inv.total_cents,
        currency: inv.currency.trim(),
        invoiceId: inv.id,
        description: `Invoice ${inv.invoice_number}`,
        idempotencyKey: `pay-link:${linkId}:${inv.total_cents}`,
      });
    } catch (err) {
      if (!(err instanceof AdapterError)) throw err;
      log.warn({ invoice_id: inv.id, err: err.message }, 'pay page: card processor unavailable');
      return 'unavailable';
    }
    if (processor.kind === 'stripe')
      return {
        kind: 'stripe',
        publishableKey: deps.config.STRIPE_PUBLISHABLE_KEY!,
        account,
        clientSecret: payment.client_secret,
        returnUrl: returnUrl(token),
      };
    const base = simulatorUrl!.replace(/\/$/, '');
    return {
      kind: 'simulator',
      confirmUrl: `${base}/payments/${encodeURIComponent(payment.payment_intent_id)}/confirm`,
      clientSecret: payment.client_secret,
      returnUrl: returnUrl(token),
    };
  }

  /** What the link shows now, with the processor's card form when payable; never consumes it. */
  async function view(token: string): Promise<{ state: PayViewState; invoice?: PayInvoice; checkout?: PayCheckout; message?: string }> {
    const row = await findLinkToken(db, token, ['payment']);
    if (!row?.reference_id) return { state: 'invalid' };
    const inv = await findInvoiceWithParties(db, row.reference_id);
    if (!inv) return { state: 'invalid' };
    if (inv.status === 'paid') return { state: 'paid', invoice: present(inv) };
    if (inv.status !== 'open' || row.expires_at <= clock.now()) return { state: 'invalid' };
    if (row.used_at) return { state: 'in_progress', invoice: present(inv) };
    const checkout = await checkoutFor(token, row.id, inv);
    if (checkout === 'none') return { state: 'no_card_processor', invoice: present(inv), message: NO_CARDS(inv.provider_name) };
    if (checkout === 'unavailable') return { state: 'unavailable', invoice: present(inv), message: UNAVAILABLE };
    return { state: 'payable', invoice: present(inv), checkout };
  }

  /**
   * The browser is back from the processor (its return_url): the invoice is paid only if the processor
   * reports this payment, made for this invoice and amount, as succeeded. The payment's id in the URL is
   * no proof of anything by itself.
   */
  async function complete(
    token: string,
    paymentIntentId: string,
  ): Promise<{ state: PayResultState; invoice?: PayInvoice; message: string }> {
    const row = await findLinkToken(db, token, ['payment']);
    const inv = row?.reference_id ? await findInvoiceWithParties(db, row.reference_id) : undefined;
    if (!row || !inv) return { state: 'invalid', message: 'This payment link is invalid or has expired.' };
    if (inv.status === 'paid') return { state: 'already_paid', invoice: present(inv), message: 'This invoice is already paid.' };
    if (inv.status !== 'open') return { state: 'invalid', message: 'This payment link is invalid or has expired.' };
    const processor = deps.adapters.cardProcessor;
    const account = inv.card_processor_account;
    if (!processor || !account) return { state: 'no_card_processor', invoice: present(inv), message: NO_CARDS(inv.provider_name) };
    let payment;
    try {
      payment = await processor.getPayment({ account, paymentIntentId });
    } catch (err) {
      if (err instanceof CardRequestError) return { state: 'invalid', message: 'This payment is not known for this invoice.' };
      if (err instanceof AdapterError) return { state: 'unavailable', invoice: present(inv), message: UNAVAILABLE };
      throw err;
    }
    if (payment.invoice_id !== inv.id || payment.amount_cents !== inv.total_cents || payment.currency !== inv.currency.trim().toUpperCase())
      return { state: 'invalid', message: 'This payment is not known for this invoice.' };
    if (payment.status === 'processing')
      return { state: 'in_progress', invoice: present(inv), message: 'The payment is being processed; reload this page in a moment.' };
    if (payment.status !== 'succeeded')
      return { state: 'declined', invoice: present(inv), message: 'The payment was not completed. Try again or use another card.' };
    await settle(inv.id, payment.payment_intent_id, inv.invoice_number);
    await consumeLinkToken(db, clock, token, ['payment']);
    return { state: 'paid', invoice: present(inv), message: 'Thank you: the invoice is paid.' };
  }

  /** Marks the invoice paid for a payment the processor reported as succeeded (page return or event). */
  async function settle(invoiceId: string, paymentIntentId: string, reference: string) {
    return db.transaction().execute((trx) => markInvoicePaid(trx, deps, invoiceId, { method: 'payment_link', paymentIntentId, reference }));
  }

  /**
   * Pays with a card. The link is claimed first (single use, atomically), so two submissions
   * cannot both charge; a declined or failed attempt gives the link back for another try.
   */
  async function pay(
    token: string,
    input: { cardNumber: string; saveCard: boolean },
  ): Promise<{ state: PayResultState; invoice?: PayInvoice; message: string }> {
    const processor = deps.adapters.cardProcessor;
    // Card numbers go to the processor's form; only the embedded simulator (never in production) takes one here.
    if (processor && !processor.takesCardNumbers)
      return { state: 'card_number_refused', message: 'Card numbers are never sent to this server; pay with the card form on this page.' };
    const claimed = await consumeLinkToken(db, clock, token, ['payment']);
    if (!claimed?.reference_id) {
      const v = await view(token);
      if (v.state === 'paid') return { state: 'already_paid', invoice: v.invoice, message: 'This invoice is already paid.' };
      if (v.state === 'in_progress')
        return {
          state: 'in_progress',
          invoice: v.invoice,
          message: 'A payment with this link is being processed; reload this page in a moment.',
        };
      return { state: 'invalid', message: 'This payment link is invalid or has expired.' };
    }
    const release = () => releaseLinkToken(db, claimed.id);
    const inv = await findInvoiceWithParties(db, claimed.reference_id);
    if (!inv || inv.status !== 'open') {
      if (inv?.status === 'paid') return { state: 'already_paid', invoice: present(inv), message: 'This invoice is already paid.' };
      return { state: 'invalid', message: 'This payment link is invalid or has expired.' };
    }
    const account = inv.card_processor_account;
    if (!account || !processor) {
      await release();
      return { state: 'no_card_processor', invoice: present(inv), message: NO_CARDS(inv.provider_name) };
    }
    let card;
    let charge;
    try {
      const setup = await processor.createSetup({ account, subscriberId: inv.subscriber_id, email: inv.email });
      card = await processor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: input.cardNumber });
      charge = await processor.charge({
        account,
        paymentMethodId: card.payment_method_id,
        amountCents: inv.total_cents,
        currency: inv.currency.trim(),
        idempotencyKey: `invoice:${inv.id}:${card.payment_method_id}`,
      });
    } catch (err) {
      await release();
      if (err instanceof CardRequestError) {
        if (err.code === 'incorrect_number')
          return { state: 'incorrect_number', invoice: present(inv), message: 'The card number is incorrect.' };
        return { state: 'declined', invoice: present(inv), message: 'The card was declined. Try another card.' };
      }
      if (err instanceof AdapterError) {
        log.warn({ invoice_id: inv.id, err: err.message }, 'pay page: card processor unavailable');
        return { state: 'unavailable', invoice: present(inv), message: UNAVAILABLE };
      }
      throw err;
    }
    if (charge.status !== 'succeeded') {
      await release();
      return { state: 'declined', invoice: present(inv), message: 'The card was declined. Try another card.' };
    }
    await db.transaction().execute(async (trx) => {
      await markInvoicePaid(trx, deps, inv.id, {
        method: 'payment_link',
        paymentIntentId: charge.payment_intent_id,
        reference: inv.invoice_number,
      });
      if (input.saveCard) {
        await saveCard(trx, inv.subscriber_id, card, clock.now());
      }
    });
    return { state: 'paid', invoice: present(inv), message: 'Thank you: the invoice is paid.' };
  }

  /** Which processor's form the pay page embeds (its Content-Security-Policy depends on it). */
  const processorKind = () => deps.adapters.cardProcessor?.kind ?? null;

  return { view, pay, complete, settle, processorKind, simulatorUrl: simulatorUrlOf };
}
