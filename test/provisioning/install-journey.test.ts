// Issue 28 §2: the install journey completes from a NEW checkout session (and from a provider-initiated
// home_drop), with no seeded install job: every step through the API, side effects through the job
// queue's own claim-and-run path (deps.jobs.drain(), what the worker runs), webhooks to a real receiver.
// Seeded are only the inventory an operator imports (provider, plan, buildings, units, switch ports) and,
// for service-billed journeys, the billing flag the dashboard sets (partner-made subscriptions are
// provider-billed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createRegion, createUser } from '../helpers/factories.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { simulatorsOf } from '../../src/adapters/index.js';
import { TEST_CARDS } from '../../src/adapters/card.simulator.js';
import { localTime } from '../../src/lib/zoned-time.js';
import { mailsTo, tokenIn } from '../billing/fixtures.js';
import { createWorld, installJobOf, portJobsOf, subscriber, subscriptionRow, type World } from './fixtures.js';

const ZONE = 'America/Toronto';
let t: TestApp;
let w: World;
let rx: WebhookReceiver;
let staff: { authorization: string };
let third: Awaited<ReturnType<typeof createBuilding>>;
let second: Awaited<ReturnType<typeof createBuilding>>;
let unitIdx = 0;
beforeAll(async () => {
  t = await buildTestApp();
  rx = await startWebhookReceiver({ clock: t.clock });
  w = await createWorld(t, { webhookUrl: rx.url });
  rx.trust(w.provider.signingSecret);
  const u = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: w.provider.id });
  const tok = await t.services.auth.issueJwt({ id: u.id, role: 'service_provider', sp_role: 'support', provider_id: w.provider.id });
  staff = { authorization: `Bearer ${tok.access_token}` };
  // A third-line building in Toronto: its windows are in its own time zone, not the provider's.
  const region = await createRegion(t.db, { timeZone: ZONE });
  const units = Array.from({ length: 12 }, (_, i) => `J${i}`);
  third = await createBuilding(t.db, w.provider.id, { lineType: 'third_line', country: 'CA', region: region.code, units });
  second = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units });
}, 60_000);
afterAll(async () => {
  await rx.close();
  await t.close();
});

type Origin = 'checkout' | 'home_drop';
type Billing = 'service' | 'provider';

/** A new order of a free unit: a checkout session read and completed by the partner, or a provider-initiated home_drop. */
async function order(building: typeof third, origin: Origin) {
  const unit = building.units[unitIdx++]!;
  // The switch port of the unit, as the operator's inventory import registers it.
  const port = await createLocation(t.db, w.provider.id, building.id, unit.id);
  const person = subscriber();
  let sessionId: string | null = null;
  let r;
  if (origin === 'checkout') {
    const created = await t.app.inject({
      method: 'POST',
      url: '/external-checkout/sessions',
      payload: { provider_id: w.provider.id, plan_version_id: w.plan.id, unit_id: unit.id },
    });
    expect(created.statusCode).toBe(201);
    sessionId = created.json().session_id as string;
    const read = await t.app.inject({ method: 'GET', url: `/external-checkout/sessions/${sessionId}`, headers: w.whs });
    expect(read.statusCode).toBe(200);
    r = await t.app.inject({
      method: 'POST',
      url: '/external-checkout/complete',
      headers: w.whs,
      payload: { session_id: sessionId, subscriber: person },
    });
  } else {
    r = await t.app.inject({
      method: 'POST',
      url: '/provisioning/provider-initiated',
      headers: w.hdr,
      payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: unit.id, subscriber: person },
    });
  }
  expect(r.statusCode).toBe(201);
  expect(r.json()).toMatchObject({ route: 'install', job_id: null });
  const id = r.json().subscription_id as string;
  expect((await subscriptionRow(t, id)).status).toBe('PENDING_INSTALL');
  return { id, email: person.email, sessionId, locationId: port.id };
}
type Order = Awaited<ReturnType<typeof order>>;

/** The subscriber books the first free window through the emailed link; it is in the building's local time. */
async function book(o: Order) {
  const invite = (await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_booking');
  expect(invite).toHaveLength(1);
  const token = /\/booking\/([A-Za-z0-9_-]+)/.exec(invite[0]!.text)![1];
  const slots = (await t.app.inject({ method: 'GET', url: `/booking/${token}/slots` })).json();
  expect(slots.time_zone).toBe(ZONE);
  const win = slots.windows[0] as { starts_at: string; ends_at: string };
  expect(['08:00', '12:00', '16:00']).toContain(localTime(ZONE, new Date(win.starts_at)));
  const r = await t.app.inject({ method: 'POST', url: `/booking/${token}`, payload: { starts_at: win.starts_at } });
  expect(r.statusCode).toBe(200);
  expect((await installJobOf(t, o.id))!).toMatchObject({ status: 'BOOKED', booking_starts_at: new Date(win.starts_at) });
  return win;
}

/**
 * The first invoice paid through the emailed pay link. Kept in one place: the card processor's pay path is
 * being replaced by a Stripe stand-in, and only this helper should need to follow.
 */
async function payFirstInvoice(email: string) {
  const mail = (await mailsTo(t, email)).find((m) => m.tag === 'payment_link');
  expect(mail).toBeDefined();
  const paid = await t.app.inject({
    method: 'POST',
    url: `/pay/${tokenIn(mail!.text, '/pay/')}`,
    payload: { card_number: TEST_CARDS.succeeds },
  });
  expect(paid.statusCode).toBe(200);
  await t.deps.jobs.drain();
}

async function journey(building: typeof third, origin: Origin, billing: Billing) {
  const o = await order(building, origin);
  if (billing === 'service') await t.db.updateTable('subscriptions').set({ service_billed: true }).where('id', '=', o.id).execute();
  await t.deps.jobs.drain();
  // PENDING_INSTALL and its webhook, delivered.
  expect(rx.events.filter((e) => e.data.subscription_id === o.id).map((e) => e.type)).toEqual(['subscription.pending_install']);

  const thirdLine = building === third;
  const job = await installJobOf(t, o.id);
  expect(job).toMatchObject({ kind: thirdLine ? 'technician_visit' : 'cpe_shipment', status: thirdLine ? 'BOOKING_SENT' : 'CREATED' });
  if (thirdLine) await book(o);
  else expect((await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_booking')).toEqual([]);

  const shipped = await t.app.inject({
    method: 'POST',
    url: '/provisioning/ship-install',
    headers: staff,
    payload: { subscription_id: o.id, carrier: 'Canada Post', tracking_reference: `CP-${o.id.slice(0, 8)}` },
  });
  expect(shipped.statusCode).toBe(200);
  await t.deps.jobs.drain();
  const shipMail = (await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped');
  expect(shipMail).toHaveLength(1);
  expect(shipMail[0]!.text).toContain(`CP-${o.id.slice(0, 8)}`);

  const confirmed = await t.app.inject({
    method: 'POST',
    url: '/provisioning/confirm-install',
    headers: staff,
    payload: { subscription_id: o.id },
  });
  expect(confirmed.statusCode).toBe(200);
  await t.deps.jobs.drain();
  if (billing === 'service') {
    expect(confirmed.json()).toMatchObject({ status: 'PENDING_INSTALL', payment: 'collecting', job_id: null });
    expect((await subscriptionRow(t, o.id)).status).toBe('PENDING_INSTALL');
    expect(await portJobsOf(t, o.id)).toEqual([]);
    await payFirstInvoice(o.email);
  } else {
    expect(confirmed.json()).toMatchObject({ status: 'ACTIVE', payment: 'not_billed', job_id: expect.any(String) });
  }
  await t.deps.jobs.drain();

  // ACTIVE, the port provisioned exactly once, the install job COMPLETED.
  expect(await subscriptionRow(t, o.id)).toMatchObject({ status: 'ACTIVE', location_id: o.locationId });
  expect((await installJobOf(t, o.id))!.status).toBe('COMPLETED');
  expect((await portJobsOf(t, o.id)).map((j) => [j.status, j.payload])).toEqual([
    ['succeeded', { subscription_id: o.id, reason: 'install' }],
  ]);
  const ops = await t.db.selectFrom('sim_switch_operations').select('action').where('location_id', '=', o.locationId).execute();
  expect(ops).toEqual([{ action: 'provision_port' }]);
  expect(await simulatorsOf(t.deps.adapters).switchController.getPort(o.locationId)).toMatchObject({ mode: 'provisioned', operations: 1 });
  // Exactly the partner document's webhooks: subscription.pending_install, then none ("no webhooks fire").
  expect(rx.events.filter((e) => e.data.subscription_id === o.id).map((e) => e.type)).toEqual(['subscription.pending_install']);
  expect(rx.requests.filter((q) => q.rejected)).toEqual([]);
  if (o.sessionId) {
    const status = await t.app.inject({ method: 'GET', url: `/external-checkout/sessions/${o.sessionId}/status` });
    expect(status.json()).toMatchObject({ status: 'completed', subscription_status: 'ACTIVE' });
  }
}

describe('the install journey from a new order, with no seeded install job', () => {
  for (const origin of ['checkout', 'home_drop'] as const) {
    for (const billing of ['service', 'provider'] as const) {
      it(`third-line, ${origin}, ${billing}-billed: booking invitation, a window in Toronto time, shipped, confirmed, ${billing === 'service' ? 'paid by the link' : 'active at once'}, provisioned once, ACTIVE`, async () => {
        await journey(third, origin, billing);
      });
      it(`second-line, ${origin}, ${billing}-billed: no booking link, shipped CPE, confirmed, ${billing === 'service' ? 'paid by the link' : 'active at once'}, provisioned once, ACTIVE`, async () => {
        await journey(second, origin, billing);
      });
    }
  }
});
