// The writes of invoices, their lines, credit notes and pending adjustments, and the reads several
// processes decide on. The processes (billing run, first payment, settlement, plan change,
// cancellation) call these inside their own transactions; the billing run's candidate and lock
// reads stay in the billing module.
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

/** Any invoice of the subscription for the month (the monthly one, or the first invoice). */
export function findInvoiceForMonth(ex: Executor, subscriptionId: string, month: string) {
  return ex
    .selectFrom('invoices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', month)
    .where('status', '<>', 'void')
    .orderBy('created_at')
    .executeTakeFirst();
}

export function findBillingDocument(ex: Executor, subscriptionId: string, month: string) {
  return ex
    .selectFrom('billing_documents')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', month)
    .executeTakeFirst();
}

/** A credit note, issued open (plan change and cancellation, inside their transaction). */
export const insertCreditNote = (
  trx: Transaction<DB>,
  row: {
    id: string;
    provider_id: string;
    subscriber_id: string;
    subscription_id: string;
    plan_change_id?: string | null;
    number: string;
    amount_cents: number;
    currency: string;
    reason: string;
    issued_at: Date;
  },
) =>
  trx
    .insertInto('credit_notes')
    .values({ ...row, state: 'open', created_at: row.issued_at })
    .execute();

export interface NewInvoice {
  id: string;
  provider_id: string;
  subscriber_id: string;
  subscription_id: string;
  invoice_number: string;
  kind: 'monthly' | 'first';
  period_start: string;
  invoice_date: string;
  due_date: string;
  currency: string;
  total_cents: number;
  status: 'open' | 'paid';
  paid_at: Date | null;
  created_at: Date;
}

export interface NewLine {
  kind: 'subscription' | 'plan_change_adjustment' | 'credit_applied' | 'correction';
  description: string;
  amount_cents: number;
}

export async function insertInvoice(trx: Transaction<DB>, inv: NewInvoice, lines: NewLine[], newId: () => string) {
  await trx.insertInto('invoices').values(inv).execute();
  if (lines.length) {
    await trx
      .insertInto('invoice_lines')
      .values(
        lines.map((l, i) => ({
          id: newId(),
          invoice_id: inv.id,
          position: i + 1,
          kind: l.kind,
          description: l.description,
          amount_cents: l.amount_cents,
        })),
      )
      .execute();
  }
}

export function markAdjustmentsApplied(trx: Transaction<DB>, ids: string[], invoiceId: string) {
  if (!ids.length) return Promise.resolve();
  return trx.updateTable('pending_adjustments').set({ status: 'applied', applied_invoice_id: invoiceId }).where('id', 'in', ids).execute();
}

export function markCreditNotesApplied(trx: Transaction<DB>, ids: string[], invoiceId: string) {
  if (!ids.length) return Promise.resolve();
  return trx
    .updateTable('credit_notes')
    .set({ state: 'applied', applied_invoice_id: invoiceId })
    .where('id', 'in', ids)
    .where('state', '=', 'open')
    .execute();
}

export function markInvoicePaidIfOpen(
  trx: Transaction<DB>,
  invoiceId: string,
  p: { paidAt: Date; method: string; paymentIntentId: string | null; reference: string | null },
) {
  return trx
    .updateTable('invoices')
    .set({
      status: 'paid',
      paid_at: p.paidAt,
      payment_method: p.method,
      payment_intent_id: p.paymentIntentId,
      payment_reference: p.reference,
    })
    .where('id', '=', invoiceId)
    .where('status', '=', 'open')
    .returning(['id', 'kind', 'subscription_id'])
    .executeTakeFirst();
}

/** Voids the unpaid first invoice; returns the ids voided. */
export async function voidOpenFirstInvoice(trx: Transaction<DB>, subscriptionId: string): Promise<string[]> {
  const rows = await trx
    .updateTable('invoices')
    .set({ status: 'void' })
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'first')
    .where('status', '=', 'open')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export const insertPendingAdjustment = (
  trx: Transaction<DB>,
  row: {
    id: string;
    provider_id: string;
    subscription_id: string;
    plan_change_id: string;
    kind: 'upgrade_line' | 'carried_correction';
    amount_cents: number;
    description: string;
    created_at: Date;
  },
) =>
  trx
    .insertInto('pending_adjustments')
    .values({ ...row, status: 'pending' })
    .execute();

/** Closes carried corrections that a plan change's own correction settles. */
export const foldCarried = (trx: Transaction<DB>, ids: string[], planChangeId: string) =>
  ids.length === 0
    ? Promise.resolve()
    : trx
        .updateTable('pending_adjustments')
        .set({ status: 'applied', folded_into_plan_change_id: planChangeId })
        .where('id', 'in', ids)
        .where('status', '=', 'pending')
        .execute();

/** The billing system's document of an invoice (one per subscription and month). */
export function insertBillingDocument(
  trx: Transaction<DB>,
  doc: {
    id: string;
    provider_id: string;
    subscription_id: string;
    period_start: string;
    invoice_id: string;
    external_document_id: string;
    created_at: Date;
  },
) {
  return trx.insertInto('billing_documents').values(doc).execute();
}
