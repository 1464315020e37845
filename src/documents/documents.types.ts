// Plain data the PDF renderers take: no database rows, no ids the reader does not need.

export interface DocumentIssuer {
  /** The provider's name as printed (branding display name). */
  name: string;
  /** Postal address lines; may be empty (the schema keeps no provider address yet). */
  addressLines: string[];
  supportEmail?: string | null;
  supportPhone?: string | null;
}

export interface DocumentRecipient {
  name: string;
  /** Four letters, dash, four digits; null for accounts linked before the rollout. */
  customerNumber: string | null;
  addressLines: string[];
}

export interface DocumentLine {
  description: string;
  /** Signed integer cents (a credit applied is negative). */
  amountCents: number;
}

export interface InvoicePdfInput {
  issuer: DocumentIssuer;
  customer: DocumentRecipient;
  invoiceNumber: string;
  /** YYYY-MM-DD */
  invoiceDate: string;
  /** YYYY-MM-DD */
  dueDate: string;
  /** The calendar month billed as its first day (YYYY-MM-DD), when the invoice is a monthly one. */
  periodStart?: string | null;
  currency: string;
  lines: DocumentLine[];
  /** Defaults to the sum of the lines. */
  totalCents?: number;
  status?: 'draft' | 'open' | 'paid' | 'void';
  /** YYYY-MM-DD, printed when status is paid. */
  paidOn?: string | null;
}

export interface CreditNotePdfInput {
  issuer: DocumentIssuer;
  customer: DocumentRecipient;
  creditNoteNumber: string;
  /** YYYY-MM-DD */
  issueDate: string;
  currency: string;
  reason: string;
  /** Defaults to one line: the reason over the total. */
  lines?: DocumentLine[];
  /** The gross amount credited (positive cents). Defaults to the sum of the lines. */
  totalCents?: number;
  state?: 'draft' | 'open' | 'refunded' | 'paid_out' | 'applied' | 'archived' | 'voided';
  /** The invoice the note was applied against or refers to. */
  invoiceNumber?: string | null;
}
