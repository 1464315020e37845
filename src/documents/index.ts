export { renderCreditNotePdf, renderInvoicePdf } from './pdf.js';
export type { CreditNotePdfInput, DocumentIssuer, DocumentLine, DocumentRecipient, InvoicePdfInput } from './documents.types.js';
export { creditNotePdf, invoicePdf, issuerOf, loadCreditNotePdfInput, loadInvoicePdfInput, recipientOf, type InvoiceExtras } from './documents.service.js';
