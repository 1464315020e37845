// Builds the PDF inputs from the database (invoices) and from the billing system's credit notes,
// and renders them. The renderers themselves (pdf.ts) stay pure.
import type { BillingCreditNote } from '../adapters/types.js';
import type { Executor } from '../db/executor.js';
import { isUuid } from '../lib/ids.js';
import type { CreditNotePdfInput, DocumentIssuer, DocumentRecipient, InvoicePdfInput } from './documents.types.js';
import {
  findCreditNoteLinks,
  findInvoiceWithParties,
  findInvoiceNumber,
  findSubscriberForDocument,
  listInvoiceLines,
} from './documents.repository.js';
import { renderCreditNotePdf, renderInvoicePdf } from './pdf.js';

interface ProviderLike {
  provider_name: string;
  support_email: string;
  branding: unknown;
}

interface SubscriberLike {
  first_name: string;
  last_name: string;
  customer_number: string | null;
  invoice_first_name: string | null;
  invoice_last_name: string | null;
  invoice_street: string | null;
  invoice_house_number: string | null;
  invoice_postal_code: string | null;
  invoice_city: string | null;
  invoice_country: string | null;
}

/**
 * The issuer block: branding.display_name (else the provider name), branding.address_lines when
 * the provider configured them (the schema has no provider address columns), support contact.
 */
function issuerOf(p: ProviderLike): DocumentIssuer {
  const b = (p.branding && typeof p.branding === 'object' ? p.branding : {}) as Record<string, unknown>;
  const name = typeof b.display_name === 'string' && b.display_name.trim() ? b.display_name.trim() : p.provider_name;
  const lines = Array.isArray(b.address_lines) ? b.address_lines.filter((l): l is string => typeof l === 'string' && l.trim() !== '') : [];
  return {
    name,
    addressLines: lines,
    supportEmail: p.support_email,
    supportPhone: typeof b.support_phone === 'string' ? b.support_phone : null,
  };
}

/** The invoice addressee: the invoice contact and address when set, else the contract holder. */
function recipientOf(s: SubscriberLike): DocumentRecipient {
  const name = [s.invoice_first_name ?? s.first_name, s.invoice_last_name ?? s.last_name].filter(Boolean).join(' ');
  const street = [s.invoice_street, s.invoice_house_number].filter(Boolean).join(' ');
  const city = [s.invoice_postal_code, s.invoice_city].filter(Boolean).join(' ');
  return { name, customerNumber: s.customer_number, addressLines: [street, city, s.invoice_country?.trim() ?? ''].filter((l) => l !== '') };
}

/** Beside what the PDF prints: who the invoice belongs to and where a copy goes. */
export interface InvoiceExtras {
  providerId: string;
  /** What the covering mail's brand is made of (mailBrand). */
  provider: { name: string; support_email: string; branding: unknown };
  subscriberId: string;
  /** The invoice email when set, else the contract email. */
  to: string;
  firstName: string;
}

const isoDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** Everything the invoice PDF prints, or null for an unknown invoice. */
export async function loadInvoicePdfInput(db: Executor, invoiceId: string): Promise<(InvoicePdfInput & InvoiceExtras) | null> {
  if (!isUuid(invoiceId)) return null;
  const inv = await findInvoiceWithParties(db, invoiceId);
  if (!inv) return null;
  const lines = await listInvoiceLines(db, invoiceId);
  return {
    providerId: inv.provider_id,
    provider: { name: inv.provider_name, support_email: inv.support_email, branding: inv.branding },
    subscriberId: inv.subscriber_id,
    to: inv.invoice_email ?? inv.email,
    firstName: inv.invoice_first_name ?? inv.first_name,
    issuer: issuerOf(inv),
    customer: recipientOf(inv),
    invoiceNumber: inv.invoice_number,
    invoiceDate: inv.invoice_date,
    dueDate: inv.due_date,
    periodStart: inv.period_start,
    currency: inv.currency.trim(),
    lines: lines.map((l) => ({ description: l.description, amountCents: l.amount_cents })),
    totalCents: inv.total_cents,
    status: inv.status as InvoicePdfInput['status'],
    paidOn: isoDay(inv.paid_at),
  };
}

/** The invoice PDF of an invoice row, or null for an unknown invoice. */
export async function invoicePdf(db: Executor, invoiceId: string): Promise<Buffer | null> {
  const input = await loadInvoicePdfInput(db, invoiceId);
  return input ? renderInvoicePdf(input) : null;
}

/**
 * Everything the credit-note PDF prints, from the note as the billing system answered it
 * (billingSystem.getCreditNote) plus the subscriber and provider; null if the subscriber is gone.
 */
async function loadCreditNotePdfInput(db: Executor, note: BillingCreditNote): Promise<CreditNotePdfInput | null> {
  const sb = await findSubscriberForDocument(db, note.subscriber_id);
  if (!sb) return null;
  const links = await findCreditNoteLinks(db, note.id);
  const invoice = links?.applied_invoice_id ? await findInvoiceNumber(db, links.applied_invoice_id) : undefined;
  return {
    issuer: issuerOf(sb),
    customer: recipientOf(sb),
    creditNoteNumber: note.number,
    issueDate: note.issued_at.toISOString().slice(0, 10),
    currency: note.currency,
    reason: note.reason,
    totalCents: note.amount_cents,
    state: note.state,
    invoiceNumber: invoice?.invoice_number ?? null,
  };
}

/** The credit-note PDF, or null if the subscriber is gone. */
export async function creditNotePdf(db: Executor, note: BillingCreditNote): Promise<Buffer | null> {
  const input = await loadCreditNotePdfInput(db, note);
  return input ? renderCreditNotePdf(input) : null;
}
