// Plan-change worlds: a provider with plans, a customer with an ACTIVE subscription on a port, and
// the month's billing records in whichever of the four states a test needs.
import type { Db } from '../../src/db/database.js';
import { sha256 } from '../../src/lib/crypto.js';
import { newId, randomAlnum, randomToken } from '../../src/lib/ids.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';

export interface World {
  provider: Awaited<ReturnType<typeof createProvider>>;
  plans: { basic: Plan; fast: Plan; faster: Plan };
}
type Plan = Awaited<ReturnType<typeof createPlanVersion>>;

export async function createWorld(db: Db, o: { features?: string[] } = {}): Promise<World> {
  const provider = await createProvider(db, o.features ? { features: o.features } : {});
  const basic = await createPlanVersion(db, provider.id, { name: 'Basic', priceCents: 2999, down: 100, up: 20 });
  const fast = await createPlanVersion(db, provider.id, { name: 'Fast', priceCents: 3999, down: 250, up: 50 });
  const faster = await createPlanVersion(db, provider.id, { name: 'Faster', priceCents: 4999, down: 1000, up: 200 });
  return { provider, plans: { basic, fast, faster } };
}

export type MonthRecords = 'invoiced' | 'not_invoiced' | 'missing_billing_document' | 'missing_invoice';

/** A customer with one ACTIVE subscription (on a switch port unless `port: false`). */
export async function createCustomer(
  db: Db,
  w: World,
  o: {
    planVersionId?: string;
    month?: string;
    records?: MonthRecords;
    serviceBilled?: boolean;
    status?: 'ACTIVE' | 'SUSPENDED' | 'PENDING_INSTALL' | 'CANCELLED';
    port?: boolean;
    subscriberId?: string;
  } = {},
) {
  const subscriberId = o.subscriberId ?? (await createSubscriber(db, w.provider.id)).id;
  const building = await createBuilding(db, w.provider.id, { units: [`U${randomAlnum(4)}`] });
  const location = o.port === false ? null : await createLocation(db, w.provider.id, building.id, building.units[0]!.id);
  const sub = await createSubscription(db, {
    providerId: w.provider.id,
    subscriberId,
    planVersionId: o.planVersionId ?? w.plans.fast.id,
    buildingId: building.id,
    unitId: building.units[0]!.id,
    locationId: location?.id ?? null,
    status: o.status ?? 'ACTIVE',
    serviceBilled: o.serviceBilled ?? true,
  });
  if (o.records && o.records !== 'not_invoiced')
    await setMonthRecords(db, w.provider.id, subscriberId, sub.id, o.month ?? '2026-11-01', o.records);
  return { subscriberId, subscriptionId: sub.id, locationId: location?.id ?? null };
}

export async function setMonthRecords(
  db: Db,
  providerId: string,
  subscriberId: string,
  subscriptionId: string,
  month: string,
  records: MonthRecords,
) {
  let invoiceId: string | null = null;
  if (records === 'invoiced' || records === 'missing_billing_document') {
    invoiceId = newId();
    await db
      .insertInto('invoices')
      .values({
        id: invoiceId,
        provider_id: providerId,
        subscriber_id: subscriberId,
        subscription_id: subscriptionId,
        invoice_number: `INV-${randomAlnum(10).toUpperCase()}`,
        kind: 'monthly',
        period_start: month,
        invoice_date: month,
        due_date: month,
        currency: 'EUR',
        total_cents: 3999,
        status: 'open',
      })
      .execute();
  }
  if (records === 'invoiced' || records === 'missing_invoice') {
    await db
      .insertInto('billing_documents')
      .values({
        id: newId(),
        provider_id: providerId,
        subscription_id: subscriptionId,
        period_start: month,
        invoice_id: invoiceId,
        external_document_id: `doc_${randomAlnum(10)}`,
      })
      .execute();
  }
}

/** Row counts of every table a plan change may write. */
export async function writeCounts(db: Db) {
  const tables = [
    'plan_changes',
    'pending_adjustments',
    'credit_notes',
    'audit_entries',
    'webhook_deliveries',
    'jobs',
    'invoices',
    'invoice_lines',
    'idempotency_records',
  ] as const;
  const out: Record<string, number> = {};
  for (const t of tables) {
    const r = await db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  const subs = await db.selectFrom('subscriptions').select(['id', 'plan_version_id', 'updated_at']).orderBy('id').execute();
  return { ...out, subscriptions: JSON.stringify(subs) };
}

/** A live verified session for (provider, customer), as POST /agent/verify/check would issue it. */
export async function createVerifiedSession(db: Db, providerId: string, subscriberId: string, now: Date, ttlMs = 15 * 60_000) {
  const token = `vs_${randomToken(32)}`;
  await db
    .insertInto('verified_sessions')
    .values({
      id: newId(),
      provider_id: providerId,
      subscriber_id: subscriberId,
      token_hash: sha256(token),
      expires_at: new Date(now.getTime() + ttlMs),
      created_at: now,
    })
    .execute();
  return token;
}
