import { newId } from '../lib/ids.js';
import type { Builder, CustomerRef, PlanRef, SubStatus } from './builder.js';
import { personName } from './people.js';
import { present } from '../lib/present.js';
import type { BuiltBuilding } from './places.js';

/**
 * Everyday customers filling a building's units (those not reserved for the named cases), so the
 * demo has search noise, a year of invoices, usage and connection history to page through.
 */
export function addVolumeCustomers(
  b: Builder,
  o: {
    providerId: string;
    building: BuiltBuilding;
    reserved: Set<string>;
    plans: PlanRef[];
    occupancy: number;
    forceFirstActive?: boolean;
  },
): CustomerRef[] {
  const { rng } = b;
  const refs: CustomerRef[] = [];
  const spec = o.building.spec;
  const plan0 = present(o.plans[0], 'a plan for volume customers');
  const plan1 = present(o.plans[1], 'a second plan for volume customers');
  const firstLine = spec.lineType === 'first_line';
  for (const unit of o.building.units) {
    if (o.reserved.has(unit.id) || !rng.chance(o.occupancy)) continue;
    const roll = rng.next();
    let status: SubStatus = roll < 0.86 ? 'ACTIVE' : roll < 0.91 ? 'SUSPENDED' : roll < 0.96 ? 'CANCELLED' : 'PENDING_INSTALL';
    if (firstLine && status === 'PENDING_INSTALL') status = 'ACTIVE';
    if (o.forceFirstActive && refs.length === 0) status = 'ACTIVE';
    const { first, last } = personName(rng, spec.country);
    // Suspended and cancelled volume customers are provider-billed: a suspension by the provider
    // belongs there (service billing suspends by itself), and nothing is left for the billing run.
    const serviceBilled = (status === 'ACTIVE' || status === 'PENDING_INSTALL') && rng.chance(0.65);
    const ref = b.customer({
      providerId: o.providerId,
      first,
      last,
      country: spec.country,
      building: o.building,
      unit,
      plan: rng.pick([plan0, plan0, plan1, plan1, o.plans[2] ?? plan0]),
      status,
      serviceBilled,
      activatedAt: new Date(b.now.getTime() - rng.int(40, 720) * 86_400_000 - rng.int(0, 86_399) * 1000),
      card: rng.chance(0.5),
      operatorNotes: rng.chance(0.1)
        ? rng.pick([
            'internal: prefers calls after 18:00',
            'internal: router replaced under warranty',
            'internal: disputed a late fee once',
          ])
        : null,
      currentMonth: rng.chance(0.7) ? 'open' : 'paid',
      modem:
        status === 'ACTIVE'
          ? rng.chance(0.85)
            ? 'online'
            : rng.chance(0.6)
              ? 'degraded'
              : 'offline'
          : status === 'SUSPENDED'
            ? 'offline'
            : null,
    });
    if (status !== 'PENDING_INSTALL' && status !== 'CANCELLED') b.statusEvents(ref, rng.int(0, 3), rng.chance(0.02));
    if (status === 'PENDING_INSTALL') {
      const technician = spec.lineType === 'third_line' || spec.lineType === null;
      b.rows.install_jobs.push({
        id: newId(),
        provider_id: o.providerId,
        subscription_id: ref.subscription_id,
        unit_id: unit.id,
        kind: technician ? 'technician_visit' : 'cpe_shipment',
        status: technician ? rng.pick(['CREATED', 'BOOKING_SENT', 'BOOKED']) : rng.pick(['CREATED', 'SHIPPED']),
        created_at: new Date(b.now.getTime() - rng.int(2, 20) * 86_400_000),
      });
    }
    refs.push(ref);
  }
  return refs;
}
