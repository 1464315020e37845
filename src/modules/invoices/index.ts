// The invoices owner: invoices, their lines, billing documents' reads, credit notes and pending
// adjustments; the billing calendar (UTC months, billing day) and document numbers. The writes
// other modules run inside their transactions. Other modules import only this file.
export * from './billing.calendar.js';
export { MIN_CORRECTION_CENTS } from './corrections.js';
export { creditNoteNumber, externalDocumentId, invoiceNumber } from './invoice-numbers.js';
export {
  findBillingDocument,
  findInvoiceForMonth,
  foldCarried,
  insertBillingDocument,
  insertCreditNote,
  insertInvoice,
  insertPendingAdjustment,
  markAdjustmentsApplied,
  markCreditNotesApplied,
  markInvoicePaidIfOpen,
  voidOpenFirstInvoice,
  type NewLine,
} from './invoices.repository.js';
