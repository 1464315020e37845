// A copy of an invoice, PDF attached. The job carries only the invoice id (a PDF does not belong
// in a job payload): the worker renders the PDF and sends it, so a resend enqueued in the caller's
// transaction is as durable as any other mail.
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { loadInvoicePdfInput } from '../documents/documents.service.js';
import { renderInvoicePdf } from '../documents/pdf.js';
import type { JobQueue } from '../jobs/types.js';
import type { Executor } from '../db/executor.js';
import { invoiceCopyMail, mailBrand } from './templates.js';
import type { Mailer } from './types.js';

export const INVOICE_COPY_JOB = 'mail.invoice_copy';

export interface InvoiceCopyRequest {
  invoiceId: string;
  /** Default: the subscriber's invoice email, else the contract email. */
  to?: string;
  /** The day the copy was asked for (YYYY-MM-DD): an open invoice due before it is overdue, not "pay by" a past date. */
  today?: string;
}

/** Enqueues the copy in the caller's transaction; sent by the worker (tests: jobs.drain()). */
export async function enqueueInvoiceCopy(
  executor: Executor,
  jobs: Pick<JobQueue, 'enqueue'>,
  req: InvoiceCopyRequest & { providerId?: string | null },
) {
  return jobs.enqueue(executor, {
    kind: INVOICE_COPY_JOB,
    payload: { invoice_id: req.invoiceId, ...(req.to ? { to: req.to } : {}), ...(req.today ? { today: req.today } : {}) },
    providerId: req.providerId ?? null,
    maxAttempts: 10,
  });
}

/** Renders and sends the copy now. Returns the recipient, or null for an unknown invoice. */
export async function sendInvoiceCopy(
  deps: { db: Db; mailer: Pick<Mailer, 'send'>; config: Pick<Config, 'publicBaseUrl'> },
  req: InvoiceCopyRequest,
): Promise<{ to: string } | null> {
  const input = await loadInvoicePdfInput(deps.db, req.invoiceId);
  if (!input) return null;
  const pdf = await renderInvoicePdf(input);
  const to = req.to ?? input.to;
  const brand = mailBrand(input.provider);
  const content = invoiceCopyMail(
    { brand, baseUrl: deps.config.publicBaseUrl },
    {
      firstName: input.firstName,
      invoiceNumber: input.invoiceNumber,
      invoiceDate: input.invoiceDate,
      dueDate: input.dueDate,
      totalCents: input.totalCents ?? 0,
      currency: input.currency,
      status: input.status,
      today: req.today,
      pdf,
    },
  );
  await deps.mailer.send({ to, ...content });
  return { to };
}
