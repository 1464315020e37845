// Issue "Faithful to the spec" item 1: an installed, service-billed subscription is connected when
// it is paid for, through the real job worker, whichever way the first invoice is paid; and the
// webhooks are the partner document's: subscription.pending_install at creation, then none (section
// 3: "no webhooks fire" from PENDING_INSTALL to ACTIVE; section 6: install confirmation "none").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { resetAllFaults, simulatorsOf } from '../../src/adapters/index.js';
import { TEST_CARDS } from '../../src/adapters/card.simulator.js';
import { mailsTo, tokenIn } from '../billing/fixtures.js';
import { createWorld, drainWithRetries, portJobsOf, staffToken, subscriber, subscriptionRow, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let rx: WebhookReceiver;
let staff: { authorization: string };
let building: Awaited<ReturnType<typeof createBuilding>>;
let unitIdx = 0;
beforeAll(async () => {
  t = await buildTestApp();
  rx = await startWebhookReceiver({ clock: t.clock });
  w = await createWorld(t, { webhookUrl: rx.url });
  rx.trust(w.provider.signingSecret);
  staff = await staffToken(t, w.provider.id);
  building = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units: Array.from({ length: 12 }, (_, i) => `P${i}`) });
});
afterAll(async () => {
  await rx.close();
  await t.close();
});
beforeEach(() => resetAllFaults(t.deps.adapters));

const sims = () => simulatorsOf(t.deps.adapters);
const confirm = (subscription_id: string) =>
  t.app.inject({ method: 'POST', url: '/provisioning/confirm-install', headers: staff, payload: { subscription_id } });
const payByLink = (token: string, card: string) => t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: card } });

/**
 * An install-path subscription made through the partner API (subscription.pending_install is sent),
 * then billed by this service (as the dashboard's service-billed subscriptions are), optionally with a
 * saved card, its unit's port registered and the CPE shipped.
 */
async function installedServiceBilled(o: { card?: string } = {}) {
  const unit = building.units[unitIdx++]!;
  const loc = await createLocation(t.db, w.provider.id, building.id, unit.id);
  const email = subscriber().email;
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: unit.id, subscriber: subscriber(email) },
  });
  expect(r.statusCode).toBe(201);
  expect(r.json()).toMatchObject({ route: 'install', job_id: null });
  const id: string = r.json().subscription_id;
  const subscriberId: string = r.json().subscriber_id;
  await t.db.updateTable('subscriptions').set({ service_billed: true }).where('id', '=', id).execute();
  if (o.card) {
    const account = (
      await t.db.selectFrom('providers').select('card_processor_account').where('id', '=', w.provider.id).executeTakeFirstOrThrow()
    ).card_processor_account!;
    const setup = await simulatorsOf(t.deps.adapters).cardProcessor.createSetup({ account, subscriberId, email });
    const card = await simulatorsOf(t.deps.adapters).cardProcessor.confirmSetup({ account, setupId: setup.setup_id, cardNumber: o.card });
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: card.payment_method_id, card_brand: card.brand, card_last4: card.last4 })
      .where('id', '=', subscriberId)
      .execute();
  }
  await t.db.updateTable('install_jobs').set({ status: 'SHIPPED' }).where('subscription_id', '=', id).execute();
  return { id, email, locationId: loc.id };
}

type Installed = Awaited<ReturnType<typeof installedServiceBilled>>;

const switchOps = (locationId: string) =>
  t.db.selectFrom('sim_switch_operations').select('action').where('location_id', '=', locationId).execute();

/** Confirmed but not paid: PENDING_INSTALL, no port job, the switch never touched. */
async function expectWaitingForPayment(s: Installed) {
  expect((await subscriptionRow(t, s.id)).status).toBe('PENDING_INSTALL');
  expect(await portJobsOf(t, s.id)).toEqual([]);
  expect(await sims().switchController.getPort(s.locationId)).toBeNull();
}

/** Paid: ACTIVE, one install port job succeeded, the port provisioned once; only pending_install was ever sent. */
async function expectConnectedOnce(s: Installed) {
  expect(await subscriptionRow(t, s.id)).toMatchObject({ status: 'ACTIVE', location_id: s.locationId, activated_at: expect.any(Date) });
  expect((await portJobsOf(t, s.id)).map((j) => [j.status, j.payload])).toEqual([
    ['succeeded', { subscription_id: s.id, reason: 'install' }],
  ]);
  expect(await switchOps(s.locationId)).toEqual([{ action: 'provision_port' }]);
  expect(await sims().switchController.getPort(s.locationId)).toMatchObject({
    mode: 'provisioned',
    download_mbps: 500,
    upload_mbps: 100,
    operations: 1,
  });
  const events = rx.events.filter((e) => e.data.subscription_id === s.id);
  expect(events.map((e) => e.type)).toEqual(['subscription.pending_install']);
  expect(rx.requests.filter((q) => q.rejected)).toEqual([]);
  const deliveries = await t.db
    .selectFrom('webhook_deliveries')
    .select(['event_type', 'status'])
    .where('subscription_id', '=', s.id)
    .execute();
  expect(deliveries).toEqual([{ event_type: 'subscription.pending_install', status: 'delivered' }]);
}

async function confirmed(s: Installed) {
  const r = await confirm(s.id);
  expect(r.statusCode).toBe(200);
  // Nothing is provisioned before the payment: no port job yet.
  expect(r.json()).toMatchObject({ subscription_id: s.id, status: 'PENDING_INSTALL', payment: 'collecting', job_id: null });
  await t.deps.jobs.drain();
}

async function payLinkOf(s: Installed) {
  const mail = (await mailsTo(t, s.email)).find((m) => m.tag === 'payment_link');
  expect(mail).toBeDefined();
  return tokenIn(mail!.text, '/pay/');
}

describe('an installed service-billed subscription is connected when its first invoice is paid', () => {
  it('paid by the emailed link: PENDING_INSTALL until paid, then ACTIVE and the port configured exactly once; no webhook after pending_install', async () => {
    const s = await installedServiceBilled();
    await confirmed(s);
    await expectWaitingForPayment(s);
    const paid = await payByLink(await payLinkOf(s), TEST_CARDS.succeeds);
    expect(paid.statusCode).toBe(200);
    await t.deps.jobs.drain();
    await expectConnectedOnce(s);
  });

  it('paid by the saved card at confirmation: ACTIVE and the port configured exactly once', async () => {
    const s = await installedServiceBilled({ card: TEST_CARDS.succeeds });
    await confirmed(s);
    await expectConnectedOnce(s);
  });

  it('saved card declined, then paid later by the link (after a declined attempt there): connected only after the payment, exactly once', async () => {
    const s = await installedServiceBilled({ card: TEST_CARDS.chargeDeclined });
    await confirmed(s);
    await expectWaitingForPayment(s);
    const token = await payLinkOf(s);
    const declined = await payByLink(token, TEST_CARDS.declined);
    expect(declined.statusCode).toBe(402);
    await t.deps.jobs.drain();
    await expectWaitingForPayment(s);
    expect((await payByLink(token, TEST_CARDS.succeeds)).statusCode).toBe(200);
    await t.deps.jobs.drain();
    await expectConnectedOnce(s);
  });

  it('card processor unreachable at confirmation: the collection job retries the saved card later; connected after that charge, exactly once', async () => {
    const s = await installedServiceBilled({ card: TEST_CARDS.succeeds });
    sims().cardProcessor.faults.set('unreachable', { times: 1 });
    await confirmed(s);
    await expectWaitingForPayment(s);
    await drainWithRetries(t, 3, 10 * 60_000);
    expect(await t.db.selectFrom('invoices').select(['status', 'payment_method']).where('subscription_id', '=', s.id).execute()).toEqual([
      { status: 'paid', payment_method: 'card' },
    ]);
    await expectConnectedOnce(s);
  });

  it('a provider-billed installation is ACTIVE at confirmation and its port job is queued in that transaction (job_id answered)', async () => {
    const s = await installedServiceBilled();
    await t.db.updateTable('subscriptions').set({ service_billed: false }).where('id', '=', s.id).execute();
    const r = await confirm(s.id);
    expect(r.statusCode).toBe(200);
    const jobs = await portJobsOf(t, s.id);
    expect(r.json()).toMatchObject({ status: 'ACTIVE', payment: 'not_billed', job_id: jobs[0]!.id });
    await t.deps.jobs.drain();
    await expectConnectedOnce(s);
  });

  it('an install port job that meets a subscription not ACTIVE (queued by an older release before the payment) stands down instead of failing; the payment connects it', async () => {
    const s = await installedServiceBilled();
    await confirmed(s);
    await t.deps.jobs.enqueue(t.db, {
      kind: 'provisioning.port',
      payload: { subscription_id: s.id, reason: 'install' },
      providerId: w.provider.id,
      subscriptionId: s.id,
    });
    await t.deps.jobs.drain();
    const [early] = await portJobsOf(t, s.id);
    expect(early).toMatchObject({ status: 'succeeded', result: { skipped: 'subscription is PENDING_INSTALL' } });
    expect(await sims().switchController.getPort(s.locationId)).toBeNull();
    expect((await payByLink(await payLinkOf(s), TEST_CARDS.succeeds)).statusCode).toBe(200);
    await t.deps.jobs.drain();
    const jobs = await portJobsOf(t, s.id);
    expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
    expect(await switchOps(s.locationId)).toEqual([{ action: 'provision_port' }]);
    expect((await subscriptionRow(t, s.id)).status).toBe('ACTIVE');
  });
});
