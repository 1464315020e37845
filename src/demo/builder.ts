import { addDays, addMonths, daysInMonth, isoDate, monthStart } from '../lib/dates.js';
import { newId, randomAlnum } from '../lib/ids.js';
import { createBillingHistory, historyStart } from './billing-history.js';
import type { CustomerRef, CustomerSpec } from './customer.js';
import { createUniques } from './people.js';
import { locationRow, type BuiltBuilding } from './places.js';
import type { Rng } from './random.js';
import { emptyRows } from './rows.js';

export type { CustomerRef, CustomerSpec, PlanRef, SubStatus } from './customer.js';

/** Collects the rows of the whole dataset in memory; seed.ts inserts them in one transaction. */
export function createBuilder(now: Date, rng: Rng) {
  const rows = emptyRows();
  const uniq = createUniques(rng);
  const today = isoDate(now);
  const currentMonth = monthStart(now);
  let portSeq = 0;
  const never = <T>(d: T): T => (d > now ? now : d) as T;
  const billing = createBillingHistory({ rows, rng, now });

  /** Adds a row to one of `rows`' lists under a new id, and returns the id. */
  function add<R extends { id?: string }>(list: R[], row: Omit<R, 'id'>): string {
    const id = newId();
    list.push({ ...row, id } as R);
    return id;
  }

  function port(providerId: string, building: BuiltBuilding, unitId: string | null) {
    const row = locationRow(providerId, building.id, unitId, portSeq++);
    rows.locations.push(row);
    return row;
  }

  function usage(c: CustomerRef) {
    const s = c.spec;
    const first = historyStart(currentMonth, s.activatedAt);
    const gbScale = 0.15 + s.plan.down / 1000;
    for (let m = first; m <= currentMonth; m = addMonths(m, 1)) {
      const share = m === currentMonth ? now.getUTCDate() / daysInMonth(now) : 1;
      const down = Math.round(rng.int(120, 700) * gbScale * share * 1e9);
      rows.usage_monthly.push({
        subscription_id: c.subscription_id,
        month: m,
        download_bytes: down,
        upload_bytes: Math.round(down * (0.08 + rng.next() * 0.2)),
      });
    }
  }

  function statusEvents(c: CustomerRef, count: number, ongoing = false) {
    for (let i = 0; i < count; i++) {
      const start = never(new Date(now.getTime() - rng.int(2, 330) * 86_400_000 - rng.int(0, 23) * 3_600_000));
      const kind = rng.pick(['outage', 'degraded', 'maintenance'] as const);
      rows.status_events.push({
        id: newId(),
        subscriber_id: c.id,
        subscription_id: c.subscription_id,
        kind,
        description: {
          outage: 'Loss of connectivity in the building',
          degraded: 'Reduced throughput on the uplink',
          maintenance: 'Planned switch maintenance',
        }[kind],
        started_at: start,
        resolved_at: new Date(start.getTime() + rng.int(20, 240) * 60_000),
      });
    }
    if (ongoing) {
      rows.status_events.push({
        id: newId(),
        subscriber_id: c.id,
        subscription_id: c.subscription_id,
        kind: 'degraded',
        description: 'Reduced throughput on the uplink',
        started_at: new Date(now.getTime() - 95 * 60_000),
        resolved_at: null,
      });
    }
  }

  function customer(s: CustomerSpec): CustomerRef {
    const subscriberId = s.ids?.subscriber ?? newId();
    const subscriptionId = s.ids?.subscription ?? newId();
    const phone = s.phone ? uniq.fixedPhone(s.phone, s.country) : uniq.phone(s.country);
    const email = s.email ?? uniq.email(s.first, s.last);
    const number = uniq.customerNumber();
    const b = s.building.spec;
    const created = new Date(s.activatedAt.getTime() - rng.int(3, 20) * 86_400_000);
    // Every customer's unit has its switch port registered; PENDING_INSTALL is attached to it at installation.
    const loc = port(s.providerId, s.building, s.unit.id);
    const bDay = s.billingDay ?? billing.billingDay();
    rows.subscribers.push({
      id: subscriberId,
      provider_id: s.providerId,
      user_id: s.userId ?? null,
      customer_number: number,
      first_name: s.first,
      last_name: s.last,
      email,
      phone: phone.phone,
      phone_e164: phone.phone_e164,
      invoice_first_name: s.first,
      invoice_last_name: s.last,
      invoice_email: email,
      invoice_phone: phone.phone,
      invoice_phone_e164: phone.phone_e164,
      invoice_street: b.street,
      invoice_house_number: b.houseNumber,
      invoice_postal_code: b.postalCode,
      invoice_city: b.city,
      invoice_country: b.country,
      operator_notes: s.operatorNotes ?? null,
      processor_customer_id: s.card ? `cus_${randomAlnum(14)}` : null,
      card_payment_method_id: s.card ? `pm_${randomAlnum(24)}` : null,
      card_brand: s.card ? rng.pick(['visa', 'mastercard']) : null,
      card_last4: s.card ? String(rng.int(1000, 9999)) : null,
      card_exp_month: s.card ? rng.int(1, 12) : null,
      card_exp_year: s.card ? now.getUTCFullYear() + rng.int(1, 4) : null,
      created_at: created,
      updated_at: created,
    });
    const occupiesPort = s.status === 'ACTIVE' || s.status === 'SUSPENDED';
    rows.subscriptions.push({
      id: subscriptionId,
      provider_id: s.providerId,
      subscriber_id: subscriberId,
      plan_version_id: s.plan.id,
      building_id: s.building.id,
      unit_id: s.unit.id,
      location_id: s.status !== 'PENDING_INSTALL' ? loc.id : null,
      status: s.status,
      service_billed: s.serviceBilled,
      billing_day: bDay,
      origin: 'seed',
      mac_address: occupiesPort ? macAddress() : null,
      suspended_reason: s.status === 'SUSPENDED' ? 'provider' : null,
      activated_at: s.status === 'PENDING_INSTALL' ? null : s.activatedAt,
      canceled_at: s.status === 'CANCELLED' ? new Date(now.getTime() - rng.int(20, 90) * 86_400_000) : null,
      ended_at: s.status === 'CANCELLED' ? addDays(today, -rng.int(1, 15)) : null,
      port_reset_at: s.status === 'CANCELLED' ? new Date(now.getTime() - 86_400_000) : null,
      created_at: created,
      updated_at: created,
    });
    const ref: CustomerRef = {
      id: subscriberId,
      customer_number: number,
      email,
      name: `${s.first} ${s.last}`,
      first_name: s.first,
      last_name: s.last,
      phone: phone.phone,
      subscription_id: subscriptionId,
      unit_id: s.unit.id,
      unit_label: s.unit.label,
      location_hash: loc.location_hash,
      billing_day: bDay,
      spec: s,
    };
    if (occupiesPort) {
      rows.sim_switch_ports.push({
        location_id: loc.id,
        mode: s.status === 'ACTIVE' ? 'provisioned' : 'captive_portal',
        vlan_id: loc.vlan_id ?? null,
        download_mbps: s.status === 'ACTIVE' ? s.plan.down : null,
        upload_mbps: s.status === 'ACTIVE' ? s.plan.up : null,
        operations: 1,
      });
    }
    if (s.serviceBilled && s.status !== 'PENDING_INSTALL' && s.status !== 'CANCELLED') billing.billingHistory(ref);
    if (s.status !== 'PENDING_INSTALL') usage(ref);
    if (s.modem) {
      rows.modem_status.push({
        subscription_id: subscriptionId,
        state: s.modem,
        last_seen_at:
          s.modem === 'offline' ? new Date(now.getTime() - rng.int(2, 48) * 3_600_000) : new Date(now.getTime() - rng.int(10, 300) * 1000),
        signal_dbm: (-(12 + rng.next() * 14)).toFixed(2),
        uptime_seconds: s.modem === 'offline' ? 0 : rng.int(3_600, 40 * 86_400),
        firmware: rng.pick(['4.2.1', '4.2.3', '4.3.0']),
        updated_at: now,
      });
    }
    return ref;
  }

  function macAddress() {
    return Array.from({ length: 6 }, (_, i) => (i === 0 ? 0x02 : rng.int(0, 255)).toString(16).padStart(2, '0').toUpperCase()).join(':');
  }

  return {
    rows,
    uniq,
    now,
    today,
    currentMonth,
    rng,
    add,
    port,
    customer,
    statusEvents,
    creditNote: billing.creditNote,
    invoiceOf: billing.invoiceOf,
  };
}

export type Builder = ReturnType<typeof createBuilder>;
