import type { Insertable } from 'kysely';
import type { DB } from '../db/types.js';
import { addDays, addMonths, monthStart } from '../lib/dates.js';
import { newId, randomAlnum } from '../lib/ids.js';
import { creditNoteNumber, externalDocumentId, invoiceNumber, monthLabel, PAYMENT_TERM_DAYS } from '../modules/invoices/index.js';
import type { CustomerRef } from './customer.js';
import type { Rng } from './random.js';
import type { Rows, SeedTable } from './rows.js';

/** The first month of the demo's year of history for a subscription: 11 months ago, or its activation month. */
export const historyStart = (currentMonth: string, activatedAt: Date) => {
  const yearAgo = addMonths(currentMonth, -11);
  const activated = monthStart(activatedAt);
  return activated > yearAgo ? activated : yearAgo;
};

/** Monthly invoices, their lines and billing documents, and credit notes, in the billing module's formats. */
export function createBillingHistory({ rows, rng, now }: { rows: Pick<Rows, SeedTable>; rng: Rng; now: Date }) {
  const currentMonth = monthStart(now);
  // The current month's invoice date is on or before today, and as late as possible so that an
  // open invoice is not yet due (due 14 days after) where the calendar allows it, and never past
  // the 14 grace days after which the daily dunning run would suspend the subscription.
  const day = now.getUTCDate();
  const latest = Math.min(10, day);
  const earliest = Math.min(latest, Math.max(1, day - PAYMENT_TERM_DAYS));
  const billingDay = () => rng.int(earliest, latest);
  const at = (date: string, hour = 9) =>
    new Date(`${date}T${String(hour).padStart(2, '0')}:${String(rng.int(0, 59)).padStart(2, '0')}:00.000Z`);
  const never = (d: Date) => (d > now ? now : d);

  function invoiceMonth(c: CustomerRef, month: string, paid: boolean, withDocument = true) {
    const s = c.spec;
    const invoiceDate = `${month.slice(0, 8)}${String(c.billing_day).padStart(2, '0')}`;
    const id = newId();
    const paidAt = paid ? never(at(addDays(invoiceDate, rng.int(0, 6)), 10)) : null;
    rows.invoices.push({
      id,
      provider_id: s.providerId,
      subscriber_id: c.id,
      subscription_id: c.subscription_id,
      invoice_number: invoiceNumber(month),
      kind: 'monthly',
      period_start: month,
      invoice_date: invoiceDate,
      due_date: addDays(invoiceDate, PAYMENT_TERM_DAYS),
      currency: s.plan.currency,
      total_cents: s.plan.priceCents,
      status: paid ? 'paid' : 'open',
      paid_at: paidAt,
      payment_method: paid ? (s.card ? 'card' : 'bank_transfer') : null,
      payment_intent_id: paid ? `pi_${randomAlnum(24)}` : null,
      payment_reference: paid ? `PAY-${invoiceDate.replace(/-/g, '')}-${randomAlnum(6).toUpperCase()}` : null,
      created_at: at(invoiceDate, 6),
    });
    rows.invoice_lines.push({
      id: newId(),
      invoice_id: id,
      position: 1,
      kind: 'subscription',
      description: `${s.plan.name}, ${monthLabel(month)}`,
      amount_cents: s.plan.priceCents,
    });
    if (withDocument) rows.billing_documents.push(billingDocument(c, month, id));
    return id;
  }

  function billingDocument(c: CustomerRef, month: string, invoiceId: string | null): Insertable<DB['billing_documents']> {
    return {
      id: newId(),
      provider_id: c.spec.providerId,
      subscription_id: c.subscription_id,
      period_start: month,
      invoice_id: invoiceId,
      external_document_id: externalDocumentId(),
    };
  }

  /** A year of monthly invoices (from activation on): past months paid, the current one as asked. */
  function billingHistory(c: CustomerRef) {
    const s = c.spec;
    const first = historyStart(currentMonth, s.activatedAt);
    for (let m = first; m < currentMonth; m = addMonths(m, 1)) invoiceMonth(c, m, true);
    switch (s.currentMonth ?? 'open') {
      case 'open':
        return invoiceMonth(c, currentMonth, false);
      case 'paid':
        return invoiceMonth(c, currentMonth, true);
      case 'no_document':
        return invoiceMonth(c, currentMonth, false, false);
      case 'no_invoice':
        rows.billing_documents.push(billingDocument(c, currentMonth, null));
        return null;
      case 'none':
        return null;
    }
  }

  function creditNote(
    c: CustomerRef,
    o: {
      state: 'open' | 'applied' | 'refunded' | 'paid_out';
      amountCents: number;
      reason: string;
      daysAgo: number;
      appliedInvoiceId?: string | null;
    },
  ) {
    rows.credit_notes.push({
      id: newId(),
      provider_id: c.spec.providerId,
      subscriber_id: c.id,
      subscription_id: c.subscription_id,
      applied_invoice_id: o.appliedInvoiceId ?? null,
      number: creditNoteNumber(monthStart(new Date(now.getTime() - o.daysAgo * 86_400_000))),
      state: o.state,
      amount_cents: o.amountCents,
      currency: c.spec.plan.currency,
      reason: o.reason,
      issued_at: new Date(now.getTime() - o.daysAgo * 86_400_000),
    });
  }

  /** The invoice of `month` for a subscription, from the rows built so far. */
  const invoiceOf = (subscriptionId: string, month: string) =>
    rows.invoices.find((i) => i.subscription_id === subscriptionId && i.period_start === month)?.id ?? null;

  return { billingDay, billingHistory, creditNote, invoiceOf };
}
