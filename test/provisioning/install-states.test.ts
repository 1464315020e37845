// Issue 28 §2: every state an install job can hold is reachable through the API (and the service
// functions the operator CLI calls), never only by seeding. The states are read from the database's own
// check constraint, so a state added there fails this test until a route (or CLI service) reaches it.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createLocation, createUser } from '../helpers/factories.js';
import { mailsTo } from '../billing/fixtures.js';
import { createWorld, installJobOf, subscriber, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let staffUserId: string;
let unit = 0;
/** A fresh dashboard token (the test moves the clock past a token's lifetime). */
async function staff() {
  const tok = await t.services.auth.issueJwt({
    id: staffUserId,
    role: 'service_provider',
    sp_role: 'sp_admin',
    provider_id: w.provider.id,
  });
  return { authorization: `Bearer ${tok.access_token}` };
}
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  const u = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: w.provider.id });
  staffUserId = u.id;
});
afterAll(() => t.close());

/** The states install_jobs.status may hold (its CHECK constraint). */
async function declaredStates() {
  const r = await sql<{
    def: string;
  }>`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'install_jobs_status_check'`.execute(t.db);
  return [...r.rows[0]!.def.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]).sort();
}

const seen = new Set<string>();
/** Every transition is recorded from the row the API left behind. */
async function observe(subscriptionId: string, expected: string) {
  const job = await installJobOf(t, subscriptionId);
  expect(job?.status).toBe(expected);
  seen.add(job!.status);
}

async function order(building: World['second'], moveInDate?: string) {
  const u = building.units[unit++ % building.units.length]!;
  await createLocation(t.db, w.provider.id, building.id, u.id);
  const person = subscriber();
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: {
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: u.id,
      subscriber: person,
      ...(moveInDate ? { move_in_date: moveInDate } : {}),
    },
  });
  expect(r.statusCode).toBe(201);
  return { id: r.json().subscription_id as string, email: person.email };
}

const bookingToken = async (email: string) =>
  /\/booking\/([A-Za-z0-9_-]+)/.exec((await mailsTo(t, email)).find((m) => m.tag === 'installation_booking')!.text)![1];
const ship = async (subscription_id: string) =>
  t.app.inject({
    method: 'POST',
    url: '/provisioning/ship-install',
    headers: await staff(),
    payload: { subscription_id, carrier: 'DHL', tracking_reference: 'T-1' },
  });

describe('install job state machine', () => {
  it('reaches every declared state through the API and the scheduled jobs, and no state only by seeding', async () => {
    // Third-line with a far move-in date: BOOKING_HELD; the scheduled release sends the link: BOOKING_SENT.
    const held = await order(w.third, '2027-03-01');
    await observe(held.id, 'BOOKING_HELD');
    t.clock.set('2027-02-01T12:00:00.000Z');
    await t.deps.jobs.drain();
    await observe(held.id, 'BOOKING_SENT');
    // Book a window (BOOKED), cancel it from the link (BOOKING_SENT again), book again.
    const token = await bookingToken(held.email);
    const first = (await t.app.inject({ method: 'GET', url: `/booking/${token}/slots` })).json().windows[0].starts_at;
    expect((await t.app.inject({ method: 'POST', url: `/booking/${token}`, payload: { starts_at: first } })).statusCode).toBe(200);
    await observe(held.id, 'BOOKED');
    expect((await t.app.inject({ method: 'DELETE', url: `/booking/${token}` })).statusCode).toBe(200);
    await observe(held.id, 'BOOKING_SENT');
    expect((await t.app.inject({ method: 'POST', url: `/booking/${token}`, payload: { starts_at: first } })).statusCode).toBe(200);
    await observe(held.id, 'BOOKED');
    // SHIPPED, then COMPLETED by the installation's confirmation.
    expect((await ship(held.id)).statusCode).toBe(200);
    await observe(held.id, 'SHIPPED');
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/provisioning/confirm-install',
      headers: await staff(),
      payload: { subscription_id: held.id },
    });
    expect(confirmed.statusCode).toBe(200);
    await observe(held.id, 'COMPLETED');

    // Second-line: CREATED (no link), then CANCELLED when the subscription is cancelled before installation.
    const cpe = await order(w.second);
    await observe(cpe.id, 'CREATED');
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/v1/subscription/${cpe.id}/cancel`,
      headers: await staff(),
      payload: { end_date: t.clock.now().toISOString().slice(0, 10) },
    });
    expect(cancelled.statusCode).toBe(200);
    await observe(cpe.id, 'CANCELLED');

    // The shipping service the CLI's `install ship` calls reaches SHIPPED too (no HTTP in between).
    const viaCli = await order(w.second);
    await t.services.shipping.ship({
      subscriptionId: viaCli.id,
      carrier: 'UPS',
      trackingReference: '1Z-CLI',
      providerId: null,
      actor: { actorType: 'system', actor: 'ops-cli' },
    });
    await observe(viaCli.id, 'SHIPPED');

    expect([...seen].sort()).toEqual(await declaredStates());
  });
});
