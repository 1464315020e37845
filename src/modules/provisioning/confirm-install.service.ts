import { AppError, isUniqueViolation } from '../../lib/errors.js';
import type { UserPrincipal } from '../auth/index.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { collectFirstPayment, type CollectionDeps } from '../billing/index.js';
import { lockInstallJobOfSubscription, updateInstallJob } from '../install/index.js';
import { attachPort, findOccupant } from '../subscriptions/index.js';
import { isoDate } from '../../lib/dates.js';
import * as repo from './provisioning.repository.js';

/** Confirming an installation collects the first payment (collectFirstPayment): what collection takes, nothing more. */
type ConfirmDeps = CollectionDeps;

const notFound = () => new AppError(404, 'not_found', 'Subscription not found');
const portHeld = () =>
  new AppError(
    409,
    'conflict',
    "The unit's port is held by another subscription (pending, active, suspended, or cancelled and not yet ended)",
  );

/**
 * Staff confirm an installation (install job SHIPPED). In one transaction: the install job is
 * COMPLETED, the unit's port is attached to the subscription, and the first payment is set up by
 * the billing module — a provider-billed subscription is ACTIVE at once; a service-billed one gets
 * its first invoice, and the saved card is charged (or a payment link mailed) by the durable
 * `billing.collect` job right after commit; it becomes ACTIVE when that payment succeeds.
 * The port follows the activation: the `provisioning.port` job (reason `install`, no webhook) is
 * queued by the transaction that makes the subscription ACTIVE (this one when nothing is owed,
 * else the payment's), so a subscription still waiting for its payment is never connected and the
 * job never meets a PENDING_INSTALL subscription.
 */
export function createConfirmInstallService(deps: ConfirmDeps) {
  const { db, clock } = deps;

  async function confirm(user: UserPrincipal, subscriptionId: string, ctx: { actor: Actor; requestId?: string | null }) {
    try {
      return await db.transaction().execute(async (trx) => {
        const now = clock.now();
        const sub = await repo.lockSubscription(trx, subscriptionId);
        if (!sub) throw notFound();
        // Staff act for their own provider only; a platform admin for any.
        if (user.role !== 'platform_admin' && sub.provider_id !== user.providerId) throw notFound();
        if (sub.status !== 'PENDING_INSTALL') {
          throw new AppError(409, 'conflict', `Subscription is ${sub.status}; only a PENDING_INSTALL subscription can be confirmed`);
        }
        const install = await lockInstallJobOfSubscription(trx, sub.id);
        if (!install || install.status !== 'SHIPPED') {
          throw new AppError(
            409,
            'conflict',
            `Install job is ${install?.status ?? 'missing'}; it must be SHIPPED to confirm the installation`,
          );
        }
        const current = sub.location_id ? await repo.findLocationById(trx, sub.location_id) : undefined;
        const port = current?.switch_port
          ? { id: current.id }
          : sub.unit_id
            ? await repo.findPortLocationOfUnit(trx, sub.unit_id)
            : undefined;
        if (!port)
          throw new AppError(409, 'conflict', 'No switch port is registered for the unit; register the installed port before confirming');
        // A cancelled subscription keeps the port until its ended_at: never provision over it.
        if (await findOccupant(trx, { locationId: port.id, today: isoDate(now), exceptId: sub.id })) throw portHeld();

        await updateInstallJob(trx, install.id, { status: 'COMPLETED', at: now });
        await attachPort(trx, sub.id, port.id, now);
        const payment = await collectFirstPayment(deps, sub.id, { trx });
        const jobId = payment.portJobId;
        await recordAudit(trx, {
          ...ctx.actor,
          providerId: sub.provider_id,
          action: 'subscription.confirm_install',
          entityType: 'subscription',
          entityId: sub.id,
          before: { status: sub.status, install_status: install.status },
          after: {
            status: payment.activated ? 'ACTIVE' : 'PENDING_INSTALL',
            install_status: 'COMPLETED',
            location_id: port.id,
            job_id: jobId,
            payment: payment.outcome,
          },
          requestId: ctx.requestId ?? null,
          at: now,
        });
        const paymentOutcome =
          payment.outcome === 'queued'
            ? ('collecting' as const)
            : payment.outcome === 'already_paid'
              ? ('already_paid' as const)
              : ('not_billed' as const);
        return {
          subscription_id: sub.id,
          status: payment.activated ? ('ACTIVE' as const) : ('PENDING_INSTALL' as const),
          job_id: jobId,
          payment: paymentOutcome,
          message: payment.activated
            ? 'Installation confirmed; the subscription is ACTIVE and its port is being provisioned'
            : 'Installation confirmed; the first payment is being collected (saved card, else an emailed payment link); the subscription becomes ACTIVE and its port is provisioned when it is paid',
        };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'subscriptions_location_occupied_key')) {
        throw portHeld();
      }
      throw err;
    }
  }

  return { confirm };
}
