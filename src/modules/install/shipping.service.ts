// The SHIPPED step of an install job (issue 28 §2): staff (sp_admin or support of the provider, or a
// platform admin) and the operator CLI mark the equipment shipped with its carrier and tracking
// reference; the subscriber is mailed the reference (a mail job in the same transaction).
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { mailBrand } from '../../mail/templates.js';
import { shipmentMail } from '../../mail/shipment.js';
import { timeZoneOr } from '../../lib/zoned-time.js';
import type { UserPrincipal } from '../auth/index.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { installAddressLine } from './booking-address.js';
import * as repo from './install.repository.js';

interface ShippingDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
}

/**
 * The states from which equipment may be shipped (docs/decisions.md, "Install shipment"): CREATED (no
 * booking link: second-line CPE shipments and technician visits without a link) and BOOKED (a third-line
 * appointment exists). Not while the invitation is held or no window is booked (shipping would close the
 * booking link), nor after SHIPPED (a repeat with the same carrier and reference is a replay), COMPLETED
 * or CANCELLED.
 */
const SHIPPABLE_STATES: readonly repo.InstallStatus[] = ['CREATED', 'BOOKED'];

/** Staff sub-roles that may mark a shipment (a provider admin without a sub-role counts as sp_admin). */
const SHIPPING_STAFF = new Set<string | null>(['sp_admin', 'support', null]);

export interface ShipInput {
  subscriptionId: string;
  carrier: string;
  trackingReference: string;
  /** The caller's provider; null for a platform admin or the operator CLI (any provider). */
  providerId: string | null;
  actor: Actor;
  requestId?: string | null;
}

export interface ShipResult {
  subscription_id: string;
  install_job_id: string;
  status: 'SHIPPED';
  kind: 'technician_visit' | 'cpe_shipment';
  carrier: string;
  tracking_reference: string;
  shipped_at: string;
  /** False on a replay (already shipped with the same carrier and reference): no second mail. */
  mailed: boolean;
}

const notFound = () => new AppError(404, 'not_found', 'Subscription not found');

export function createShippingService(deps: ShippingDeps) {
  const { db, clock } = deps;

  /** Marks the install job of `subscriptionId` SHIPPED and mails the subscriber; the CLI's `install ship` calls this. */
  async function ship(i: ShipInput): Promise<ShipResult> {
    const carrier = i.carrier.trim();
    const trackingReference = i.trackingReference.trim();
    if (!carrier || !trackingReference) throw new AppError(422, 'validation_error', 'carrier and tracking_reference must not be blank');
    // The route's schema checks these too; the operator CLI relies on these lines.
    if (carrier.length > 100 || trackingReference.length > 100)
      throw new AppError(422, 'validation_error', 'carrier and tracking_reference must be at most 100 characters');
    if (!isUuid(i.subscriptionId)) throw new AppError(422, 'validation_error', 'subscription_id: Invalid UUID');
    return db.transaction().execute(async (trx) => {
      const now = clock.now();
      const job = await repo.lockShipmentTarget(trx, i.subscriptionId);
      if (!job || (i.providerId !== null && job.provider_id !== i.providerId)) throw notFound();
      const kind = job.kind as ShipResult['kind'];
      const result = (at: Date, mailed: boolean): ShipResult => ({
        subscription_id: i.subscriptionId,
        install_job_id: job.id,
        status: 'SHIPPED',
        kind,
        carrier,
        tracking_reference: trackingReference,
        shipped_at: at.toISOString(),
        mailed,
      });
      if (job.status === 'SHIPPED' && job.carrier === carrier && job.tracking_reference === trackingReference) {
        return result(new Date(job.shipped_at!), false);
      }
      if (job.subscription_status !== 'PENDING_INSTALL' || !SHIPPABLE_STATES.includes(job.status as repo.InstallStatus)) {
        throw new AppError(
          409,
          'conflict',
          `Install job is ${job.status} (subscription ${job.subscription_status}); equipment can be shipped only from ` +
            `${SHIPPABLE_STATES.join(' or ')} while the subscription is PENDING_INSTALL`,
        );
      }
      await repo.markShipped(trx, job.id, { carrier, trackingReference, at: now });
      const ctx = await repo.findBookingContext(trx, job.id);
      if (ctx) {
        const zone = timeZoneOr(ctx.time_zone);
        const address = installAddressLine(ctx);
        const content = shipmentMail(
          {
            brand: mailBrand({ name: ctx.provider_name, support_email: ctx.support_email, branding: ctx.branding }),
            baseUrl: deps.config.publicBaseUrl,
          },
          {
            firstName: ctx.first_name,
            kind,
            carrier,
            trackingReference,
            address,
            appointment:
              ctx.booking_starts_at && ctx.booking_ends_at
                ? { startsAt: new Date(ctx.booking_starts_at), endsAt: new Date(ctx.booking_ends_at), timeZone: zone }
                : null,
          },
        );
        await deps.mailer.enqueue(trx, { to: ctx.email, ...content });
      }
      await recordAudit(trx, {
        ...i.actor,
        providerId: job.provider_id,
        action: 'install.ship',
        entityType: 'subscription',
        entityId: i.subscriptionId,
        before: { install_status: job.status },
        after: { install_status: 'SHIPPED', carrier, tracking_reference: trackingReference },
        requestId: i.requestId ?? null,
        at: now,
      });
      return result(now, true);
    });
  }

  /** The partner route: provider staff with sub-role sp_admin or support (own provider), or a platform admin. */
  async function shipAsStaff(
    user: UserPrincipal,
    input: { subscriptionId: string; carrier: string; trackingReference: string },
    ctx: { actor: Actor; requestId?: string | null },
  ) {
    if (user.role === 'platform_admin') return ship({ ...input, providerId: null, ...ctx });
    if (user.role !== 'service_provider' || !user.providerId || !SHIPPING_STAFF.has(user.spRole)) {
      throw new AppError(403, 'forbidden', 'Only provider staff with the sp_admin or support role mark equipment shipped');
    }
    return ship({ ...input, providerId: user.providerId, ...ctx });
  }

  return { ship, shipAsStaff };
}

export type ShippingService = ReturnType<typeof createShippingService>;
