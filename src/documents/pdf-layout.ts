// Shared page layout of the invoice and credit-note PDFs (pdfkit, A4, the standard Helvetica font).
import type PDFKit from 'pdfkit';
import { formatCents } from '../lib/money.js';
import type { DocumentIssuer, DocumentLine, DocumentRecipient } from './documents.types.js';

type Doc = InstanceType<typeof PDFKit>;

const MARGIN = 50;
const PAGE_WIDTH = 595.28; // A4 in points
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const AMOUNT_WIDTH = 130;
const GREY = '#4b5563';

const amount = (cents: number) => formatCents(cents);
export const money = (cents: number, currency: string) => `${formatCents(cents)} ${currency.trim().toUpperCase()}`;

/**
 * The standard PDF fonts only cover WinAnsi (Latin-1 and a few more); other characters would
 * print as garbage, so they become '?'. Line breaks in data become spaces.
 */
function printable(s: unknown): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- any cell value, printed as String() writes it
  return String(s ?? '')
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\u2192/g, '->')
    .replace(/\u2190/g, '<-')
    .replace(/\u2264/g, '<=')
    .replace(/\u2265/g, '>=')
    .replace(/[^\u0020-\u007e\u00a0-\u00ff\u20ac\u2013\u2014\u2018\u2019\u201c\u201d\u2026]/g, '?');
}

export interface PageSpec {
  title: string;
  author: string;
  /** The document date (YYYY-MM-DD): also the PDF's creation date, so output is reproducible. */
  date: string;
}

/**
 * Renders a document and resolves with the whole PDF. pdfkit is loaded on the first document, not with
 * the server: it is 0.4 s of every start (under tsx) for what only the invoice and credit-note reads use.
 */
export async function renderPdf(spec: PageSpec, draw: (doc: Doc) => void): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const created = new Date(`${spec.date}T00:00:00Z`);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: printable(spec.title),
      Author: printable(spec.author),
      Creator: printable(spec.author),
      CreationDate: Number.isNaN(created.getTime()) ? undefined : created,
    },
    lang: 'en',
    displayTitle: true,
    bufferPages: false,
  });
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    try {
      draw(doc);
      doc.end();
    } catch (err) {
      reject(err);
    }
  });
}

/** Provider name and address block (top left), the document title (top right). */
export function header(doc: Doc, issuer: DocumentIssuer, title: string) {
  const top = MARGIN;
  doc
    .font('Helvetica-Bold')
    .fontSize(16)
    .fillColor('black')
    .text(printable(issuer.name), MARGIN, top, { width: CONTENT_WIDTH / 2 });
  doc.font('Helvetica').fontSize(9).fillColor(GREY);
  for (const l of issuer.addressLines) doc.text(printable(l), { width: CONTENT_WIDTH / 2 });
  if (issuer.supportEmail) doc.text(printable(issuer.supportEmail), { width: CONTENT_WIDTH / 2 });
  if (issuer.supportPhone) doc.text(printable(issuer.supportPhone), { width: CONTENT_WIDTH / 2 });
  const leftBottom = doc.y;
  doc
    .font('Helvetica-Bold')
    .fontSize(22)
    .fillColor('black')
    .text(printable(title), MARGIN + CONTENT_WIDTH / 2, top, { width: CONTENT_WIDTH / 2, align: 'right' });
  doc.y = Math.max(leftBottom, doc.y) + 30;
}

/** Customer block (left) and the document's facts (right), side by side. */
export function parties(doc: Doc, customer: DocumentRecipient, facts: [string, string][]) {
  const top = doc.y;
  doc
    .font('Helvetica')
    .fontSize(9)
    .fillColor(GREY)
    .text('Bill to', MARGIN, top, { width: CONTENT_WIDTH / 2 });
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .fillColor('black')
    .text(printable(customer.name), { width: CONTENT_WIDTH / 2 - 10 });
  doc.font('Helvetica').fontSize(10);
  for (const l of customer.addressLines) doc.text(printable(l), { width: CONTENT_WIDTH / 2 - 10 });
  const leftBottom = doc.y;

  const x = MARGIN + CONTENT_WIDTH / 2;
  let y = top;
  for (const [label, value] of facts) {
    doc.font('Helvetica').fontSize(9).fillColor(GREY).text(printable(label), x, y, { width: 110 });
    doc
      .font('Helvetica')
      .fontSize(10)
      .fillColor('black')
      .text(printable(value), x + 110, y, { width: CONTENT_WIDTH / 2 - 110, align: 'right' });
    y = Math.max(doc.y, y + 14) + 2;
  }
  doc.y = Math.max(leftBottom, y) + 24;
}

function rule(doc: Doc, y: number, weight = 0.5) {
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + CONTENT_WIDTH, y)
    .lineWidth(weight)
    .strokeColor('#9ca3af')
    .stroke();
}

function ensureSpace(doc: Doc, needed: number) {
  if (doc.y + needed > doc.page.height - MARGIN) {
    doc.addPage();
    doc.y = MARGIN;
  }
}

/** The lines table with amounts from integer cents, then the total in the currency. */
export function linesTable(doc: Doc, lines: DocumentLine[], totalCents: number, currency: string, totalLabel = 'Total') {
  const cur = printable(currency.trim().toUpperCase());
  const descWidth = CONTENT_WIDTH - AMOUNT_WIDTH - 10;
  ensureSpace(doc, 40);
  let y = doc.y;
  doc.font('Helvetica-Bold').fontSize(10).fillColor('black');
  doc.text('Description', MARGIN, y, { width: descWidth });
  doc.text(`Amount (${cur})`, MARGIN + CONTENT_WIDTH - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
  y = doc.y + 4;
  rule(doc, y);
  doc.y = y + 6;
  doc.font('Helvetica').fontSize(10);
  for (const line of lines) {
    const desc = printable(line.description);
    const h = Math.max(doc.heightOfString(desc, { width: descWidth }), 12);
    ensureSpace(doc, h + 8);
    y = doc.y;
    doc.text(desc, MARGIN, y, { width: descWidth });
    doc.text(amount(line.amountCents), MARGIN + CONTENT_WIDTH - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    doc.y = y + h + 6;
  }
  ensureSpace(doc, 40);
  y = doc.y;
  rule(doc, y, 1);
  doc.y = y + 8;
  y = doc.y;
  doc.font('Helvetica-Bold').fontSize(12);
  doc.text(printable(totalLabel), MARGIN, y, { width: descWidth });
  doc.text(money(totalCents, cur), MARGIN + CONTENT_WIDTH - AMOUNT_WIDTH - 40, y, { width: AMOUNT_WIDTH + 40, align: 'right' });
  doc.y = y + 30;
}

export function paragraph(doc: Doc, text: string) {
  ensureSpace(doc, 30);
  doc.font('Helvetica').fontSize(10).fillColor('black').text(printable(text), MARGIN, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.6);
}

export function footer(doc: Doc, issuer: DocumentIssuer) {
  const contact = [issuer.supportEmail, issuer.supportPhone].filter(Boolean).join(' · ');
  ensureSpace(doc, 30);
  doc.moveDown(1);
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor(GREY)
    .text(printable(`${issuer.name}${contact ? ` · ${contact}` : ''}`), MARGIN, doc.y, { width: CONTENT_WIDTH, align: 'center' });
}
