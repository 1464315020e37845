// What follows when an invoice is paid: the first invoice activates an installed subscription,
// and paying the last overdue invoice lifts a non-payment suspension.
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { isoDate } from '../../lib/dates.js';
import { markInvoicePaidIfOpen } from '../invoices/index.js';
import * as repo from './billing.repository.js';
import { activateIfPendingInstall, enqueuePortJob, restoreIfSuspendedForNonPayment } from '../subscriptions/index.js';

export interface PaymentRecord {
  method: 'card' | 'payment_link' | 'bank_transfer';
  paymentIntentId?: string | null;
  reference?: string | null;
}

export interface SettlementDeps {
  clock: Clock;
  jobs: JobQueue;
}

/**
 * Marks an open invoice paid inside the caller's transaction and applies its consequences.
 * Returns false when the invoice was no longer open (paid by a concurrent payment): nothing changed.
 */
export async function markInvoicePaid(
  trx: repo.Trx,
  deps: SettlementDeps,
  invoiceId: string,
  p: PaymentRecord,
): Promise<{ paid: boolean; activated: boolean; restored: boolean }> {
  const now = deps.clock.now();
  const inv = await markInvoicePaidIfOpen(trx, invoiceId, {
    paidAt: now,
    method: p.method,
    paymentIntentId: p.paymentIntentId ?? null,
    reference: p.reference ?? null,
  });
  if (!inv) return { paid: false, activated: false, restored: false };
  if (!inv.subscription_id) return { paid: true, activated: false, restored: false };
  const sub = await repo.lockSubscriptionForBilling(trx, inv.subscription_id);
  if (!sub) return { paid: true, activated: false, restored: false };

  if (inv.kind === 'first' && sub.status === 'PENDING_INSTALL') {
    await activateInstalled(trx, deps, sub.id);
    return { paid: true, activated: true, restored: false };
  }
  if (sub.status === 'SUSPENDED' && sub.suspended_reason === 'non_payment') {
    const stillOverdue = await repo.hasOverdueInvoice(trx, sub.id, isoDate(now), sub.payment_grace_days);
    if (!stillOverdue) {
      await restoreAfterPayment(trx, deps, sub.id);
      return { paid: true, activated: false, restored: true };
    }
  }
  return { paid: true, activated: false, restored: false };
}

/**
 * PENDING_INSTALL → ACTIVE once the first payment is settled (or nothing is owed), and the port of
 * the installed unit is provisioned by a `provisioning.port` job queued in the same transaction:
 * the port follows the activation, so a subscription is connected exactly when it is paid for.
 * Returns the port job's id, or null when the subscription was not PENDING_INSTALL (nothing changed).
 */
export async function activateInstalled(
  trx: repo.Trx,
  deps: SettlementDeps,
  subscriptionId: string,
): Promise<{ portJobId: string | null } | null> {
  const now = deps.clock.now();
  const r = await activateIfPendingInstall(trx, subscriptionId, now);
  if (!r) return null;
  // Confirm-install attaches the port before it activates; without one there is nothing to provision.
  if (!r.location_id) return { portJobId: null };
  const job = await enqueuePortJob(trx, deps.jobs, { subscriptionId, providerId: r.provider_id, reason: 'install' });
  return { portJobId: job.id };
}

/** SUSPENDED (non_payment) → ACTIVE, and the port is provisioned again by the provisioning job. */
async function restoreAfterPayment(trx: repo.Trx, deps: SettlementDeps, subscriptionId: string): Promise<void> {
  const now = deps.clock.now();
  const r = await restoreIfSuspendedForNonPayment(trx, subscriptionId, now);
  if (!r || !r.location_id) return;
  await enqueuePortJob(trx, deps.jobs, { subscriptionId, providerId: r.provider_id, reason: 'restore' });
}
