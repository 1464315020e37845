// The invoice and credit-note PDFs: pure functions from plain data to the bytes of a PDF.
import type { CreditNotePdfInput, InvoicePdfInput } from './documents.types.js';
import { footer, header, linesTable, money, paragraph, parties, renderPdf } from './pdf-layout.js';

export type { CreditNotePdfInput, InvoicePdfInput } from './documents.types.js';

const sum = (lines: { amountCents: number }[]) => lines.reduce((s, l) => s + l.amountCents, 0);

function checkCents(lines: { amountCents: number }[], total: number | undefined) {
  for (const l of lines) if (!Number.isSafeInteger(l.amountCents)) throw new RangeError('line amounts must be integer cents');
  if (total !== undefined && !Number.isSafeInteger(total)) throw new RangeError('totalCents must be integer cents');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** '2026-11-01' → 'November 2026' */
function monthName(periodStart: string): string {
  const m = /^(\d{4})-(\d{2})-\d{2}$/.exec(periodStart);
  return m ? `${MONTHS[Number(m[2]) - 1] ?? m[2]} ${m[1]}` : periodStart;
}

/** An invoice: issuer and customer blocks, number and dates, the lines, the total in its currency. */
export async function renderInvoicePdf(i: InvoicePdfInput): Promise<Buffer> {
  checkCents(i.lines, i.totalCents);
  const total = i.totalCents ?? sum(i.lines);
  return renderPdf({ title: `Invoice ${i.invoiceNumber}`, author: i.issuer.name, date: i.invoiceDate }, (doc) => {
    header(doc, i.issuer, 'Invoice');
    const facts: [string, string][] = [
      ['Invoice number', i.invoiceNumber],
      ['Invoice date', i.invoiceDate],
      ['Due date', i.dueDate],
      ['Customer number', i.customer.customerNumber ?? '-'],
    ];
    if (i.periodStart) facts.push(['Service period', monthName(i.periodStart)]);
    parties(doc, i.customer, facts);
    linesTable(doc, i.lines, total, i.currency);
    if (i.status === 'paid') paragraph(doc, `Paid${i.paidOn ? ` on ${i.paidOn}` : ''}. Thank you.`);
    else if (i.status === 'void') paragraph(doc, 'This invoice has been voided; nothing is owed on it.');
    else if (i.status === 'draft') paragraph(doc, 'Draft: not yet issued.');
    else paragraph(doc, `Please pay ${money(total, i.currency)} by ${i.dueDate}, quoting invoice number ${i.invoiceNumber}.`);
    footer(doc, i.issuer);
  });
}

const CREDIT_STATES: Record<NonNullable<CreditNotePdfInput['state']>, string> = {
  draft: 'Draft: not yet issued.',
  open: 'This credit will be applied to your next invoice.',
  refunded: 'This credit has been refunded to your card.',
  paid_out: 'This credit has been paid out to you.',
  applied: 'This credit has been applied against an invoice.',
  archived: 'Archived.',
  voided: 'This credit note has been voided.',
};

/** A credit note: the same layout, the reason and the gross amount credited. */
export async function renderCreditNotePdf(i: CreditNotePdfInput): Promise<Buffer> {
  const lines = i.lines && i.lines.length > 0 ? i.lines : [{ description: i.reason, amountCents: i.totalCents ?? 0 }];
  checkCents(lines, i.totalCents);
  const total = i.totalCents ?? sum(lines);
  return renderPdf({ title: `Credit note ${i.creditNoteNumber}`, author: i.issuer.name, date: i.issueDate }, (doc) => {
    header(doc, i.issuer, 'Credit note');
    const facts: [string, string][] = [
      ['Credit note number', i.creditNoteNumber],
      ['Date', i.issueDate],
      ['Customer number', i.customer.customerNumber ?? '-'],
    ];
    if (i.invoiceNumber) facts.push(['Invoice', i.invoiceNumber]);
    parties(doc, i.customer, facts);
    paragraph(doc, `Reason: ${i.reason}`);
    doc.moveDown(0.6);
    linesTable(doc, lines, total, i.currency, 'Total credit');
    if (i.state) paragraph(doc, CREDIT_STATES[i.state]);
    footer(doc, i.issuer);
  });
}
