import { addMonths } from '../lib/dates.js';
import { DEMO_FIXED_IDS } from './fixed-ids.js';
import { calendarPosition, proratedDifferenceCents } from '../modules/plan-change/index.js';
import { createBuilder, type CustomerRef, type CustomerSpec } from './builder.js';
import type { DemoBuilding, DemoCustomer, DemoDocument } from './document.js';
import {
  MAIN_BUILDINGS,
  OTHER_BUILDING,
  LOOSE_COVERAGE,
  buildingRows,
  coverageRow,
  REGION_TIME_ZONES,
  type BuiltBuilding,
} from './places.js';
import { ALL_FEATURES, addPlan, addProvider, addUser } from './providers.js';
import { seededRng } from './random.js';
import { addVolumeCustomers } from './volume.js';
import { present } from '../lib/present.js';

export interface DatasetOptions {
  now: Date;
  baseUrl: string;
  externalCheckoutUrl: string;
  webhookUrl: string | null;
  /** Share of free units the volume customers take (0 leaves only the named cases). */
  occupancy?: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Builds every row of the demo and the document describing it; nothing touches the database here. */
export async function buildDemoDataset(o: DatasetOptions) {
  const b = createBuilder(o.now, seededRng(20261122));
  const { now, currentMonth } = b;
  const occupancy = o.occupancy ?? 0.8;

  // Providers ---------------------------------------------------------------------------------
  const main = addProvider(b, {
    slug: 'nordlicht-fibre',
    name: 'Nordlicht Fibre',
    features: ALL_FEATURES,
    cardProcessor: true,
    webhookUrl: o.webhookUrl,
    externalCheckoutUrl: o.externalCheckoutUrl,
  });
  const other = addProvider(b, {
    slug: 'kiez-net',
    name: 'Kiez Net',
    features: ALL_FEATURES,
    cardProcessor: true,
    externalCheckoutUrl: o.externalCheckoutUrl,
  });
  const noAgent = addProvider(b, {
    slug: 'storefront-only',
    name: 'Storefront Only GmbH',
    features: ['provisioning:write', 'serviceability:read'],
    externalCheckoutUrl: o.externalCheckoutUrl,
  });
  const disabled = addProvider(b, { slug: 'closed-account', name: 'Closed Account AG', features: ALL_FEATURES, disabled: true });

  const admin = await addUser(b, {
    email: 'admin@nordlicht-fibre.example',
    role: 'service_provider',
    spRole: 'sp_admin',
    providerId: main.id,
    first: 'Alex',
    last: 'Admin',
    withPassword: true,
  });
  const support = await addUser(b, {
    email: 'support@nordlicht-fibre.example',
    role: 'service_provider',
    spRole: 'support',
    providerId: main.id,
    first: 'Sam',
    last: 'Support',
    withPassword: true,
  });
  const platform = await addUser(b, {
    email: 'platform@netsvc.example',
    role: 'platform_admin',
    first: 'Pat',
    last: 'Platform',
    withPassword: true,
  });

  // Plans (ascending monthly price) ---------------------------------------------------------------
  const basic = addPlan(b, main.id, {
    name: 'Fibre Basic 100',
    priceCents: 2999,
    currency: 'EUR',
    down: 100,
    up: 20,
    storeProductId: 'nl-basic-100',
    id: DEMO_FIXED_IDS.plans.basic,
  });
  const fast = addPlan(b, main.id, {
    name: 'Fibre Fast 500',
    priceCents: 4499,
    currency: 'EUR',
    down: 500,
    up: 100,
    storeProductId: 'nl-fast-500',
    id: DEMO_FIXED_IDS.plans.fast,
  });
  const faster = addPlan(b, main.id, {
    name: 'Fibre Faster 1000',
    priceCents: 6999,
    currency: 'EUR',
    down: 1000,
    up: 300,
    storeProductId: 'nl-faster-1000',
    id: DEMO_FIXED_IDS.plans.faster,
  });
  const otherPlan = addPlan(b, other.id, {
    name: 'Kiez Fibre 300',
    priceCents: 3900,
    currency: 'EUR',
    down: 300,
    up: 60,
    storeProductId: 'kiez-300',
  });
  const mainPlans = [basic.ref, fast.ref, faster.ref];

  // Buildings and coverage -----------------------------------------------------------------------
  const built = new Map<string, BuiltBuilding>();
  for (const spec of MAIN_BUILDINGS) {
    const r = buildingRows(main.id, spec);
    b.rows.buildings.push(r.building);
    b.rows.units.push(...r.unitRows);
    b.rows.coverage_addresses.push(r.coverage);
    built.set(spec.key, r.built);
  }
  for (const a of LOOSE_COVERAGE) b.rows.coverage_addresses.push(coverageRow(main.id, null, a));
  const otherB = buildingRows(other.id, OTHER_BUILDING);
  b.rows.buildings.push(otherB.building);
  b.rows.units.push(...otherB.unitRows);
  b.rows.coverage_addresses.push(otherB.coverage);

  const first = built.get('first_line')!;
  const second = built.get('second_line')!;
  const reserved = new Set<string>();
  const take = (bl: BuiltBuilding, index: number) => {
    const u = present(bl.units[index], `unit ${index} of a demo building`);
    reserved.add(u.id);
    return u;
  };

  // first_line: unit 0 is free with a known port (the document's location_hash, the pending
  // session's port); unit 1 is free without a port (free_unit_id); units 2-4 are free with ports
  // (2 listed as a spare, 3 and 4 under the cancelled and expired sessions); unit 5 is free without
  // a port (the suite-only session); units 14-17 hold more spare ports, so walkthroughs and tests
  // can provision several lines (the document asks for at least five spares).
  const portAt = (i: number) => {
    const unit = take(first, i);
    return { unit, port: b.port(main.id, first, unit.id) };
  };
  const known = portAt(0);
  const firstFree = take(first, 1);
  const spare = [portAt(2), portAt(3), portAt(4)] as const;
  const suiteOnlyUnit = take(first, 5);
  const moreSpares = [14, 15, 16, 17].map(portAt);
  const lastUnit = (key: string) => {
    const bl = built.get(key)!;
    return take(bl, bl.units.length - 1); // the top floor's last unit stays free
  };
  const freeUnits = { second_line: lastUnit('second_line'), third_line: lastUnit('third_line'), unclassified: lastUnit('unclassified') };

  // Named customers ----------------------------------------------------------------------------
  const base = (
    firstName: string,
    last: string,
    phone: string,
    unit: BuiltBuilding['units'][number],
    extra: Partial<CustomerSpec>,
  ): CustomerSpec => ({
    providerId: main.id,
    first: firstName,
    last,
    phone,
    country: 'DE',
    building: first,
    unit,
    plan: fast.ref,
    status: 'ACTIVE',
    serviceBilled: true,
    activatedAt: new Date(now.getTime() - 400 * DAY),
    card: true,
    currentMonth: 'open',
    modem: 'online',
    ...extra,
  });

  const invoiced = b.customer(
    base('Helga', 'Brandt', '0151 24681357', take(first, 6), {
      operatorNotes: 'internal: asked twice about a static IP',
      ids: { subscriber: DEMO_FIXED_IDS.invoiced.customer, subscription: DEMO_FIXED_IDS.invoiced.subscription },
    }),
  );
  b.statusEvents(invoiced, 2);
  // not_invoiced and missing_invoice were activated today, after this month's billing date: the
  // monthly billing run leaves their month alone ("starts with the next month"), so cases (a) and
  // (c) survive the server's own daily run (which otherwise issues the missing invoice of case c).
  const todayStart = new Date(`${b.today}T00:00:00.000Z`);
  const activatedToday: Partial<CustomerSpec> = {
    billingDay: now.getUTCDate() === 1 ? 10 : 1,
    activatedAt: new Date(Math.max(todayStart.getTime(), now.getTime() - 3 * HOUR)),
  };
  const notInvoiced = b.customer(
    base('Otto', 'Nowak', '(030) 44556677', take(first, 7), { ...activatedToday, currentMonth: 'none', plan: basic.ref }),
  );
  const missingDoc = b.customer(base('Vera', 'Lindqvist', '+49 30 98765432', take(first, 8), { currentMonth: 'no_document' }));
  const missingInvoice = b.customer(
    base('Rainer', 'Kowalski', '0176-31415926', take(first, 9), { ...activatedToday, currentMonth: 'no_invoice' }),
  );
  const changedToday = b.customer(base('Petra', 'Ostermann', '0049 172 27182818', take(first, 10), {}));
  /** A customer with a portal login of its email, its password chosen (activated) or not yet. */
  const withLogin = async (
    firstName: string,
    last: string,
    phone: string,
    unit: BuiltBuilding['units'][number],
    email: string,
    withPassword: boolean,
    extra: Partial<CustomerSpec>,
  ) => {
    const user = await addUser(b, { email, role: 'subscriber', first: firstName, last, withPassword });
    return { user, customer: b.customer(base(firstName, last, phone, unit, { email, userId: user.id, ...extra })) };
  };
  const { customer: activated, user: activatedUser } = await withLogin(
    'Sabine',
    'Adler',
    '+49 (0)160 9876 5432',
    take(first, 11),
    'sabine.adler@example.com',
    true,
    {
      plan: faster.ref,
    },
  );
  const { customer: notActivated } = await withLogin(
    'Jürgen',
    'Falk',
    '030/2233 4455',
    take(first, 12),
    'juergen.falk@example.com',
    false,
    {
      plan: basic.ref,
      card: false,
    },
  );
  const suspended = b.customer(
    base('Dieter', 'Sommer', '0157 11223344', take(first, 13), {
      status: 'SUSPENDED',
      serviceBilled: false,
      modem: 'offline',
      card: false,
    }),
  );
  const pendingInstall = b.customer(
    base('Ingrid', 'Vogt', '+49 171 5551234', take(second, 0), {
      building: second,
      status: 'PENDING_INSTALL',
      modem: null,
      card: false,
      activatedAt: new Date(now.getTime() - 6 * DAY),
    }),
  );
  const installJobId = b.add(b.rows.install_jobs, {
    provider_id: main.id,
    subscription_id: pendingInstall.subscription_id,
    unit_id: pendingInstall.unit_id,
    kind: 'cpe_shipment',
    status: 'SHIPPED',
    created_at: new Date(now.getTime() - 5 * DAY),
    updated_at: new Date(now.getTime() - 2 * DAY),
  });
  const ambiguousAt = (i: number, n: number) =>
    b.customer(
      base('Anna', 'Schmidt', n === 0 ? '0152 33445566' : '+49 30 66778899', take(second, i), {
        building: second,
        plan: n === 0 ? basic.ref : fast.ref,
        card: n === 0,
      }),
    );
  const ambiguous = [ambiguousAt(3, 0), ambiguousAt(17, 1)] as const;
  const otherUnit = present(otherB.built.units[0], "the first unit of the other provider's building");
  const otherCustomer = b.customer({
    providerId: other.id,
    first: 'Kurt',
    last: 'Berger',
    phone: '0170 9988776',
    country: 'DE',
    building: otherB.built,
    unit: otherUnit,
    plan: otherPlan.ref,
    status: 'ACTIVE',
    serviceBilled: true,
    activatedAt: new Date(now.getTime() - 300 * DAY),
    card: true,
    currentMonth: 'open',
    modem: 'online',
  });

  // changed_today: an upgrade basic → fast applied today; the upgrade line waits for the next invoice.
  const pos = calendarPosition(now);
  const upgradeCents = proratedDifferenceCents(basic.ref.priceCents, fast.ref.priceCents, pos);
  const planChangeId = b.add(b.rows.plan_changes, {
    provider_id: main.id,
    subscriber_id: changedToday.id,
    subscription_id: changedToday.subscription_id,
    from_plan_version_id: basic.ref.id,
    to_plan_version_id: fast.ref.id,
    change_date: b.today,
    source: 'agent',
    adjustment_type: 'next_invoice_line',
    adjustment_cents: upgradeCents,
    created_at: new Date(now.getTime() - 60_000),
  });
  b.add(b.rows.pending_adjustments, {
    provider_id: main.id,
    subscription_id: changedToday.subscription_id,
    plan_change_id: planChangeId,
    kind: 'upgrade_line',
    amount_cents: upgradeCents,
    description: `Upgrade ${basic.ref.name} → ${fast.ref.name}, ${pos.days} of ${pos.daysInPeriod} days`,
    status: 'pending',
  });

  // activated: one credit note applied against an earlier invoice, one still open.
  const twoMonthsAgo = b.invoiceOf(activated.subscription_id, addMonths(currentMonth, -2));
  b.creditNote(activated, {
    state: 'applied',
    amountCents: 1250,
    reason: 'Outage compensation',
    daysAgo: 70,
    appliedInvoiceId: twoMonthsAgo,
  });
  b.creditNote(activated, { state: 'open', amountCents: 833, reason: 'Downgrade credit', daysAgo: 12 });
  b.statusEvents(activated, 1, true);

  // Tickets and an internal note for the invoiced customer (ticket history reads by email).
  for (const [subject, status, ago] of [
    ['Router blinks red', 'solved', 40],
    ['Invoice question', 'open', 3],
  ] as const) {
    const created = new Date(now.getTime() - ago * DAY);
    const ticketId = b.add(b.rows.tickets, {
      provider_id: main.id,
      subscriber_id: invoiced.id,
      contact_email: invoiced.email,
      subject,
      priority: 'normal',
      status,
      queue: 'support',
      source: 'email',
      article: `${subject}: customer wrote in.`,
      created_at: created,
      updated_at: created,
    });
    b.add(b.rows.ticket_comments, {
      ticket_id: ticketId,
      public: true,
      author: 'Sam Support',
      body: 'Thanks, we are looking into it.',
      created_at: new Date(created.getTime() + HOUR),
    });
  }
  b.add(b.rows.customer_notes, {
    provider_id: main.id,
    subscriber_id: invoiced.id,
    author: 'Sam Support',
    body: 'Called about the open invoice; will pay by card.',
    created_at: new Date(now.getTime() - 3 * DAY),
  });

  // Volume -------------------------------------------------------------------------------------
  let occupiedUnitId: string | null = null;
  for (const bl of built.values()) {
    const refs = addVolumeCustomers(b, {
      providerId: main.id,
      building: bl,
      reserved,
      plans: mainPlans,
      occupancy,
      forceFirstActive: bl === second,
    });
    if (bl === second) occupiedUnitId = refs.find((r) => r.spec.status === 'ACTIVE')?.unit_id ?? null;
  }
  occupiedUnitId ??= ambiguous[0].unit_id;
  reserved.add(otherUnit.id);
  const otherFree = take(otherB.built, 1);
  const otherPort = b.port(other.id, otherB.built, otherFree.id);
  addVolumeCustomers(b, {
    providerId: other.id,
    building: otherB.built,
    reserved,
    plans: [otherPlan.ref, otherPlan.ref],
    occupancy: occupancy * 0.8,
  });

  // Checkout sessions of the main provider ------------------------------------------------------
  const session = (o: {
    plan: string;
    unitId: string;
    locationId: string | null;
    status: 'pending' | 'cancelled';
    createdAgoMs: number;
    redirected?: boolean;
    mac?: string;
  }) => {
    const created = new Date(now.getTime() - o.createdAgoMs);
    const id = b.add(b.rows.checkout_sessions, {
      provider_id: main.id,
      plan_version_id: o.plan,
      building_id: first.id,
      unit_id: o.unitId,
      location_id: o.locationId,
      mac_address: o.mac ?? null,
      status: o.status,
      created_at: created,
      updated_at: created,
      redirected_at: o.redirected ? new Date(created.getTime() + 60_000) : null,
    });
    return { id };
  };
  const sessions = {
    pending: session({
      plan: fast.ref.id,
      unitId: known.unit.id,
      locationId: known.port.id,
      status: 'pending',
      createdAgoMs: 0,
      mac: '02:00:5E:10:00:01',
    }),
    suite_only: session({ plan: basic.ref.id, unitId: suiteOnlyUnit.id, locationId: null, status: 'pending', createdAgoMs: 0 }),
    expired: session({
      plan: fast.ref.id,
      unitId: spare[2].unit.id,
      locationId: spare[2].port.id,
      status: 'pending',
      createdAgoMs: 3 * HOUR,
    }),
    cancelled: session({
      plan: faster.ref.id,
      unitId: spare[1].unit.id,
      locationId: spare[1].port.id,
      status: 'cancelled',
      createdAgoMs: DAY,
      redirected: true,
    }),
  };

  // The document ----------------------------------------------------------------------------------
  const planName = (id: string) => ({ [basic.ref.id]: 'basic', [fast.ref.id]: 'fast', [faster.ref.id]: 'faster' })[id] ?? 'other_provider';
  const doc = (c: CustomerRef): DemoCustomer => ({
    id: c.id,
    customer_number: c.customer_number,
    email: c.email,
    name: c.name,
    first_name: c.first_name,
    last_name: c.last_name,
    phone: c.phone,
    subscription_id: c.subscription_id,
    subscription_status: c.spec.status,
    plan: planName(c.spec.plan.id),
    building_id: c.spec.building.id,
    unit_id: c.unit_id,
    unit_label: c.unit_label,
  });
  const withInvoices = (c: CustomerRef): DemoCustomer => {
    const mine = b.rows.invoices.filter((i) => i.subscription_id === c.subscription_id);
    return {
      ...doc(c),
      open_invoice_id: mine.find((i) => i.status === 'open')?.id,
      paid_invoice_id: mine.findLast((i) => i.status === 'paid')?.id,
    };
  };
  const buildingDoc = (bl: BuiltBuilding, free: BuiltBuilding['units'][number]): DemoBuilding => ({
    id: bl.id,
    address: bl.address,
    line_type: bl.spec.lineType,
    region: bl.spec.region,
    time_zone: present(REGION_TIME_ZONES[bl.spec.region], `the time zone of ${bl.spec.region}`),
    structured: {
      street: bl.spec.street,
      house_number: bl.spec.houseNumber,
      postal_code: bl.spec.postalCode,
      city: bl.spec.city,
      province: bl.spec.province,
      country: bl.spec.country,
    },
    free_unit_id: free.id,
    free_unit_label: free.label,
  });

  const document: DemoDocument = {
    generated_at: now.toISOString(),
    base_url: o.baseUrl,
    external_checkout_url: o.externalCheckoutUrl,
    webhook_url: o.webhookUrl,
    providers: {
      main: { ...main, admin: admin.credentials!, support: support.credentials! },
      other,
      no_agent_access: { id: noAgent.id, name: noAgent.name, api_key: noAgent.api_key, features: noAgent.features },
      disabled: { id: disabled.id, name: disabled.name, api_key: disabled.api_key },
    },
    platform_admin: platform.credentials!,
    plans: { basic: basic.doc, fast: fast.doc, faster: faster.doc, other_provider: otherPlan.doc },
    customers: {
      invoiced: withInvoices(invoiced),
      not_invoiced: doc(notInvoiced),
      missing_billing_document: doc(missingDoc),
      missing_invoice: doc(missingInvoice),
      changed_today: doc(changedToday),
      activated: { ...withInvoices(activated), password: activatedUser.credentials!.password },
      not_activated: doc(notActivated),
      suspended: doc(suspended),
      pending_install: { ...doc(pendingInstall), install_job_id: installJobId },
      ambiguous: [doc(ambiguous[0]), doc(ambiguous[1])],
      other_provider: doc(otherCustomer),
    },
    buildings: {
      first_line: {
        ...buildingDoc(first, firstFree),
        location_hash: known.port.location_hash,
        location_identifier: known.port.location_identifier,
        spare_location_hashes: [spare[0], ...moreSpares].map((x) => x.port.location_hash),
        suite_only_unit_id: suiteOnlyUnit.id,
      },
      second_line: buildingDoc(second, freeUnits.second_line),
      third_line: buildingDoc(built.get('third_line')!, freeUnits.third_line),
      unclassified: buildingDoc(built.get('unclassified')!, freeUnits.unclassified),
      occupied_unit_id: occupiedUnitId,
      other_provider: { ...buildingDoc(otherB.built, otherFree), location_hash: otherPort.location_hash },
    },
    checkout_sessions: sessions,
    counts: {},
  };
  return { rows: b.rows, document, builder: b };
}
