// Reads what the invoice and credit-note PDFs print. Executor first, like every repository.
import type { Executor } from '../db/executor.js';

/**
 * An invoice with its subscriber and provider: what its PDF prints, and what collecting it needs
 * (the saved card and the provider's card-processor account to charge, the address to mail a
 * payment link to, the pay page behind that link). One read for every path that shows or collects an invoice.
 */
export function findInvoiceWithParties(db: Executor, invoiceId: string) {
  return db
    .selectFrom('invoices as i')
    .innerJoin('subscribers as sb', 'sb.id', 'i.subscriber_id')
    .innerJoin('providers as p', 'p.id', 'i.provider_id')
    .selectAll('i')
    .select([
      ...SUBSCRIBER_COLUMNS,
      'sb.card_payment_method_id',
      'p.name as provider_name',
      'p.support_email',
      'p.branding',
      'p.card_processor_account',
    ])
    .where('i.id', '=', invoiceId)
    .executeTakeFirst();
}

export type InvoiceWithParties = NonNullable<Awaited<ReturnType<typeof findInvoiceWithParties>>>;

export function listInvoiceLines(db: Executor, invoiceId: string) {
  return db
    .selectFrom('invoice_lines')
    .select(['description', 'amount_cents'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('position')
    .execute();
}

export function findSubscriberForDocument(db: Executor, subscriberId: string) {
  return db
    .selectFrom('subscribers as sb')
    .innerJoin('providers as p', 'p.id', 'sb.provider_id')
    .select([...SUBSCRIBER_COLUMNS, 'sb.provider_id', 'p.name as provider_name', 'p.support_email', 'p.branding'])
    .where('sb.id', '=', subscriberId)
    .executeTakeFirst();
}

export function findInvoiceNumber(db: Executor, invoiceId: string) {
  return db.selectFrom('invoices').select('invoice_number').where('id', '=', invoiceId).executeTakeFirst();
}

export function findCreditNoteLinks(db: Executor, creditNoteId: string) {
  return db.selectFrom('credit_notes').select(['applied_invoice_id', 'provider_id']).where('id', '=', creditNoteId).executeTakeFirst();
}

const SUBSCRIBER_COLUMNS = [
  'sb.email',
  'sb.first_name',
  'sb.last_name',
  'sb.customer_number',
  'sb.invoice_first_name',
  'sb.invoice_last_name',
  'sb.invoice_email',
  'sb.invoice_street',
  'sb.invoice_house_number',
  'sb.invoice_postal_code',
  'sb.invoice_city',
  'sb.invoice_country',
] as const;
