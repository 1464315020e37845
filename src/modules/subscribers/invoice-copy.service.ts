import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { renderInvoicePdf } from '../../documents/pdf.js';
import { AppError } from '../../lib/errors.js';
import { maskEmail } from '../../lib/mask.js';
import { invoiceCopyMail, mailBrand } from '../../mail/templates.js';
import { PermanentJobError } from '../../jobs/types.js';
import { recordAudit } from '../audit/audit.repository.js';
import type { Caller } from './subscriber-changes.service.js';
import { customerNotFound } from './subscriber.errors.js';
import * as repo from './profile.repository.js';

/** A mail with an attachment cannot ride `mail.send` (payloads carry no bytes): this job renders the PDF when it runs. */
export const INVOICE_COPY_JOB = 'customers.invoice_copy';

export interface InvoiceCopyDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
}

/**
 * Resends a copy of one of the customer's invoices, as a PDF attachment, to the invoice email
 * (else the contract email). The mail is a durable job enqueued with the audit entry.
 */
export function createInvoiceCopyService({ db, clock, jobs }: InvoiceCopyDeps) {
  async function resend(caller: Caller, customerId: string, invoiceId: string) {
    return db.transaction().execute(async (trx) => {
      const c = await repo.findOwnedCustomer(trx, caller.providerId, customerId);
      if (!c) throw customerNotFound();
      const invoice = await repo.findInvoiceOfCustomer(trx, c.id, invoiceId);
      // Drafts were never issued to the customer: as unknown as another customer's invoice.
      if (!invoice || invoice.status === 'draft' || invoice.provider_id !== caller.providerId) {
        throw new AppError(404, 'not_found', 'No invoice with this id for this customer; take invoice_id from billing-summary or payments');
      }
      const to = c.invoice_email ?? c.email;
      const now = clock.now();
      const job = await jobs.enqueue(trx, {
        kind: INVOICE_COPY_JOB,
        payload: { invoice_id: invoice.id, to },
        providerId: caller.providerId,
        maxAttempts: 10,
      });
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

export interface CustomerJobsDeps {
  jobs: JobQueue;
  db: Db;
  mailer: Mailer;
  config: Config;
}

/** Renders the invoice as it stands when the job runs and mails it with the PDF attached. */
export function registerCustomerJobs({ jobs, db, mailer, config }: CustomerJobsDeps) {
  jobs.register(INVOICE_COPY_JOB, {
    async run(job) {
      const { invoice_id: invoiceId, to } = job.payload as { invoice_id?: string; to?: string };
      if (!invoiceId || !to) throw new PermanentJobError('invoice copy payload lacks invoice_id or to');
      const invoice = await db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirst();
      if (!invoice) throw new PermanentJobError('invoice no longer exists');
      const [customer, provider, lines] = await Promise.all([
        db.selectFrom('subscribers').select(['first_name', 'last_name', 'customer_number', 'invoice_first_name', 'invoice_last_name', 'invoice_street', 'invoice_house_number', 'invoice_postal_code', 'invoice_city', 'invoice_country']).where('id', '=', invoice.subscriber_id).executeTakeFirstOrThrow(),
        repo.findProvider(db, invoice.provider_id),
        db.selectFrom('invoice_lines').select(['description', 'amount_cents']).where('invoice_id', '=', invoiceId).orderBy('position').execute(),
      ]);
      const brand = mailBrand(provider);
      const name = `${customer.invoice_first_name ?? customer.first_name} ${customer.invoice_last_name ?? customer.last_name}`;
      const cityLine = [customer.invoice_postal_code, customer.invoice_city].filter(Boolean).join(' ');
      const streetLine = [customer.invoice_street, customer.invoice_house_number].filter(Boolean).join(' ');
      const pdf = await renderInvoicePdf({
        issuer: { name: brand.name, addressLines: [], supportEmail: brand.supportEmail, supportPhone: brand.supportPhone ?? null },
        customer: { name, customerNumber: customer.customer_number, addressLines: [streetLine, cityLine].filter(Boolean) },
        invoiceNumber: invoice.invoice_number,
        invoiceDate: invoice.invoice_date,
        dueDate: invoice.due_date,
        periodStart: invoice.period_start,
        currency: invoice.currency.trim(),
        lines: lines.length ? lines.map((l) => ({ description: l.description, amountCents: l.amount_cents })) : [{ description: `Invoice ${invoice.invoice_number}`, amountCents: invoice.total_cents }],
        totalCents: invoice.total_cents,
        status: invoice.status as 'draft' | 'open' | 'paid' | 'void',
        paidOn: invoice.paid_at ? new Date(invoice.paid_at).toISOString().slice(0, 10) : null,
      });
      const content = invoiceCopyMail(
        { brand, baseUrl: config.publicBaseUrl },
        {
          firstName: customer.invoice_first_name ?? customer.first_name,
          invoiceNumber: invoice.invoice_number,
          invoiceDate: invoice.invoice_date,
          dueDate: invoice.due_date,
          totalCents: invoice.total_cents,
          currency: invoice.currency,
          status: invoice.status,
          pdf,
        },
      );
      await mailer.send({ to, ...content });
      return { invoice_number: invoice.invoice_number };
    },
  });
}
