// An invoice copy of an overdue invoice does not ask to "pay by" a date in the past (issue 31 §7).
import { describe, expect, it } from 'vitest';
import { invoiceCopyMail, mailBrand } from '../../src/mail/templates.js';

const ctx = { brand: mailBrand({ name: 'Nordlicht Fibre', support_email: 'help@example.test' }), baseUrl: 'https://example.test' };
const copy = (today: string | undefined, status = 'open') =>
  invoiceCopyMail(ctx, {
    invoiceNumber: 'INV-1',
    invoiceDate: '2026-11-01',
    dueDate: '2026-11-15',
    totalCents: 4499,
    currency: 'EUR',
    status,
    today,
    pdf: Buffer.from('%PDF'),
  }).text;

describe('invoice copy mail', () => {
  it('an open invoice past its due date says it is overdue, with no "pay by" a past date', () => {
    const text = copy('2026-11-16');
    expect(text).not.toContain('Please pay by');
    expect(text).toContain('was due on 2026-11-15 and is overdue');
  });
  it('an open invoice not yet due asks to pay by its due date; a paid one asks nothing', () => {
    expect(copy('2026-11-15')).toContain('Please pay by 2026-11-15.');
    expect(copy('2026-11-20', 'paid')).toContain('This invoice is paid; no action is needed.');
  });
});
