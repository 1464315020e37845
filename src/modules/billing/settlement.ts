// What follows when an invoice is paid: the first invoice activates an installed subscription,
// and paying the last overdue invoice lifts a non-payment suspension.
import type { Deps } from '../../container.js';
import { isoDate } from '../../lib/dates.js';
import * as repo from './billing.repository.js';

export interface PaymentRecord {
  method: 'card' | 'payment_link' | 'bank_transfer';
  paymentIntentId?: string | null;
  reference?: string | null;
}

export type SettlementDeps = Pick<Deps, 'clock' | 'jobs'>;

/**
 * Marks an open invoice paid inside the caller's transaction and applies its consequences.
 * Returns false when the invoice was no longer open (paid by a concurrent payment): nothing changed.
 */
export async function markInvoicePaid(trx: repo.Trx, deps: SettlementDeps, invoiceId: string, p: PaymentRecord): Promise<{ paid: boolean; activated: boolean; restored: boolean }> {
  const now = deps.clock.now();
  const inv = await trx.updateTable('invoices')
    .set({ status: 'paid', paid_at: now, payment_method: p.method, payment_intent_id: p.paymentIntentId ?? null, payment_reference: p.reference ?? null })
    .where('id', '=', invoiceId).where('status', '=', 'open')
    .returning(['id', 'kind', 'subscription_id'])
    .executeTakeFirst();
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

/** PENDING_INSTALL → ACTIVE once the first payment is settled (or nothing is owed). */
export async function activateInstalled(trx: repo.Trx, deps: Pick<Deps, 'clock'>, subscriptionId: string): Promise<boolean> {
  const now = deps.clock.now();
  const r = await trx.updateTable('subscriptions')
    .set({ status: 'ACTIVE', activated_at: now, updated_at: now })
    .where('id', '=', subscriptionId).where('status', '=', 'PENDING_INSTALL')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** SUSPENDED (non_payment) → ACTIVE, and the port is provisioned again by the provisioning job. */
export async function restoreAfterPayment(trx: repo.Trx, deps: SettlementDeps, subscriptionId: string): Promise<void> {
  const now = deps.clock.now();
  const r = await trx.updateTable('subscriptions')
    .set({ status: 'ACTIVE', suspended_reason: null, updated_at: now })
    .where('id', '=', subscriptionId).where('status', '=', 'SUSPENDED').where('suspended_reason', '=', 'non_payment')
    .returning(['provider_id'])
    .executeTakeFirst();
  if (!r) return;
  await deps.jobs.enqueue(trx, {
    kind: 'provisioning.port',
    payload: { subscription_id: subscriptionId, reason: 'restore' },
    providerId: r.provider_id,
    subscriptionId,
    dedupeKey: `provisioning.port:restore:${subscriptionId}:${now.getTime()}`,
  });
}
