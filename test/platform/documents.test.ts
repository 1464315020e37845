import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf-text.js';
import {
  creditNotePdf,
  invoicePdf,
  loadInvoicePdfInput,
  renderCreditNotePdf,
  renderInvoicePdf,
  type InvoicePdfInput,
} from '../../src/documents/index.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';

const issuer = {
  name: 'Fibre Nord GmbH',
  addressLines: ['Hafenstraße 1', '20457 Hamburg'],
  supportEmail: 'support@fibre-nord.test',
  supportPhone: '+49 40 1234',
};
const customer = { name: 'Erika Müller', customerNumber: 'ABCD-1234', addressLines: ['Hauptstraße 5', '10115 Berlin', 'DE'] };

const invoice: InvoicePdfInput = {
  issuer,
  customer,
  invoiceNumber: 'INV-2026-000123',
  invoiceDate: '2026-11-01',
  dueDate: '2026-11-15',
  periodStart: '2026-11-01',
  currency: 'EUR',
  lines: [
    { description: 'Fibre 250 – November 2026', amountCents: 3999 },
    { description: 'Plan change: Fibre 250 → Fibre 500, 15 of 30 days', amountCents: 450 },
    { description: 'Credit applied', amountCents: -100 },
  ],
};

/** A real PDF: the header and trailer, and pdfjs reads it back. */
function expectPdfBytes(buf: Buffer) {
  expect(Buffer.isBuffer(buf)).toBe(true);
  expect(buf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(buf.subarray(-8).toString('latin1')).toMatch(/%%EOF\s*$/);
}

describe('renderInvoicePdf', () => {
  it('renders a valid PDF with issuer, customer, number, dates, lines from integer cents, total and currency', async () => {
    const buf = await renderInvoicePdf(invoice);
    expectPdfBytes(buf);
    const pdf = await pdfText(buf);
    expect(pdf.numPages).toBe(1);
    for (const s of [
      'Fibre Nord GmbH',
      'Hafenstraße 1',
      '20457 Hamburg',
      'support@fibre-nord.test',
      'Invoice',
      'Erika Müller',
      'Hauptstraße 5',
      '10115 Berlin',
      'ABCD-1234',
      'INV-2026-000123',
      '2026-11-01',
      '2026-11-15',
      'November 2026',
      'Amount (EUR)',
      'Fibre 250 – November 2026',
      '39.99',
      'Fibre 250 -> Fibre 500',
      '4.50',
      'Credit applied',
      '-1.00',
      '43.49 EUR',
    ]) {
      expect(pdf.text).toContain(s);
    }
    expect(pdf.info).toMatchObject({ Title: 'Invoice INV-2026-000123', Author: 'Fibre Nord GmbH' });
  });

  it('prints the stated total when given and the paid state', async () => {
    const pdf = await pdfText(await renderInvoicePdf({ ...invoice, totalCents: 4349, status: 'paid', paidOn: '2026-11-03' }));
    expect(pdf.text).toContain('43.49 EUR');
    expect(pdf.text).toContain('Paid on 2026-11-03');
  });

  it('is a pure function of its input: the same data gives the same text', async () => {
    const [a, b] = await Promise.all([renderInvoicePdf(invoice), renderInvoicePdf(invoice)]);
    expect((await pdfText(a)).text).toBe((await pdfText(b)).text);
  });

  it('breaks long invoices onto further pages without losing a line', async () => {
    const lines = Array.from({ length: 80 }, (_, k) => ({ description: `Line ${k + 1}`, amountCents: 100 + k }));
    const pdf = await pdfText(await renderInvoicePdf({ ...invoice, lines }));
    expect(pdf.numPages).toBeGreaterThan(1);
    for (const k of [1, 40, 80]) expect(pdf.text).toContain(`Line ${k} `);
    expect(pdf.text).toContain(`${(lines.reduce((s, l) => s + l.amountCents, 0) / 100).toFixed(2)} EUR`);
  });

  it("prints '-' for a customer without customer_number, and '?' for characters the PDF font cannot show", async () => {
    const pdf = await pdfText(await renderInvoicePdf({ ...invoice, customer: { name: 'Zoë 王', customerNumber: null, addressLines: [] } }));
    expect(pdf.text).toMatch(/Customer number\s+-/);
    expect(pdf.text).toContain('Zoë ?');
  });

  it('refuses amounts that are not integer cents', async () => {
    await expect(renderInvoicePdf({ ...invoice, lines: [{ description: 'x', amountCents: 12.5 }] })).rejects.toThrow(RangeError);
    await expect(renderInvoicePdf({ ...invoice, totalCents: 0.1 })).rejects.toThrow(RangeError);
  });
});

describe('renderCreditNotePdf', () => {
  it('renders a valid PDF with number, date, customer, reason, amount and currency', async () => {
    const buf = await renderCreditNotePdf({
      issuer,
      customer,
      creditNoteNumber: 'CN-2026-0042',
      issueDate: '2026-11-10',
      currency: 'EUR',
      reason: 'Downgrade to Fibre 100',
      totalCents: 1250,
      state: 'open',
      invoiceNumber: 'INV-2026-000123',
    });
    expectPdfBytes(buf);
    const pdf = await pdfText(buf);
    for (const s of [
      'Credit note',
      'Fibre Nord GmbH',
      'Erika Müller',
      'ABCD-1234',
      'CN-2026-0042',
      '2026-11-10',
      'INV-2026-000123',
      'Downgrade to Fibre 100',
      '12.50',
      '12.50 EUR',
      'applied to your next invoice',
    ]) {
      expect(pdf.text).toContain(s);
    }
    expect(pdf.info).toMatchObject({ Title: 'Credit note CN-2026-0042' });
  });

  it('sums given lines when no total is given', async () => {
    const pdf = await pdfText(
      await renderCreditNotePdf({
        issuer,
        customer,
        creditNoteNumber: 'CN-1',
        issueDate: '2026-11-10',
        currency: 'chf',
        reason: 'Outage',
        lines: [
          { description: 'Outage 3 days', amountCents: 300 },
          { description: 'Goodwill', amountCents: 1000 },
        ],
      }),
    );
    expect(pdf.text).toContain('13.00 CHF');
    expect(pdf.text).toContain('Amount (CHF)');
  });
});

describe('documents from the database', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('loads an invoice with its lines, invoice address and branding, and renders it; an unknown id gives null', async () => {
    const p = await createProvider(t.db, { name: 'Stadtnetz Nord' });
    await t.db
      .updateTable('providers')
      .set({ branding: JSON.stringify({ display_name: 'Stadtnetz', address_lines: ['Ring 1', '24103 Kiel'] }) })
      .where('id', '=', p.id)
      .execute();
    const sb = await createSubscriber(t.db, p.id, { firstName: 'Jonas', lastName: 'Weber' });
    const plan = await createPlanVersion(t.db, p.id);
    const sub = await createSubscription(t.db, { providerId: p.id, subscriberId: sb.id, planVersionId: plan.id });
    const invoiceId = newId();
    const number = `INV-${randomAlnum(6).toUpperCase()}`;
    await t.db
      .insertInto('invoices')
      .values({
        id: invoiceId,
        provider_id: p.id,
        subscriber_id: sb.id,
        subscription_id: sub.id,
        invoice_number: number,
        kind: 'monthly',
        period_start: '2026-11-01',
        invoice_date: '2026-11-01',
        due_date: '2026-11-15',
        currency: 'EUR',
        total_cents: 4449,
        status: 'open',
      })
      .execute();
    await t.db
      .insertInto('invoice_lines')
      .values([
        {
          id: newId(),
          invoice_id: invoiceId,
          position: 2,
          kind: 'plan_change_adjustment',
          description: 'Upgrade adjustment',
          amount_cents: 450,
        },
        { id: newId(), invoice_id: invoiceId, position: 1, kind: 'subscription', description: 'Fibre – November 2026', amount_cents: 3999 },
      ])
      .execute();

    const input = await loadInvoicePdfInput(t.db, invoiceId);
    expect(input).toMatchObject({
      invoiceNumber: number,
      currency: 'EUR',
      totalCents: 4449,
      status: 'open',
      to: sb.email,
      firstName: 'Jonas',
      issuer: { name: 'Stadtnetz', addressLines: ['Ring 1', '24103 Kiel'] },
      customer: { name: 'Jonas Weber', customerNumber: sb.customerNumber, addressLines: ['Hauptstraße 5', '10115 Berlin', 'DE'] },
      lines: [
        { description: 'Fibre – November 2026', amountCents: 3999 },
        { description: 'Upgrade adjustment', amountCents: 450 },
      ],
    });
    const pdf = await pdfText((await invoicePdf(t.db, invoiceId))!);
    for (const s of ['Stadtnetz', 'Ring 1', 'Jonas Weber', sb.customerNumber!, number, '44.49 EUR']) expect(pdf.text).toContain(s);
    expect(await invoicePdf(t.db, newId())).toBeNull();
    expect(await loadInvoicePdfInput(t.db, 'nope')).toBeNull();
  });

  it('renders a credit note as the billing system answers it', async () => {
    const p = await createProvider(t.db, { name: 'Kabel Süd' });
    const sb = await createSubscriber(t.db, p.id, { firstName: 'Mia', lastName: 'Schulz' });
    const id = newId();
    await t.db
      .insertInto('credit_notes')
      .values({
        id,
        provider_id: p.id,
        subscriber_id: sb.id,
        number: 'CN-77',
        state: 'refunded',
        amount_cents: 999,
        currency: 'EUR',
        reason: 'Downgrade credit',
        issued_at: new Date('2026-11-05T12:00:00Z'),
      })
      .execute();
    const note = await t.deps.adapters.billingSystem.getCreditNote(id);
    const pdf = await pdfText((await creditNotePdf(t.db, note!))!);
    for (const s of ['Kabel Süd', 'Mia Schulz', 'CN-77', '2026-11-05', 'Downgrade credit', '9.99 EUR', 'refunded to your card'])
      expect(pdf.text).toContain(s);
  });
});
