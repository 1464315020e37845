// PATCH /subscriber/me/billing-day. The billing period stays the calendar month; the billing day
// (1..10) only moves the date the month's invoice is sent and collected. No invoice, credit note
// or correction results from a change.
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError } from '../../adapters/types.js';
import { dayOfMonth, isoDate, monthStart } from '../../lib/dates.js';
import { AppError, dependencyFailed, notFound } from '../../lib/errors.js';
import {
  billingDateFor,
  billingDayFor,
  dayOf,
  findBillingDocument,
  findInvoiceForMonth,
  monthLabel,
  nextMonth,
} from '../invoices/index.js';
import { setBillingDay } from '../subscriptions/index.js';
import * as repo from './account.repository.js';

export interface BillingDayDeps {
  db: Db;
  clock: Clock;
  adapters: Adapters;
  log: FastifyBaseLogger;
}

export interface BillingDayResult {
  subscription_id: string;
  billing_day: number;
  effective_period: string;
  next_send_date: string | null;
}

const RESCHEDULE_FAILED =
  'The billing day was saved, but the billing system could not reschedule the next invoice. Send the same request again to retry; it is safe to repeat.';

export function createBillingDayService({ db, clock, adapters, log }: BillingDayDeps) {
  async function changeBillingDay(userId: string, subscriptionId: string, billingDay: number): Promise<BillingDayResult> {
    const owner = await repo.findSubscriberByUser(db, userId);
    if (!owner) throw notFound('Subscription not found');
    const result = await db.transaction().execute(async (trx) => {
      const sub = await repo.lockOwnSubscription(trx, [owner.id], subscriptionId);
      if (!sub) throw notFound('Subscription not found');
      if (sub.status === 'CANCELLED')
        throw new AppError(409, 'conflict', 'The subscription is cancelled; its billing day can no longer change');

      const now = clock.now();
      const today = isoDate(now);
      const month = monthStart(now);
      const invoiced = Boolean((await findInvoiceForMonth(trx, sub.id, month)) ?? (await findBillingDocument(trx, sub.id, month)));
      // Recurring invoices exist for a service-billed subscription in service (suspension has no billing effect).
      const recurring = sub.service_billed && (sub.status === 'ACTIVE' || sub.status === 'SUSPENDED');
      // The current month's invoice is still to be sent by the billing run.
      const monthPending = recurring && !invoiced && !(sub.activated_at && isoDate(sub.activated_at) > billingDateFor(month, sub));

      let effective: string;
      if (monthPending) {
        if (billingDay <= dayOf(today)) {
          throw new AppError(
            409,
            'conflict',
            `${monthLabel(month)} is not invoiced yet and billing day ${billingDay} is today or has already passed; choose a day after ${dayOf(today)} or change it once this month is invoiced`,
          );
        }
        effective = month;
      } else {
        // Invoiced already (or nothing to invoice this month): the new day applies from next month.
        effective = nextMonth(month);
      }
      const previous = billingDayFor(month, sub);
      const unchanged = sub.billing_day === billingDay && sub.billing_day_effective_from === effective;
      if (!unchanged) {
        await setBillingDay(trx, sub.id, { billingDay, effectiveFrom: effective, previous }, now);
      }
      return {
        subscription_id: sub.id,
        billing_day: billingDay,
        effective_period: effective,
        next_send_date: recurring ? dayOfMonth(effective, billingDay) : null,
      };
    });

    if (result.next_send_date) {
      try {
        await adapters.billingSystem.rescheduleNextInvoice({ subscriptionId: result.subscription_id, sendDate: result.next_send_date });
      } catch (err) {
        if (!(err instanceof AdapterError)) throw err;
        log.warn({ subscription_id: result.subscription_id, err: err.message }, 'billing day saved; next invoice not rescheduled');
        throw dependencyFailed(RESCHEDULE_FAILED);
      }
    }
    return result;
  }
  return { changeBillingDay };
}
