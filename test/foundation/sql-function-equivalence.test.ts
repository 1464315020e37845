// The SQL functions that read in one statement what the TypeScript repositories also read step by
// step (migrations/functions/): plan_change_preview_snapshot (the plan columns, the change of the day,
// the month's billing records, the carried corrections), agent_owned_customer and
// agent_customer_profile (the customer columns, the subscriptions list), provisioning_explicit_snapshot
// (plan, port or unit, subscriber, idempotency key, occupancy), coverage_street_first_key (the
// punctuation rule of searchKey()). The rules live on both sides; these tests hold them equal over
// rows in different states, so a change on one side only fails here.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';
import { sha256 } from '../../src/lib/crypto.js';
import * as planChange from '../../src/modules/plan-change/plan-change.repository.js';
import * as profile from '../../src/modules/subscribers/profile.repository.js';
import * as provisioning from '../../src/modules/provisioning/provisioning.repository.js';
import { findOccupant } from '../../src/modules/subscriptions/occupancy.repository.js';
import { findSubscriberByEmail } from '../../src/modules/subscribers/account.repository.js';
import { coverageColumns, searchKey } from '../../src/modules/serviceability/address-normalize.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import * as factories from '../helpers/factories.js';
import { createCustomer, createVerifiedSession, createWorld, setMonthRecords, type World } from '../plan-change/fixtures.js';

let tdb: TestDb;
let db: Db;
beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.handle.db;
});
afterAll(() => tdb.drop());

const TODAY = '2026-11-16';
const YESTERDAY = '2026-11-15';
const MONTH = '2026-11-01';

/** Timestamps as ISO strings whichever way they came (a Date from a column, a string from JSON). */
function normalized(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) return new Date(v).toISOString();
  if (Array.isArray(v)) return v.map(normalized);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalized(x)]));
  return v;
}

async function planChangeRow(
  w: World,
  c: { subscriberId: string; subscriptionId: string },
  o: { date: string; source: 'agent' | 'partner' | 'rollback'; rollsBack?: string },
) {
  const id = newId();
  await db
    .insertInto('plan_changes')
    .values({
      id,
      provider_id: w.provider.id,
      subscriber_id: c.subscriberId,
      subscription_id: c.subscriptionId,
      from_plan_version_id: w.plans.basic.id,
      to_plan_version_id: w.plans.fast.id,
      change_date: o.date,
      source: o.source,
      rolls_back_plan_change_id: o.rollsBack ?? null,
      adjustment_type: 'none',
      adjustment_cents: 0,
      actor: 'test',
    })
    .execute();
  return id;
}

async function adjustment(
  w: World,
  subscriptionId: string,
  o: { kind: 'carried_correction' | 'upgrade_line'; cents: number; status?: string },
) {
  await db
    .insertInto('pending_adjustments')
    .values({
      id: newId(),
      provider_id: w.provider.id,
      subscription_id: subscriptionId,
      kind: o.kind,
      amount_cents: o.cents,
      description: 'test',
      status: o.status ?? 'pending',
    })
    .execute();
}

describe('plan_change_preview_snapshot reads what the step-by-step reads of apply read', () => {
  /** The reads apply makes one by one (plan-change.service.ts: loadPlans, changedToday, quote). */
  const stepByStep = (t: planChange.SnapshotTarget) =>
    db.transaction().execute(async (trx) => {
      const sub = await planChange.lockSubscription(trx, t.providerId, t.subscriptionId, t.subscriberId);
      if (!sub) return undefined;
      const of = t.perSubscription ? { subscriptionId: sub.id } : { subscriberId: sub.subscriber_id };
      return {
        sub,
        newPlan: (await planChange.findPlanVersion(trx, t.planVersionId)) ?? null,
        currentPlan: (await planChange.findPlanVersion(trx, sub.plan_version_id)) ?? null,
        changedToday: Boolean(await planChange.findChangeOfDay(trx, of, t.today)),
        records: await planChange.monthBillingRecords(trx, sub.id, t.month),
        carried: await planChange.pendingCarried(trx, sub.id),
      };
    });

  const expectSame = async (t: planChange.SnapshotTarget) => {
    const one = await planChange.previewSnapshot(db, t);
    expect(normalized(one)).toEqual(normalized(await stepByStep(t)));
    return one;
  };

  let w: World;
  let other: World;
  beforeAll(async () => {
    w = await createWorld(db);
    other = await createWorld(db);
  });

  const target = (c: { subscriberId: string; subscriptionId: string }, o: Partial<planChange.SnapshotTarget> = {}) => ({
    providerId: w.provider.id,
    subscriptionId: c.subscriptionId,
    subscriberId: c.subscriberId,
    planVersionId: w.plans.faster.id,
    today: TODAY,
    month: MONTH,
    perSubscription: true,
    ...o,
  });

  it('over subscriptions in each status and billing state, with and without a subscriber, per subscription and per subscriber', async () => {
    const cases = [
      await createCustomer(db, w),
      await createCustomer(db, w, { status: 'SUSPENDED', records: 'invoiced' }),
      await createCustomer(db, w, { status: 'PENDING_INSTALL', port: false, records: 'missing_invoice' }),
      await createCustomer(db, w, { status: 'CANCELLED', records: 'missing_billing_document' }),
      await createCustomer(db, w, { serviceBilled: false }),
    ];
    for (const c of cases)
      for (const perSubscription of [true, false])
        for (const subscriberId of [c.subscriberId, undefined]) {
          const snap = await expectSame(target(c, { perSubscription, subscriberId }));
          expect(snap?.sub.id).toBe(c.subscriptionId);
        }
  });

  it('the change of the day: this subscription, another of the same subscriber, a rollback, yesterday', async () => {
    const a = await createCustomer(db, w);
    await planChangeRow(w, a, { date: TODAY, source: 'partner' });
    const b = await createCustomer(db, w);
    const b2 = await createCustomer(db, w, { subscriberId: b.subscriberId });
    await planChangeRow(w, b2, { date: TODAY, source: 'agent' });
    const c = await createCustomer(db, w);
    const undone = await planChangeRow(w, c, { date: YESTERDAY, source: 'partner' });
    await planChangeRow(w, c, { date: TODAY, source: 'rollback', rollsBack: undone });
    const answers: boolean[] = [];
    for (const x of [a, b, c])
      for (const perSubscription of [true, false]) answers.push((await expectSame(target(x, { perSubscription })))!.changedToday);
    // Guards the fixture: both answers occur, so the comparison above compared something.
    expect(answers).toEqual([true, true, false, true, false, false]);
  });

  it('the carried corrections: pending ones in order, not applied ones or upgrade lines', async () => {
    const c = await createCustomer(db, w, { records: 'invoiced' });
    await adjustment(w, c.subscriptionId, { kind: 'carried_correction', cents: 40 });
    await adjustment(w, c.subscriptionId, { kind: 'carried_correction', cents: -17 });
    await adjustment(w, c.subscriptionId, { kind: 'carried_correction', cents: 5, status: 'applied' });
    await adjustment(w, c.subscriptionId, { kind: 'upgrade_line', cents: 300 });
    const snap = await expectSame(target(c));
    expect(snap!.carried.map((x) => x.amount_cents).sort()).toEqual([-17, 40]);
  });

  it('the target plan: unknown, or another provider’s; and a subscription of another subscriber or provider', async () => {
    const c = await createCustomer(db, w);
    expect((await expectSame(target(c, { planVersionId: newId() })))!.newPlan).toBeNull();
    expect((await expectSame(target(c, { planVersionId: other.plans.fast.id })))!.newPlan!.provider_id).toBe(other.provider.id);
    const stranger = await factories.createSubscriber(db, w.provider.id);
    expect(await expectSame(target(c, { subscriberId: stranger.id }))).toBeUndefined();
    expect(await expectSame(target(c, { providerId: other.provider.id }))).toBeUndefined();
    await setMonthRecords(db, w.provider.id, c.subscriberId, c.subscriptionId, '2026-10-01', 'invoiced');
    expect((await expectSame(target(c)))!.records).toEqual({ invoice: false, document: false });
  });

  it('/agent reads the same snapshot together with ownership and session', async () => {
    const c = await createCustomer(db, w, { records: 'invoiced' });
    await adjustment(w, c.subscriptionId, { kind: 'carried_correction', cents: 12 });
    const now = new Date(`${TODAY}T10:00:00Z`);
    const token = await createVerifiedSession(db, w.provider.id, c.subscriberId, now);
    const t = { ...target(c), subscriberId: c.subscriberId };
    const owned = await planChange.ownedPreviewSnapshot(db, sha256(token), now, t);
    expect(normalized(owned!.snapshot)).toEqual(normalized(await stepByStep(t)));
  });
});

describe('agent_owned_customer and agent_customer_profile read what the TypeScript reads read', () => {
  it('the customer columns (lockOwnedCustomer) and the subscriptions list (listSubscriptions)', async () => {
    const w = await createWorld(db);
    const user = await factories.createUser(db, { role: 'subscriber' });
    const customers = [
      (await factories.createSubscriber(db, w.provider.id)).id,
      (await factories.createSubscriber(db, w.provider.id, { phone: null, customerNumber: null, userId: user.id })).id,
    ];
    await createCustomer(db, w, { subscriberId: customers[0] });
    await createCustomer(db, w, { subscriberId: customers[0], status: 'CANCELLED', port: false });
    const building = await factories.createBuilding(db, w.provider.id, { units: ['A1'] });
    const location = await factories.createLocation(db, w.provider.id, building.id, building.units[0]!.id);
    // Through its location only (no building or unit of its own): the list joins them through it.
    await factories.createSubscription(db, {
      providerId: w.provider.id,
      subscriberId: customers[1]!,
      planVersionId: w.plans.basic.id,
      locationId: location.id,
    });
    await db
      .updateTable('subscriptions')
      .set({ ended_at: '2026-12-31', canceled_at: new Date() })
      .where('subscriber_id', '=', customers[0]!)
      .execute();
    for (const id of customers) {
      const locked = await db.transaction().execute((trx) => profile.lockOwnedSubscriber(trx, w.provider.id, id));
      expect(await profile.findOwnedSubscriber(db, w.provider.id, id)).toEqual(locked);
      const p = await profile.findProfile(db, w.provider.id, id);
      const { portal_user_id, portal_password_set, subscriptions, ...customer } = p!;
      expect(customer).toEqual(locked);
      expect(portal_user_id).toBe(id === customers[1] ? user.id : null);
      expect(portal_password_set).toBe(id === customers[1]);
      const listed = await profile.listSubscriptions(db, id);
      expect(listed.length).toBeGreaterThan(0);
      expect(normalized(subscriptions)).toEqual(normalized(listed));
    }
    const other = await factories.createProvider(db);
    expect(await profile.findOwnedSubscriber(db, other.id, customers[0]!)).toBeUndefined();
    expect(await profile.findProfile(db, other.id, customers[0]!)).toBeUndefined();
  });
});

describe('provisioning_explicit_snapshot reads what the step-by-step reads read', () => {
  /** The snapshot as the TypeScript reads answer it, given the port or unit the snapshot found. */
  async function stepByStep(
    k: Parameters<typeof provisioning.explicitSnapshot>[1],
    found: { locationId: string | null; unitId: string | null },
  ) {
    const plan = await provisioning.findPlanVersion(db, k.providerId, k.planVersionId);
    const location = found.locationId ? await provisioning.findLocationById(db, found.locationId) : undefined;
    const unit = !k.locationHash && found.unitId ? await provisioning.findUnit(db, k.providerId, found.unitId) : undefined;
    const target = location ?? unit;
    const subscriber = await findSubscriberByEmail(db, k.providerId, k.email);
    const existing = target
      ? await provisioning.findExistingProvisioned(db, {
          providerId: k.providerId,
          email: k.email,
          planVersionId: k.planVersionId,
          locationId: k.locationHash ? (location?.id ?? null) : null,
          unitId: k.locationHash ? null : (unit?.id ?? null),
        })
      : undefined;
    const occupant = target
      ? await findOccupant(db, {
          unitId: location ? location.unit_id : (unit?.id ?? null),
          locationId: location?.id ?? null,
          today: k.today,
        })
      : undefined;
    return {
      plan_found: Boolean(plan),
      plan_active: plan?.active ?? false,
      target_found: Boolean(target),
      location_id: location?.id ?? null,
      unit_id: location ? location.unit_id : (unit?.id ?? null),
      switch_port: location?.switch_port ?? null,
      building_id: target?.building_id ?? null,
      line_type: target?.line_type ?? null,
      in_coverage: target?.in_coverage ?? null,
      country: target?.country ?? null,
      existing_id: existing?.id ?? null,
      existing_subscriber_id: existing?.subscriber_id ?? null,
      occupied: Boolean(occupant),
      subscriber_id: subscriber?.id ?? null,
      subscriber_email: subscriber?.email ?? null,
      subscriber_first_name: subscriber?.first_name ?? null,
    };
  }

  async function expectSame(
    k: Parameters<typeof provisioning.explicitSnapshot>[1],
    found?: { locationId: string | null; unitId: string | null },
  ) {
    const snap = await provisioning.explicitSnapshot(db, k);
    // The port or unit is the one the test made (or none); the other fields follow from it.
    if (found) expect({ locationId: snap.location_id, unitId: snap.unit_id }).toEqual(found);
    expect(snap).toEqual(await stepByStep(k, { locationId: snap.location_id, unitId: snap.unit_id }));
    return snap;
  }

  it('plans, ports, units, subscribers, the idempotency key and occupancy, in each state', async () => {
    const w = await createWorld(db);
    const other = await createWorld(db);
    const retired = await factories.createPlanVersion(db, w.provider.id, { name: 'Old', priceCents: 1999, down: 50, up: 10 });
    await db.updateTable('plan_versions').set({ active: false }).where('id', '=', retired.id).execute();
    const building = await factories.createBuilding(db, w.provider.id, { units: ['1', '2', '3', '4', '5'] });
    const [u1, u2, u3, u4, u5] = building.units.map((u) => u.id) as [string, string, string, string, string];
    const ports = [
      await factories.createLocation(db, w.provider.id, building.id, u1),
      await factories.createLocation(db, w.provider.id, building.id, u2),
      await factories.createLocation(db, w.provider.id, building.id, u3),
      await factories.createLocation(db, w.provider.id, building.id, null),
    ];
    const ada = await factories.createSubscriber(db, w.provider.id, { email: 'Ada@Example.test', firstName: 'Ada' });
    const sub = (o: { unitId?: string; locationId?: string; status: 'ACTIVE' | 'PENDING_INSTALL' | 'CANCELLED'; subscriberId?: string }) =>
      factories.createSubscription(db, {
        providerId: w.provider.id,
        subscriberId: o.subscriberId ?? ada.id,
        planVersionId: w.plans.fast.id,
        buildingId: building.id,
        unitId: o.unitId ?? null,
        locationId: o.locationId ?? null,
        status: o.status,
      });
    await sub({ unitId: u1, locationId: ports[0]!.id, status: 'ACTIVE' });
    const ended = await sub({ unitId: u2, locationId: ports[1]!.id, status: 'CANCELLED' });
    await db.updateTable('subscriptions').set({ ended_at: '2026-12-01' }).where('id', '=', ended.id).execute();
    const gone = await sub({ unitId: u3, locationId: ports[2]!.id, status: 'CANCELLED' });
    await db.updateTable('subscriptions').set({ ended_at: '2026-11-01' }).where('id', '=', gone.id).execute();
    await sub({ unitId: u4, status: 'PENDING_INSTALL', subscriberId: (await factories.createSubscriber(db, w.provider.id)).id });

    const base = { providerId: w.provider.id, planVersionId: w.plans.fast.id, email: 'ada@example.TEST', today: TODAY };
    const direct = (i: number, o: Partial<typeof base> = {}) => ({ ...base, ...o, locationHash: ports[i]!.locationHash, unitId: null });
    const homeDrop = (unitId: string, o: Partial<typeof base> = {}) => ({ ...base, ...o, locationHash: null, unitId });

    const live = await expectSame(direct(0), { locationId: ports[0]!.id, unitId: u1 });
    expect([live.existing_id !== null, live.occupied]).toEqual([true, true]);
    const cancelledUntil = await expectSame(direct(1), { locationId: ports[1]!.id, unitId: u2 });
    expect([cancelledUntil.existing_id, cancelledUntil.occupied]).toEqual([null, true]);
    expect((await expectSame(direct(2), { locationId: ports[2]!.id, unitId: u3 })).occupied).toBe(false);
    expect((await expectSame(direct(3), { locationId: ports[3]!.id, unitId: null })).occupied).toBe(false);
    expect((await expectSame(homeDrop(u4), { locationId: null, unitId: u4 })).occupied).toBe(true);
    expect((await expectSame(homeDrop(u5), { locationId: null, unitId: u5 })).occupied).toBe(false);
    await expectSame(direct(0, { email: 'nobody@example.test' }));
    await expectSame(direct(0, { planVersionId: w.plans.basic.id }));
    expect((await expectSame(direct(0, { planVersionId: retired.id }))).plan_active).toBe(false);
    expect((await expectSame(direct(0, { planVersionId: other.plans.fast.id }))).plan_found).toBe(false);
    expect(
      (await expectSame({ ...base, locationHash: 'loc_unknown', unitId: null }, { locationId: null, unitId: null })).target_found,
    ).toBe(false);
    expect((await expectSame({ ...direct(0), providerId: other.provider.id }, { locationId: null, unitId: null })).target_found).toBe(
      false,
    );
    expect((await expectSame({ ...homeDrop(u5), providerId: other.provider.id }, { locationId: null, unitId: null })).target_found).toBe(
      false,
    );
  });
});

describe('coverage_street_first_key moves the house number as searchKey() spells the street-first address', () => {
  it.each([
    ['King Street West', '12 a', 'Toronto', 'ON', 'M5V 2T6', 'CA'],
    ['St. Clair Ave. W', '1510', 'Toronto', 'ON', 'M6E 1C4', 'CA'],
    ["O'Connor Drive (North)", '7A', 'Toronto', 'ON', 'M4K 2K3', 'CA'],
    ['Main St.;East:Side', '221B', 'Springfield', 'IL', '62701', 'US'],
    ['Avenue  Road', '88', 'Toronto', 'ON', 'M5R2G3', 'CA'],
  ])('%s %s', async (street, houseNumber, city, province, postalCode, country) => {
    const row = coverageColumns({ street, houseNumber, city, province, postalCode, country });
    const streetFirst = [`${street} ${row.house_number_norm}`, city, `${province} ${row.postal_code}`].join(', ');
    expect(await streetFirstKey(row.search_key, row.house_number_norm, street)).toBe(searchKey(streetFirst));
  });

  it('no key when searchKey() fused a one-letter first word to the number ("7 O\'Connor": "7o connor"): left to the fallback', async () => {
    const row = coverageColumns({ street: "O'Connor Drive", houseNumber: '7', city: 'Toronto', country: 'CA' });
    expect(row.search_key).toMatch(/^7o connor/);
    expect(await streetFirstKey(row.search_key, row.house_number_norm, "O'Connor Drive")).toBeNull();
  });
});

async function streetFirstKey(searchKeyValue: string, houseNumberNorm: string, street: string) {
  const r = await sql<{
    key: string | null;
  }>`SELECT coverage_street_first_key(${searchKeyValue}, ${houseNumberNorm}, ${street}) AS key`.execute(db);
  return r.rows[0]!.key;
}
