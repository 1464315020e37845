// Cancellation by the provider's dashboard (internal API): the subscription is CANCELLED at once
// with canceled_at and ended_at (exclusive); service and the port last until ended_at, when the
// `cancellation.port_reset` job resets the port.
import type { Db } from '../../db/database.js';
import type { Executor } from '../../db/executor.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Webhooks } from '../../webhooks/types.js';
import { invalidatePaymentLinks, type UserPrincipal } from '../auth/index.js';
import { recordAudit } from '../audit/index.js';
import { creditNoteNumber, findBillingDocument, findInvoiceForMonth, insertCreditNote, voidOpenFirstInvoice } from '../invoices/index.js';
import { isoDate, parseIsoDate } from '../../lib/dates.js';
import { AppError, notFound, unprocessable } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { cancellationLines, presentLine } from './cancellation.quote.js';
import { markCancelled } from '../subscriptions/index.js';
import { cancelOpenInstallJobs } from '../install/index.js';
import * as repo from './cancellation.repository.js';

export interface CancellationDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  webhooks: Webhooks;
}

const CANCELLABLE = ['ACTIVE', 'SUSPENDED', 'PENDING_INSTALL'] as const;
export const PORT_RESET_JOB = 'cancellation.port_reset';

export function createCancellationService(deps: CancellationDeps) {
  const { db, clock } = deps;

  /** platform_admin sees every provider; provider staff only their own (others answer 404). */
  function visible(principal: UserPrincipal, sub: { provider_id: string } | undefined) {
    if (!sub) return false;
    if (principal.role === 'platform_admin') return true;
    return principal.role === 'service_provider' && principal.providerId !== null && principal.providerId === sub.provider_id;
  }

  function checkEndDate(endDate: string) {
    const d = parseIsoDate(endDate);
    if (Number.isNaN(d.getTime()) || isoDate(d) !== endDate) throw unprocessable('end_date: not a calendar date (YYYY-MM-DD)');
    const today = isoDate(clock.now());
    if (endDate < today) throw unprocessable(`end_date: must be today (${today}, UTC) or later`);
  }

  async function quote(ex: Executor, sub: repo.SubscriptionToCancel, endDate: string) {
    const month = `${endDate.slice(0, 7)}-01`;
    const invoiced = sub.service_billed
      ? Boolean((await findInvoiceForMonth(ex, sub.id, month)) ?? (await findBillingDocument(ex, sub.id, month)))
      : false;
    const pending = sub.service_billed ? await repo.listPendingAdjustments(ex, sub.id) : [];
    return cancellationLines(sub, endDate, invoiced, pending);
  }

  function refuseStatus(status: string) {
    if (!(CANCELLABLE as readonly string[]).includes(status)) {
      throw new AppError(
        409,
        'conflict',
        `The subscription is ${status}; only ACTIVE, SUSPENDED or PENDING_INSTALL subscriptions can be cancelled`,
      );
    }
  }

  async function preview(principal: UserPrincipal, subscriptionId: string, endDate: string) {
    checkEndDate(endDate);
    const sub = await repo.findSubscriptionToCancel(db, subscriptionId);
    if (!sub || !visible(principal, sub)) throw notFound('Subscription not found');
    refuseStatus(sub.status);
    const q = await quote(db, sub, endDate);
    const currency = sub.currency.trim();
    return {
      subscription_id: sub.id,
      effective_date: endDate,
      calendar_month: q.month.slice(0, 7),
      month_invoiced: q.monthInvoiced,
      billed_by: sub.service_billed ? ('service' as const) : ('provider' as const),
      currency,
      lines: q.lines.map((l) => presentLine(l, currency)),
    };
  }

  async function cancel(principal: UserPrincipal, subscriptionId: string, endDate: string, requestId: string | null) {
    checkEndDate(endDate);
    return db.transaction().execute(async (trx) => {
      const sub = await repo.lockSubscriptionToCancel(trx, subscriptionId);
      if (!sub || !visible(principal, sub)) throw notFound('Subscription not found');
      refuseStatus(sub.status);
      const now = clock.now();
      const q = await quote(trx, sub, endDate);

      await markCancelled(trx, sub.id, endDate, now);
      await cancelOpenInstallJobs(trx, sub.id, now);
      if (sub.status === 'PENDING_INSTALL') {
        // Never activated: its unpaid first invoice is voided and the payment link stops working.
        await invalidatePaymentLinks(trx, await voidOpenFirstInvoice(trx, sub.id), now);
      }

      const credit = q.lines.find((l) => l.kind === 'unused_days_credit');
      let creditNoteId: string | null = null;
      if (credit) {
        creditNoteId = newId();
        await insertCreditNote(trx, {
          id: creditNoteId,
          provider_id: sub.provider_id,
          subscriber_id: sub.subscriber_id,
          subscription_id: sub.id,
          number: creditNoteNumber(q.month),
          amount_cents: -credit.amount_cents,
          currency: sub.currency.trim(),
          reason: `Cancellation: ${credit.description}`,
          issued_at: now,
        });
      }

      await deps.webhooks.emit(trx, {
        providerId: sub.provider_id,
        type: 'subscription.cancelled',
        subscriptionId: sub.id,
        subscriberId: sub.subscriber_id,
        data: { status: 'CANCELLED', canceled_at: now.toISOString(), ended_at: endDate },
      });
      await deps.jobs.enqueue(trx, {
        kind: PORT_RESET_JOB,
        payload: { subscription_id: sub.id },
        runAt: parseIsoDate(endDate),
        dedupeKey: `${PORT_RESET_JOB}:${sub.id}`,
        providerId: sub.provider_id,
        subscriptionId: sub.id,
      });
      await recordAudit(trx, {
        providerId: sub.provider_id,
        actorType: 'user',
        actor: principal.userId,
        action: 'subscription.cancel',
        entityType: 'subscription',
        entityId: sub.id,
        before: { status: sub.status },
        after: { status: 'CANCELLED', canceled_at: now.toISOString(), ended_at: endDate, credit_note_id: creditNoteId },
        requestId,
        at: now,
      });
      return { subscription_id: sub.id, status: 'CANCELLED' as const, canceled_at: now.toISOString(), ended_at: endDate };
    });
  }

  return { preview, cancel };
}
