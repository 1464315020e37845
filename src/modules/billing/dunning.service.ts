// Automatic suspension on non-payment: a service-billed ACTIVE subscription with an invoice still
// open more than the provider's payment_grace_days after its due date is SUSPENDED (reason
// non_payment) and its port is put behind the captive portal. Paying lifts it (settlement.ts).
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { isoDate } from '../../lib/dates.js';
import { suspendForNonPayment } from '../subscriptions/index.js';
import * as repo from './billing.repository.js';

export interface DunningDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  log: FastifyBaseLogger;
}

export function createDunningService(deps: DunningDeps) {
  const { db, clock, log } = deps;

  async function suspendIfOverdue(subscriptionId: string, today: string): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const sub = await repo.lockSubscriptionForBilling(trx, subscriptionId);
      if (!sub || sub.status !== 'ACTIVE' || !sub.service_billed) return false;
      if (!(await repo.hasOverdueInvoice(trx, sub.id, today, sub.payment_grace_days))) return false;
      const now = clock.now();
      await suspendForNonPayment(trx, sub.id, now);
      await deps.jobs.enqueue(trx, {
        kind: 'billing.captive_portal',
        payload: { subscription_id: sub.id, operation_key: `captive:non_payment:${sub.id}:${now.getTime()}` },
        providerId: sub.provider_id,
        subscriptionId: sub.id,
      });
      return true;
    });
  }

  /** Suspends every subscription overdue on `date` (default today, UTC). */
  async function runDunning(date?: string) {
    const today = date ?? isoDate(clock.now());
    const rows = await repo.overdueSubscriptions(db, today);
    const ids = [...new Set(rows.map((r) => r.subscription_id))];
    let suspended = 0;
    let failed = 0;
    for (const id of ids) {
      try {
        if (await suspendIfOverdue(id, today)) suspended++;
      } catch (err) {
        failed++;
        log.error({ err, subscription_id: id }, 'dunning: suspension failed');
      }
    }
    if (suspended) log.info({ date: today, suspended }, 'dunning: subscriptions suspended for non-payment');
    return { date: today, suspended, failed, subscription_ids: ids };
  }

  return { runDunning, suspendIfOverdue };
}

export type DunningService = ReturnType<typeof createDunningService>;
