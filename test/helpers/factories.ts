// Test data through the real schema. Each factory returns what a test needs to call the API.
import type { Db } from '../../src/db/database.js';
import { hashPassword, newPrefixedSecret } from '../../src/lib/crypto.js';
import { customerNumber, newId, randomAlnum, randomToken } from '../../src/lib/ids.js';
import { coverageColumns } from '../../src/modules/serviceability/address-normalize.js';

const ALL_FEATURES = ['agent_api_access', 'provisioning:write', 'serviceability:read'];

export async function createProvider(
  db: Db,
  o: {
    name?: string;
    features?: string[];
    disabled?: boolean;
    webhookUrl?: string | null;
    smsConfigured?: boolean;
    cardProcessor?: string | null;
    externalCheckoutUrl?: string | null;
    currency?: string;
  } = {},
) {
  const id = newId();
  const key = newPrefixedSecret('sk');
  const whs = newPrefixedSecret('whs');
  const signingSecret = `whsec_${Buffer.from(randomToken(24)).toString('base64')}`;
  const name = o.name ?? `Provider ${randomAlnum(5)}`;
  await db
    .insertInto('providers')
    .values({
      id,
      name,
      slug: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomAlnum(4)}`,
      disabled: o.disabled ?? false,
      currency: o.currency ?? 'EUR',
      support_email: `support+${randomAlnum(5)}@provider.test`,
      branding: JSON.stringify({ display_name: name, primary_color: '#0055aa', logo_url: null, support_phone: '+49 30 1234567' }),
      external_checkout_url: o.externalCheckoutUrl === undefined ? 'https://checkout.provider.test/pay' : o.externalCheckoutUrl,
      webhook_secret_prefix: whs.prefix,
      webhook_secret_hash: whs.hash,
      webhook_url: o.webhookUrl ?? null,
      webhook_signing_secret: signingSecret,
      card_processor_account: o.cardProcessor === undefined ? `acct_${randomAlnum(10)}` : o.cardProcessor,
      sms_configured: o.smsConfigured ?? false,
    })
    .execute();
  await db
    .insertInto('api_keys')
    .values({ id: newId(), provider_id: id, prefix: key.prefix, key_hash: key.hash, features: o.features ?? ALL_FEATURES })
    .execute();
  return { id, name, apiKey: key.secret, keyPrefix: key.prefix, webhookSecret: whs.secret, signingSecret };
}

export async function createPlanVersion(
  db: Db,
  providerId: string,
  o: { name?: string; priceCents?: number; currency?: string; down?: number; up?: number; storeProductId?: string } = {},
) {
  const planId = newId();
  const id = newId();
  const name = o.name ?? `Fibre ${randomAlnum(3)}`;
  await db.insertInto('plans').values({ id: planId, provider_id: providerId, name }).execute();
  await db
    .insertInto('plan_versions')
    .values({
      id,
      plan_id: planId,
      provider_id: providerId,
      version: 1,
      name,
      monthly_price_cents: o.priceCents ?? 3999,
      currency: o.currency ?? 'EUR',
      store_product_id: o.storeProductId ?? `prod_${randomAlnum(6)}`,
      download_mbps: o.down ?? 250,
      upload_mbps: o.up ?? 50,
    })
    .execute();
  return { id, planId, name, priceCents: o.priceCents ?? 3999 };
}

export async function createBuilding(
  db: Db,
  providerId: string,
  o: {
    lineType?: 'first_line' | 'second_line' | 'third_line' | null;
    street?: string;
    houseNumber?: string;
    postalCode?: string;
    city?: string;
    country?: string;
    region?: string | null;
    units?: string[];
  } = {},
) {
  const id = newId();
  await db
    .insertInto('buildings')
    .values({
      id,
      provider_id: providerId,
      name: null,
      street: o.street ?? 'Hauptstraße',
      house_number: o.houseNumber ?? String(1 + Math.floor(Math.random() * 200)),
      postal_code: o.postalCode ?? '10115',
      city: o.city ?? 'Berlin',
      province: null,
      country: o.country ?? 'DE',
      region: o.region ?? null,
      line_type: o.lineType === undefined ? 'first_line' : o.lineType,
    })
    .execute();
  const units: { id: string; label: string }[] = [];
  for (const label of o.units ?? ['1A', '1B', '2A']) {
    const uid = newId();
    await db.insertInto('units').values({ id: uid, building_id: id, label }).execute();
    units.push({ id: uid, label });
  }
  return { id, units };
}

/**
 * A booking region with its time zone (and optionally its own booking window). The migration seeds
 * the German and Canadian ones (DE-BE → Europe/Berlin, CA-ON → America/Toronto, ...); a building
 * without a region takes its country's row (DE → Europe/Berlin).
 */
export async function createRegion(db: Db, o: { timeZone: string; code?: string; bookingWindowDays?: number | null }) {
  const code = o.code ?? `T-${randomAlnum(8).toUpperCase()}`;
  await db
    .insertInto('regions')
    .values({ code, time_zone: o.timeZone, booking_window_days: o.bookingWindowDays ?? null })
    .execute();
  return { code };
}

export async function createLocation(
  db: Db,
  providerId: string,
  buildingId: string,
  unitId: string | null,
  o: { port?: string | null } = {},
) {
  const id = newId();
  const hash = `loc_${randomToken(16)}`;
  await db
    .insertInto('locations')
    .values({
      id,
      provider_id: providerId,
      building_id: buildingId,
      unit_id: unitId,
      location_hash: hash,
      location_identifier: `LID-${randomAlnum(8).toUpperCase()}`,
      switch_id: 'sw-01',
      switch_port: o.port === undefined ? `ge-0/0/${Math.floor(Math.random() * 48)}` : o.port,
      vlan_id: 100 + Math.floor(Math.random() * 3000),
    })
    .execute();
  return { id, locationHash: hash };
}

export async function createUser(
  db: Db,
  o: {
    email?: string;
    password?: string | null;
    role?: 'subscriber' | 'service_provider' | 'platform_admin';
    spRole?: string | null;
    providerId?: string | null;
  } = {},
) {
  const id = newId();
  const email = o.email ?? `user-${randomAlnum(8)}@example.test`;
  const password = o.password === undefined ? 'correct horse battery' : o.password;
  await db
    .insertInto('users')
    .values({
      id,
      email,
      role: o.role ?? 'subscriber',
      sp_role: o.spRole ?? null,
      provider_id: o.providerId ?? null,
      password_hash: password ? await hashPassword(password) : null,
      password_set_at: password ? new Date() : null,
      first_name: 'Test',
      last_name: 'User',
    })
    .execute();
  return { id, email, password };
}

export async function createSubscriber(
  db: Db,
  providerId: string,
  o: {
    firstName?: string;
    lastName?: string;
    email?: string;
    phone?: string | null;
    userId?: string | null;
    customerNumber?: string | null;
  } = {},
) {
  const id = newId();
  const email = o.email ?? `cust-${randomAlnum(8)}@example.test`;
  const cn = o.customerNumber === undefined ? customerNumber() : o.customerNumber;
  await db
    .insertInto('subscribers')
    .values({
      id,
      provider_id: providerId,
      user_id: o.userId ?? null,
      customer_number: cn,
      first_name: o.firstName ?? 'Erika',
      last_name: o.lastName ?? 'Mustermann',
      email,
      phone: o.phone === undefined ? '+49 151 23456789' : o.phone,
      phone_e164: o.phone === null ? null : (o.phone ?? '+4915123456789').replace(/[^\d+]/g, ''),
      invoice_street: 'Hauptstraße',
      invoice_house_number: '5',
      invoice_postal_code: '10115',
      invoice_city: 'Berlin',
      invoice_country: 'DE',
      operator_notes: 'internal: called twice about router',
      processor_customer_id: `cus_${randomAlnum(12)}`,
    })
    .execute();
  return { id, email, customerNumber: cn };
}

export async function createSubscription(
  db: Db,
  o: {
    providerId: string;
    subscriberId: string;
    planVersionId: string;
    buildingId?: string | null;
    unitId?: string | null;
    locationId?: string | null;
    status?: 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';
    serviceBilled?: boolean;
    origin?: 'seed' | 'provider_initiated' | 'checkout_session';
    activatedAt?: Date;
  },
) {
  const id = newId();
  await db
    .insertInto('subscriptions')
    .values({
      id,
      provider_id: o.providerId,
      subscriber_id: o.subscriberId,
      plan_version_id: o.planVersionId,
      building_id: o.buildingId ?? null,
      unit_id: o.unitId ?? null,
      location_id: o.locationId ?? null,
      status: o.status ?? 'ACTIVE',
      service_billed: o.serviceBilled ?? true,
      origin: o.origin ?? 'seed',
      mac_address: 'AA:BB:CC:DD:EE:FF',
      activated_at: o.activatedAt ?? new Date('2026-01-10T09:00:00Z'),
    })
    .execute();
  return { id };
}

/** A coverage (serviceability) address; display and search key are derived as the operator import derives them. */
export async function createCoverageAddress(
  db: Db,
  providerId: string,
  o: {
    buildingId?: string | null;
    street?: string;
    houseNumber?: string;
    postalCode?: string | null;
    city?: string | null;
    province?: string | null;
    country?: string;
    orderable?: boolean;
    display?: string;
  } = {},
) {
  const id = newId();
  const street = o.street ?? 'Hauptstraße';
  const houseNumber = o.houseNumber ?? '12a';
  const cols = coverageColumns({
    street,
    houseNumber,
    postalCode: o.postalCode === undefined ? '10115' : o.postalCode,
    city: o.city === undefined ? 'Berlin' : o.city,
    province: o.province ?? null,
    country: o.country ?? 'DE',
  });
  await db
    .insertInto('coverage_addresses')
    .values({
      id,
      provider_id: providerId,
      building_id: o.buildingId ?? null,
      street,
      house_number: houseNumber,
      house_number_norm: cols.house_number_norm,
      postal_code: cols.postal_code,
      city: o.city === undefined ? 'Berlin' : o.city,
      province: o.province ?? null,
      country: cols.country,
      display: o.display ?? cols.display,
      search_key: cols.search_key,
      orderable: o.orderable ?? true,
    })
    .execute();
  return { id, display: o.display ?? cols.display };
}

/** A checkout session row as POST /external-checkout/sessions writes it (status and age chosen by the test). */
export async function createCheckoutSession(
  db: Db,
  o: {
    providerId: string;
    planVersionId: string;
    buildingId?: string | null;
    unitId?: string | null;
    locationId?: string | null;
    macAddress?: string | null;
    status?: 'pending' | 'redirected' | 'completed' | 'expired' | 'cancelled';
    createdAt?: Date;
    userId?: string | null;
    partnerReference?: string | null;
  },
) {
  const id = newId();
  const at = o.createdAt ?? new Date();
  await db
    .insertInto('checkout_sessions')
    .values({
      id,
      provider_id: o.providerId,
      plan_version_id: o.planVersionId,
      building_id: o.buildingId ?? null,
      unit_id: o.unitId ?? null,
      location_id: o.locationId ?? null,
      mac_address: o.macAddress ?? null,
      status: o.status ?? 'pending',
      user_id: o.userId ?? null,
      partner_reference: o.partnerReference ?? null,
      created_at: at,
      updated_at: at,
      redirected_at: o.status === 'redirected' ? at : null,
    })
    .execute();
  return { id };
}

/** An invoice of a subscriber (paid ones carry a processor payment-intent id, which is internal). */
export async function createInvoice(
  db: Db,
  o: {
    providerId: string;
    subscriberId: string;
    subscriptionId?: string | null;
    status?: 'draft' | 'open' | 'paid' | 'void';
    totalCents?: number;
    currency?: string;
    invoiceDate?: string;
    dueDate?: string;
    periodStart?: string | null;
    kind?: 'monthly' | 'first';
    paidAt?: Date | null;
    paymentMethod?: 'card' | 'payment_link' | 'bank_transfer' | null;
    paymentReference?: string | null;
    lines?: { description: string; amountCents: number }[];
  },
) {
  const id = newId();
  const status = o.status ?? 'open';
  const total = o.totalCents ?? 3999;
  const number = `INV-${randomAlnum(10).toUpperCase()}`;
  const paymentIntentId = status === 'paid' ? `pi_${randomAlnum(16)}` : null;
  await db
    .insertInto('invoices')
    .values({
      id,
      provider_id: o.providerId,
      subscriber_id: o.subscriberId,
      subscription_id: o.subscriptionId ?? null,
      invoice_number: number,
      kind: o.kind ?? 'monthly',
      period_start: o.periodStart === undefined ? null : o.periodStart,
      invoice_date: o.invoiceDate ?? '2026-11-01',
      due_date: o.dueDate ?? '2026-11-15',
      currency: o.currency ?? 'EUR',
      total_cents: total,
      status,
      paid_at: status === 'paid' ? (o.paidAt ?? new Date('2026-11-03T08:00:00Z')) : null,
      payment_method: status === 'paid' ? (o.paymentMethod === undefined ? 'card' : o.paymentMethod) : null,
      payment_intent_id: paymentIntentId,
      payment_reference:
        status === 'paid' ? (o.paymentReference === undefined ? `PAY-${randomAlnum(6).toUpperCase()}` : o.paymentReference) : null,
    })
    .execute();
  const lines = o.lines ?? [{ description: 'Monthly service', amountCents: total }];
  for (const [i, l] of lines.entries()) {
    await db
      .insertInto('invoice_lines')
      .values({
        id: newId(),
        invoice_id: id,
        position: i + 1,
        kind: 'subscription',
        description: l.description,
        amount_cents: l.amountCents,
      })
      .execute();
  }
  return { id, invoiceNumber: number, paymentIntentId };
}

/** The last reported modem status of a subscription. */
export async function createModemStatus(
  db: Db,
  subscriptionId: string,
  o: { state?: 'online' | 'offline' | 'degraded'; lastSeenAt?: Date; signalDbm?: number | null; uptimeSeconds?: number | null } = {},
) {
  await db
    .insertInto('modem_status')
    .values({
      subscription_id: subscriptionId,
      state: o.state ?? 'online',
      last_seen_at: o.lastSeenAt ?? new Date('2026-11-16T09:55:00Z'),
      signal_dbm: o.signalDbm === undefined ? '-18.40' : o.signalDbm === null ? null : String(o.signalDbm),
      uptime_seconds: o.uptimeSeconds === undefined ? 86_400 : o.uptimeSeconds,
      firmware: 'fw-1.2.3',
      updated_at: o.lastSeenAt ?? new Date('2026-11-16T09:55:00Z'),
    })
    .execute();
}
