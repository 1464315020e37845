// The small payment page behind an emailed payment link: GET shows the invoice, POST pays it by
// card through the provider's card-processor connection and marks the invoice paid.
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError, CardRequestError } from '../../adapters/types.js';
import { consumeLinkToken, findLinkToken } from '../auth/link-tokens.js';
import { releaseLinkToken } from '../auth/link-tokens.repository.js';
import { saveCard } from '../subscribers/account.repository.js';
import { formatCents } from '../../lib/money.js';
import { markInvoicePaid } from './settlement.js';
import { findInvoiceWithParties, type InvoiceWithParties } from '../../documents/index.js';

export interface PayPageDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  adapters: Adapters;
  log: FastifyBaseLogger;
}

export interface PayInvoice {
  invoiceNumber: string;
  amount: string;
  currency: string;
  dueDate: string;
  providerName: string;
  first: boolean;
}

export type PayViewState = 'payable' | 'paid' | 'in_progress' | 'invalid';
export type PayResultState =
  'paid' | 'already_paid' | 'declined' | 'incorrect_number' | 'unavailable' | 'no_card_processor' | 'in_progress' | 'invalid';

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

  /** What the link shows now; never consumes it. */
  async function view(token: string): Promise<{ state: PayViewState; invoice?: PayInvoice }> {
    const row = await findLinkToken(db, token, ['payment']);
    if (!row?.reference_id) return { state: 'invalid' };
    const inv = await findInvoiceWithParties(db, row.reference_id);
    if (!inv) return { state: 'invalid' };
    if (inv.status === 'paid') return { state: 'paid', invoice: present(inv) };
    if (inv.status !== 'open' || row.expires_at <= clock.now()) return { state: 'invalid' };
    if (row.used_at) return { state: 'in_progress', invoice: present(inv) };
    return { state: 'payable', invoice: present(inv) };
  }

  /**
   * Pays with a card. The link is claimed first (single use, atomically), so two submissions
   * cannot both charge; a declined or failed attempt gives the link back for another try.
   */
  async function pay(
    token: string,
    input: { cardNumber: string; saveCard: boolean },
  ): Promise<{ state: PayResultState; invoice?: PayInvoice; message: string }> {
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
    if (!account) {
      await release();
      return {
        state: 'no_card_processor',
        invoice: present(inv),
        message: `${inv.provider_name} does not take card payments online yet; please pay by bank transfer.`,
      };
    }
    let card;
    let charge;
    try {
      const setup = await deps.adapters.cardProcessor.createSetup({ account, subscriberId: inv.subscriber_id, email: inv.email });
      card = await deps.adapters.cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: input.cardNumber });
      charge = await deps.adapters.cardProcessor.charge({
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
        return {
          state: 'unavailable',
          invoice: present(inv),
          message: 'Card payments are unavailable right now; please try again in a few minutes.',
        };
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

  return { view, pay };
}
