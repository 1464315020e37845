// Collecting an invoice: charge the saved card through the provider's card-processor connection,
// or (no card, a declined charge) email a single-use payment link to the pay page.
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { AdapterError, CardRequestError } from '../../adapters/types.js';
import { createLinkToken } from '../auth/index.js';
import { markInvoicePaid } from './settlement.js';
import { mailBrand, paymentLinkMail } from '../../mail/templates.js';
import { findInvoiceWithParties } from '../../documents/index.js';

export interface CollectionDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  mailer: Mailer;
  adapters: Adapters;
  config: Config;
  log: FastifyBaseLogger;
}

export type CollectionOutcome = 'charged' | 'link_sent' | 'already_paid' | 'not_found';

/**
 * Collects one open invoice. A card charge happens outside any transaction (the processor is
 * idempotent on `invoice:<id>:<payment method>`, so a retried job never charges twice); the
 * outcome is written in a short transaction afterwards. An unreachable processor throws the
 * AdapterError (the `billing.collect` job retries); a declined card falls back to the link.
 */
export async function collectInvoice(
  deps: CollectionDeps,
  invoiceId: string,
): Promise<{ outcome: CollectionOutcome; activated?: boolean }> {
  const inv = await findInvoiceWithParties(deps.db, invoiceId);
  if (!inv) return { outcome: 'not_found' };
  if (inv.status !== 'open') return { outcome: 'already_paid' };

  const processor = deps.adapters.cardProcessor;
  if (processor && inv.card_payment_method_id && inv.card_processor_account && inv.total_cents > 0) {
    try {
      const r = await processor.charge({
        account: inv.card_processor_account,
        paymentMethodId: inv.card_payment_method_id,
        amountCents: inv.total_cents,
        currency: inv.currency.trim(),
        idempotencyKey: `invoice:${inv.id}:${inv.card_payment_method_id}`,
      });
      if (r.status === 'succeeded') {
        const settled = await deps.db
          .transaction()
          .execute((trx) =>
            markInvoicePaid(trx, deps, inv.id, { method: 'card', paymentIntentId: r.payment_intent_id, reference: inv.invoice_number }),
          );
        return { outcome: settled.paid ? 'charged' : 'already_paid', activated: settled.activated };
      }
      // declined, or requires_action (3-D Secure: the cardholder must be present): the pay link is the way.
      deps.log.info({ invoice_id: inv.id, status: r.status }, 'saved card not charged; sending a payment link instead');
    } catch (err) {
      if (!(err instanceof CardRequestError)) throw err;
      deps.log.info({ invoice_id: inv.id, code: err.code }, 'saved card refused; sending a payment link instead');
    }
  }

  await deps.db.transaction().execute(async (trx) => {
    const { token, expiresAt } = await createLinkToken(trx, deps.clock, {
      purpose: 'payment',
      subscriberId: inv.subscriber_id,
      referenceId: inv.id,
    });
    const content = paymentLinkMail(
      {
        brand: mailBrand({ name: inv.provider_name, support_email: inv.support_email, branding: inv.branding }),
        baseUrl: deps.config.publicBaseUrl,
      },
      {
        firstName: inv.first_name,
        token,
        invoiceNumber: inv.invoice_number,
        totalCents: inv.total_cents,
        currency: inv.currency,
        dueDate: inv.due_date,
        expiresAt,
        first: inv.kind === 'first',
      },
    );
    await deps.mailer.enqueue(trx, { to: inv.invoice_email ?? inv.email, ...content });
  });
  return { outcome: 'link_sent' };
}

export const isTransient = (err: unknown): boolean => err instanceof AdapterError && !(err instanceof CardRequestError);
