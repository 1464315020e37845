import { simulatorsOf } from '../../src/adapters/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider, createSubscriber, createSubscription, createUser } from '../helpers/factories.js';
import { newId } from '../../src/lib/ids.js';
import type { SwitchControllerSimulator } from '../../src/adapters/switch.simulator.js';
import { createWorld, installJobOf, portJobsOf, staffToken, subscriber, subscriptionRow, webhookTypes, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let staff: { authorization: string };
let building: Awaited<ReturnType<typeof createBuilding>>;
let unitIdx = 0;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  staff = await staffToken(t, w.provider.id);
  building = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: Array.from({ length: 16 }, (_, i) => `C${i}`) });
});
afterAll(() => t.close());

const confirm = (subscription_id: string, headers: Record<string, string> = staff, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/provisioning/confirm-install`, headers, payload: { subscription_id } });

/** A provider-billed install-path subscription (CKO-04) whose unit has a registered port; install job in `status`. */
async function installed(status: string = 'SHIPPED', o: { port?: boolean } = {}) {
  const unit = building.units[unitIdx++]!;
  const loc = o.port === false ? null : await createLocation(t.db, w.provider.id, building.id, unit.id);
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: unit.id, subscriber: subscriber() },
  });
  expect(r.statusCode).toBe(201);
  await t.db.updateTable('install_jobs').set({ status }).where('subscription_id', '=', r.json().subscription_id).execute();
  return { id: r.json().subscription_id as string, unitId: unit.id, locationId: loc?.id ?? null };
}

/** A service-billed PENDING_INSTALL subscription (seeded, as the dashboard creates them), install job SHIPPED. */
async function serviceBilled(o: { card: boolean }) {
  const unit = building.units[unitIdx++]!;
  const loc = await createLocation(t.db, w.provider.id, building.id, unit.id);
  const s = await createSubscriber(t.db, w.provider.id);
  if (o.card) {
    const account = (
      await t.db.selectFrom('providers').select('card_processor_account').where('id', '=', w.provider.id).executeTakeFirstOrThrow()
    ).card_processor_account!;
    const setup = await simulatorsOf(t.deps.adapters).cardProcessor.createSetup({ account, subscriberId: s.id, email: s.email });
    const card = await simulatorsOf(t.deps.adapters).cardProcessor.confirmSetup({
      account,
      setupId: setup.setup_id,
      cardNumber: '4242424242424242',
    });
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: card.payment_method_id, card_brand: card.brand, card_last4: card.last4 })
      .where('id', '=', s.id)
      .execute();
  }
  const sub = await createSubscription(t.db, {
    providerId: w.provider.id,
    subscriberId: s.id,
    planVersionId: w.plan.id,
    buildingId: building.id,
    unitId: unit.id,
    status: 'PENDING_INSTALL',
    serviceBilled: true,
  });
  await t.db.updateTable('subscriptions').set({ activated_at: null }).where('id', '=', sub.id).execute();
  await t.db
    .insertInto('install_jobs')
    .values({ id: newId(), provider_id: w.provider.id, subscription_id: sub.id, unit_id: unit.id, kind: 'cpe_shipment', status: 'SHIPPED' })
    .execute();
  return { id: sub.id, subscriberId: s.id, email: s.email, locationId: loc.id };
}

describe('POST /provisioning/confirm-install', () => {
  it("a provider-billed subscription with a SHIPPED install job: ACTIVE at once, install job COMPLETED, the unit's port attached and provisioned by a job, no webhook, no invoice (both mounts)", async () => {
    for (const prefix of ['', '/api/v1']) {
      const s = await installed();
      const r = await confirm(s.id, staff, prefix);
      expect(r.statusCode).toBe(200);
      const jobs = await portJobsOf(t, s.id);
      expect(r.json()).toEqual({
        subscription_id: s.id,
        status: 'ACTIVE',
        job_id: jobs[0]!.id,
        payment: 'not_billed',
        message: expect.any(String),
      });
      expect(jobs.map((j) => j.payload)).toEqual([{ subscription_id: s.id, reason: 'install' }]);
      expect(await subscriptionRow(t, s.id)).toMatchObject({ status: 'ACTIVE', location_id: s.locationId, activated_at: t.clock.now() });
      expect((await installJobOf(t, s.id))!.status).toBe('COMPLETED');
      await t.deps.jobs.drain();
      expect((await portJobsOf(t, s.id))[0]!.status).toBe('succeeded');
      expect(await (t.deps.adapters.switchController as SwitchControllerSimulator).getPort(s.locationId!)).toMatchObject({
        mode: 'provisioned',
        download_mbps: 500,
      });
      expect((await webhookTypes(t, s.id)).map((d) => d.event_type)).toEqual(['subscription.pending_install']);
      expect(await t.db.selectFrom('invoices').select('id').where('subscription_id', '=', s.id).execute()).toEqual([]);
    }
  });

  it('a service-billed subscription with a saved card: first invoice created, charged right after the answer, then ACTIVE; still no webhook', async () => {
    const s = await serviceBilled({ card: true });
    const r = await confirm(s.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'PENDING_INSTALL', payment: 'collecting' });
    const inv = await t.db.selectFrom('invoices').selectAll().where('subscription_id', '=', s.id).executeTakeFirstOrThrow();
    expect(inv).toMatchObject({ kind: 'first', status: 'open' });
    await t.deps.jobs.drain();
    expect(
      await t.db.selectFrom('invoices').select(['status', 'payment_method']).where('id', '=', inv.id).executeTakeFirstOrThrow(),
    ).toEqual({ status: 'paid', payment_method: 'card' });
    expect(await subscriptionRow(t, s.id)).toMatchObject({ status: 'ACTIVE', location_id: s.locationId });
    expect((await installJobOf(t, s.id))!.status).toBe('COMPLETED');
    expect(await webhookTypes(t, s.id)).toEqual([]);
  });

  it('a service-billed subscription without a card: the subscriber is emailed a payment link and stays PENDING_INSTALL until it is paid', async () => {
    const s = await serviceBilled({ card: false });
    const r = await confirm(s.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'PENDING_INSTALL', payment: 'collecting' });
    await t.deps.jobs.drain();
    expect((await subscriptionRow(t, s.id)).status).toBe('PENDING_INSTALL');
    expect(await t.db.selectFrom('link_tokens').select('purpose').where('subscriber_id', '=', s.subscriberId).execute()).toEqual([
      { purpose: 'payment' },
    ]);
    const mails = await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'mail.send').execute();
    expect(
      mails.some((m) => (m.payload as { to: string; tag: string }).to === s.email && (m.payload as { tag: string }).tag === 'payment_link'),
    ).toBe(true);
  });

  it('an install job that is not SHIPPED answers 409 and changes nothing', async () => {
    for (const status of ['CREATED', 'BOOKING_SENT', 'BOOKED', 'COMPLETED']) {
      const s = await installed(status);
      const r = await confirm(s.id);
      expect(r.statusCode, status).toBe(409);
      expect(r.json().detail).toMatch(/SHIPPED/);
      expect(await subscriptionRow(t, s.id)).toMatchObject({ status: 'PENDING_INSTALL', location_id: null });
      expect((await installJobOf(t, s.id))!.status).toBe(status);
      expect(await portJobsOf(t, s.id)).toEqual([]);
    }
  });

  it('a subscription that is not PENDING_INSTALL answers 409; a second confirmation too', async () => {
    const s = await installed();
    expect((await confirm(s.id)).statusCode).toBe(200);
    const again = await confirm(s.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/ACTIVE/);
    expect(await portJobsOf(t, s.id)).toHaveLength(1);
  });

  it('no switch port registered for the unit answers 409', async () => {
    const s = await installed('SHIPPED', { port: false });
    const r = await confirm(s.id);
    expect(r.statusCode).toBe(409);
    expect(r.json().detail).toMatch(/port/);
    expect((await installJobOf(t, s.id))!.status).toBe('SHIPPED');
  });

  it("own provider only: another provider's staff get 404, a platform admin may confirm", async () => {
    const s = await installed();
    const other = await createProvider(t.db);
    const otherStaff = await staffToken(t, other.id);
    expect((await confirm(s.id, otherStaff)).statusCode).toBe(404);
    expect((await subscriptionRow(t, s.id)).status).toBe('PENDING_INSTALL');
    const admin = await staffToken(t, null, 'platform_admin');
    expect((await confirm(s.id, admin)).statusCode).toBe(200);
  });

  it('is not callable with a partner API key (401) nor by a subscriber (403)', async () => {
    const s = await installed();
    const key = await confirm(s.id, w.hdr);
    expect(key.statusCode).toBe(401);
    expect(key.json()).toEqual({ detail: 'Not authenticated' });
    const u = await createUser(t.db, { role: 'subscriber' });
    const tok = await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null });
    expect((await confirm(s.id, { authorization: `Bearer ${tok.access_token}` })).statusCode).toBe(403);
    expect((await confirm('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await confirm('nope')).statusCode).toBe(422);
    expect((await subscriptionRow(t, s.id)).status).toBe('PENDING_INSTALL');
  });
});
