import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { maskEmail } from '../../lib/mask.js';
import { isoDate } from '../../lib/dates.js';
import { enqueueInvoiceCopy } from '../../mail/invoice-copy.js';
import { recordAudit } from '../audit/index.js';
import type { Caller } from './subscriber-changes.service.js';
import { subscriberNotFound } from './subscriber.errors.js';
import * as repo from './profile.repository.js';

export interface InvoiceCopyDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
}

/**
 * Resends a copy of one of the customer's invoices, as a PDF attachment, to the invoice email
 * (else the contract email). The mail is a durable job (mail/invoice-copy.ts) enqueued with the audit entry.
 */
export function createInvoiceCopyService({ db, clock, jobs }: InvoiceCopyDeps) {
  async function resend(caller: Caller, customerId: string, invoiceId: string) {
    return db.transaction().execute(async (trx) => {
      const c = await repo.findOwnedSubscriber(trx, caller.providerId, customerId);
      if (!c) throw subscriberNotFound();
      const invoice = await repo.findInvoiceOfSubscriber(trx, c.id, invoiceId);
      // Drafts were never issued to the customer: as unknown as another customer's invoice.
      if (!invoice || invoice.status === 'draft' || invoice.provider_id !== caller.providerId) {
        throw new AppError(404, 'not_found', 'No invoice with this id for this customer; take invoice_id from billing-summary or payments');
      }
      const to = c.invoice_email ?? c.email;
      const now = clock.now();
      const job = await enqueueInvoiceCopy(trx, jobs, { invoiceId: invoice.id, to, providerId: caller.providerId, today: isoDate(now) });
      await recordAudit(trx, {
        ...caller,
        action: 'agent.invoice.resend',
        entityType: 'invoice',
        entityId: invoice.id,
        after: { invoice_number: invoice.invoice_number, customer_id: c.id, job_id: job.id },
        at: now,
      });
      return {
        sent: true as const,
        invoice_id: invoice.id,
        invoice_number: invoice.invoice_number,
        destination_masked: maskEmail(to) ?? '***',
      };
    });
  }
  return { resend };
}
