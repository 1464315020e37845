export { renderCreditNotePdf, renderInvoicePdf } from './pdf.js';
export type { InvoicePdfInput } from './documents.types.js';
export { creditNotePdf, invoicePdf, loadInvoicePdfInput } from './documents.service.js';
export { findInvoiceWithParties, type InvoiceWithParties } from './documents.repository.js';
