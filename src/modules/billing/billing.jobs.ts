import { PermanentJobError } from '../../jobs/types.js';
import { isUuid } from '../../lib/ids.js';
import type { Scheduler } from '../../jobs/scheduler.js';
import { findSubscription } from '../subscriptions/index.js';
import type { BillingRunService } from './billing-run.service.js';
import { collectInvoice, type CollectionDeps } from './collection.js';
import type { DunningService } from './dunning.service.js';

const BILLING_JOB_KINDS = {
  /** Daily: invoices every service-billed subscription whose billing day of the month has come. */
  monthly: 'billing.monthly',
  /** Daily: suspends subscriptions with an invoice open past due date + payment_grace_days. */
  dunning: 'billing.dunning',
  /** Per invoice: charge the saved card, else email a payment link. */
  collect: 'billing.collect',
  /** Per non-payment suspension: put the port behind the captive portal. */
  captivePortal: 'billing.captive_portal',
} as const;

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function runDate(payload: Record<string, unknown>): string | undefined {
  const d = payload.date;
  if (d === undefined) return undefined;
  if (typeof d !== 'string' || !DATE_RE.test(d)) throw new PermanentJobError('payload.date must be YYYY-MM-DD');
  return d;
}

const DAY_MS = 86_400_000;

export interface BillingJobsDeps extends CollectionDeps {
  scheduler: Scheduler;
  billingRun: BillingRunService;
  dunning: DunningService;
}

/**
 * Handlers of the billing job kinds, and the two daily runs on the scheduler: `billing.monthly`
 * at 00:05 UTC and `billing.dunning` at 01:00 UTC. Both are catch-up safe: a run bills every
 * subscription whose billing day of the month has come and that is not invoiced yet, so a missed
 * day is made up by the next run; running twice never bills twice.
 */
export function registerBillingJobs(deps: BillingJobsDeps) {
  const { billingRun: run, dunning } = deps;
  deps.scheduler.every(BILLING_JOB_KINDS.monthly, DAY_MS, {}, { offsetMs: 5 * 60_000, maxAttempts: 3 });
  deps.scheduler.every(BILLING_JOB_KINDS.dunning, DAY_MS, {}, { offsetMs: 60 * 60_000, maxAttempts: 3 });

  deps.jobs.register(BILLING_JOB_KINDS.monthly, {
    run: (job) => run.runMonthly(runDate(job.payload)),
  });

  deps.jobs.register(BILLING_JOB_KINDS.dunning, {
    run: (job) => dunning.runDunning(runDate(job.payload)),
  });

  deps.jobs.register(BILLING_JOB_KINDS.collect, {
    async run(job) {
      const id = job.payload.invoice_id;
      if (typeof id !== 'string' || !isUuid(id)) throw new PermanentJobError('payload.invoice_id must be a UUID');
      return collectInvoice(deps, id);
    },
  });

  deps.jobs.register(BILLING_JOB_KINDS.captivePortal, {
    async run(job) {
      const id = job.payload.subscription_id;
      const key = job.payload.operation_key;
      if (typeof id !== 'string' || !isUuid(id) || typeof key !== 'string')
        throw new PermanentJobError('payload needs subscription_id and operation_key');
      const sub = await findSubscription(deps.db, id);
      // Paid (and restored) before the job ran: the port must stay as it is.
      if (!sub || sub.status !== 'SUSPENDED' || sub.suspended_reason !== 'non_payment') return { skipped: 'no_longer_suspended' };
      if (!sub.location_id) return { skipped: 'no_port' };
      await deps.adapters.switchController.setCaptivePortal({ operationKey: key, locationId: sub.location_id });
      return { captive_portal: true };
    },
  });
}
