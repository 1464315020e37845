// The monthly billing run: one invoice per service-billed subscription and calendar month, on
// its billing day, with the month's subscription line, pending plan-change lines, carried
// corrections once they reach 0.50, and open credit notes applied.
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { addDays, isoDate, monthStart } from '../../lib/dates.js';
import { isUniqueViolation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './billing.repository.js';
import {
  billingDateFor,
  dayOf,
  dayRangeLabel,
  daysIn,
  externalDocumentId,
  findBillingDocument,
  findInvoiceForMonth,
  insertBillingDocument,
  insertInvoice,
  invoiceNumber,
  markAdjustmentsApplied,
  markCreditNotesApplied,
  monthLabel,
  type NewLine,
  nextMonth,
  PAYMENT_TERM_DAYS,
  prorate,
  MIN_CORRECTION_CENTS,
} from '../invoices/index.js';
import { enqueueCollect } from './first-payment.js';
import { present } from '../../lib/present.js';

export interface BillingRunDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  log: FastifyBaseLogger;
  adapters: Adapters;
}

export type BillOutcome = 'invoiced' | 'already_invoiced' | 'not_due' | 'nothing_to_bill' | 'not_billed' | 'needs_operator';

export interface BuiltInvoice {
  lines: NewLine[];
  adjustmentIds: string[];
  creditNoteIds: string[];
  totalCents: number;
}

/**
 * The lines of one month's invoice (pure given the rows): the subscription line (full month, or
 * pro rata up to ended_at for the month a cancellation ends in, none after it), every pending
 * upgrade line, the carried corrections when their sum reaches 0.50 either way, then open credit
 * notes oldest first as long as the invoice total stays at or above zero (a note that does not
 * fit stays open for a later invoice or a refund).
 */
export function buildInvoiceLines(
  sub: Pick<repo.BillingSubscription, 'plan_name' | 'monthly_price_cents' | 'ended_at'>,
  month: string,
  adjustments: { id: string; kind: string; amount_cents: number; description: string }[],
  creditNotes: { id: string; number: string; amount_cents: number }[],
): BuiltInvoice {
  const lines: NewLine[] = [];
  const adjustmentIds: string[] = [];
  const creditNoteIds: string[] = [];
  const next = nextMonth(month);
  if (!sub.ended_at || sub.ended_at >= next) {
    lines.push({ kind: 'subscription', description: `${sub.plan_name}, ${monthLabel(month)}`, amount_cents: sub.monthly_price_cents });
  } else if (sub.ended_at > month) {
    const usedDays = dayOf(sub.ended_at) - 1;
    lines.push({
      kind: 'subscription',
      description: `${sub.plan_name}, ${dayRangeLabel(month, addDays(sub.ended_at, -1))} (until cancellation, pro rata)`,
      amount_cents: prorate(sub.monthly_price_cents, usedDays, daysIn(month)),
    });
  }
  for (const a of adjustments) {
    if (a.kind !== 'upgrade_line') continue;
    lines.push({ kind: 'plan_change_adjustment', description: a.description, amount_cents: a.amount_cents });
    adjustmentIds.push(a.id);
  }
  const carried = adjustments.filter((a) => a.kind === 'carried_correction');
  const carriedSum = carried.reduce((s, a) => s + a.amount_cents, 0);
  if (carried.length && Math.abs(carriedSum) >= MIN_CORRECTION_CENTS) {
    lines.push({ kind: 'correction', description: 'Correction carried from earlier plan changes', amount_cents: carriedSum });
    adjustmentIds.push(...carried.map((a) => a.id));
  }
  let total = lines.reduce((s, l) => s + l.amount_cents, 0);
  for (const cn of creditNotes) {
    if (cn.amount_cents <= 0 || total - cn.amount_cents < 0) continue;
    lines.push({ kind: 'credit_applied', description: `Credit note ${cn.number}`, amount_cents: -cn.amount_cents });
    creditNoteIds.push(cn.id);
    total -= cn.amount_cents;
  }
  return { lines, adjustmentIds, creditNoteIds, totalCents: total };
}

export function createBillingRunService(deps: BillingRunDeps) {
  const { db, clock, log } = deps;

  /** Bills one subscription for `month` if it is due on `today`; one transaction, row-locked. */
  async function billSubscription(
    subscriptionId: string,
    month: string,
    today: string,
  ): Promise<{ outcome: BillOutcome; invoiceId?: string; nextSendDate?: string }> {
    try {
      return await db.transaction().execute(async (trx) => {
        const sub = await repo.lockSubscriptionForBilling(trx, subscriptionId);
        if (!sub || !sub.service_billed) return { outcome: 'not_billed' as const };
        if (await findInvoiceForMonth(trx, sub.id, month)) return { outcome: 'already_invoiced' as const };
        // A billing document without its invoice (operator-escalation case c): the billing system has already
        // issued something for the month, so issuing another could bill twice. Left to an operator.
        if (await findBillingDocument(trx, sub.id, month)) return { outcome: 'needs_operator' as const };
        const billingDate = billingDateFor(month, sub);
        if (today < billingDate) return { outcome: 'not_due' as const };

        const inService =
          sub.status === 'ACTIVE' ||
          sub.status === 'SUSPENDED' ||
          (sub.status === 'CANCELLED' && sub.ended_at !== null && sub.ended_at > month);
        // A subscription activated after the month's billing date starts with the next month.
        if (inService && sub.activated_at && isoDate(sub.activated_at) > billingDate) return { outcome: 'nothing_to_bill' as const };
        if (!inService && sub.status !== 'CANCELLED') return { outcome: 'nothing_to_bill' as const };

        const adjustments = await repo.pendingAdjustments(trx, sub.id);
        const creditNotes = await repo.openCreditNotes(trx, sub.id, sub.subscriber_id);
        const built = buildInvoiceLines(inService ? sub : { ...sub, ended_at: month }, month, adjustments, creditNotes);
        // A cancelled subscription after its last month gets a closing invoice only for what is pending.
        if (!inService && built.adjustmentIds.length === 0) return { outcome: 'nothing_to_bill' as const };
        if (built.lines.length === 0) return { outcome: 'nothing_to_bill' as const };

        const now = clock.now();
        const invoiceId = newId();
        const paid = built.totalCents <= 0;
        await insertInvoice(
          trx,
          {
            id: invoiceId,
            provider_id: sub.provider_id,
            subscriber_id: sub.subscriber_id,
            subscription_id: sub.id,
            invoice_number: invoiceNumber(month),
            kind: 'monthly',
            period_start: month,
            invoice_date: today,
            due_date: addDays(today, PAYMENT_TERM_DAYS),
            currency: sub.currency.trim(),
            total_cents: built.totalCents,
            status: paid ? 'paid' : 'open',
            paid_at: paid ? now : null,
            created_at: now,
          },
          built.lines,
          newId,
        );
        await markAdjustmentsApplied(trx, built.adjustmentIds, invoiceId);
        await markCreditNotesApplied(trx, built.creditNoteIds, invoiceId);
        await insertBillingDocument(trx, {
          id: newId(),
          provider_id: sub.provider_id,
          subscription_id: sub.id,
          period_start: month,
          invoice_id: invoiceId,
          external_document_id: externalDocumentId(),
          created_at: now,
        });
        if (!paid) await enqueueCollect(trx, deps, invoiceId, sub.provider_id, sub.id);
        const continues = sub.status !== 'CANCELLED' || (sub.ended_at !== null && sub.ended_at > nextMonth(month));
        return { outcome: 'invoiced' as const, invoiceId, nextSendDate: continues ? billingDateFor(nextMonth(month), sub) : undefined };
      });
    } catch (err) {
      // A concurrent run invoiced the month first: the unique index settles it.
      if (
        isUniqueViolation(err, 'invoices_subscription_month_key') ||
        isUniqueViolation(err, 'billing_documents_subscription_id_period_start_key')
      ) {
        return { outcome: 'already_invoiced' };
      }
      throw err;
    }
  }

  /**
   * Runs the month of `date` (default today, UTC): every candidate is billed in its own
   * transaction; one failing subscription is logged and does not stop the others.
   */
  async function runMonthly(date?: string) {
    const today = date ?? isoDate(clock.now());
    const month = monthStart(new Date(`${today}T00:00:00Z`));
    const counts = { date: today, month, invoiced: 0, not_due: 0, skipped: 0, needs_operator: 0, failed: 0, invoice_ids: [] as string[] };
    let after: string | null = null;
    for (;;) {
      const ids = await repo.billingCandidates(db, month, 200, after);
      if (!ids.length) break;
      for (const id of ids) {
        try {
          const r = await billSubscription(id, month, today);
          if (r.outcome === 'invoiced') {
            counts.invoiced++;
            counts.invoice_ids.push(r.invoiceId!);
            if (r.nextSendDate) await tellBillingSystem(id, r.nextSendDate);
          } else if (r.outcome === 'not_due') counts.not_due++;
          else if (r.outcome === 'needs_operator') {
            counts.needs_operator++;
            log.warn(
              { subscription_id: id, month },
              'billing run: a billing document exists without its invoice; not invoiced, needs an operator',
            );
          } else counts.skipped++;
        } catch (err) {
          counts.failed++;
          log.error({ err, subscription_id: id, month }, 'billing run: subscription failed');
        }
      }
      after = present(ids.at(-1), 'the last candidate of a page');
    }
    log.info({ ...counts, invoice_ids: undefined }, 'billing run finished');
    return counts;
  }

  /** Keeps the billing system's schedule on the next recurring send date (best effort). */
  async function tellBillingSystem(subscriptionId: string, sendDate: string) {
    try {
      await deps.adapters.billingSystem.rescheduleNextInvoice({ subscriptionId, sendDate });
    } catch (err) {
      log.warn(
        { subscription_id: subscriptionId, err: (err as Error).message },
        'billing run: next send date not passed to the billing system',
      );
    }
  }

  return { runMonthly, billSubscription };
}

/** @public The type of what the container builds. */
export type BillingRunService = ReturnType<typeof createBillingRunService>;
