// Issue 28 §2: the SHIPPED step. Staff (sp_admin or support) mark the equipment shipped with carrier and
// tracking reference, from CREATED or BOOKED only; the subscriber is mailed the reference (a mail job).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createProvider, createUser } from '../helpers/factories.js';
import { mailsTo } from '../billing/fixtures.js';
import { createWorld, installJobOf, subscriber, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let second: Awaited<ReturnType<typeof createBuilding>>;
let third: Awaited<ReturnType<typeof createBuilding>>;
let unit = 0;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  const units = Array.from({ length: 20 }, (_, i) => `S${i}`);
  second = await createBuilding(t.db, w.provider.id, { lineType: 'second_line', units });
  third = await createBuilding(t.db, w.provider.id, { lineType: 'third_line', units });
});
afterAll(() => t.close());

async function tokenOf(providerId: string | null, role: 'service_provider' | 'platform_admin' | 'subscriber', spRole: string | null) {
  const u = await createUser(t.db, { role, spRole, providerId });
  const tok = await t.services.auth.issueJwt({ id: u.id, role, sp_role: spRole, provider_id: providerId });
  return { authorization: `Bearer ${tok.access_token}` };
}

async function order(building: typeof second) {
  const person = subscriber();
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: building.units[unit++]!.id, subscriber: person },
  });
  expect(r.statusCode).toBe(201);
  return { id: r.json().subscription_id as string, email: person.email };
}

const ship = (headers: Record<string, string>, subscription_id: string, prefix = '', o: { carrier?: string; ref?: string } = {}) =>
  t.app.inject({
    method: 'POST',
    url: `${prefix}/provisioning/ship-install`,
    headers,
    payload: { subscription_id, carrier: o.carrier ?? 'DHL', tracking_reference: o.ref ?? 'JJD0001234567' },
  });

describe('POST /provisioning/ship-install', () => {
  it('support staff ship a second-line CPE (CREATED → SHIPPED): 200 with the shipment, the job row, an audit entry and a mail with the tracking reference', async () => {
    const support = await tokenOf(w.provider.id, 'service_provider', 'support');
    const o = await order(second);
    expect((await installJobOf(t, o.id))!.status).toBe('CREATED');
    const r = await ship(support, o.id, '', { carrier: 'DHL', ref: 'JJD0001234567' });
    expect(r.statusCode).toBe(200);
    const job = await installJobOf(t, o.id);
    expect(r.json()).toEqual({
      subscription_id: o.id,
      install_job_id: job!.id,
      status: 'SHIPPED',
      kind: 'cpe_shipment',
      carrier: 'DHL',
      tracking_reference: 'JJD0001234567',
      shipped_at: t.clock.now().toISOString(),
      mailed: true,
    });
    expect(job).toMatchObject({ status: 'SHIPPED', carrier: 'DHL', tracking_reference: 'JJD0001234567', shipped_at: t.clock.now() });
    const mails = (await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('JJD0001234567');
    expect(mails[0]!.text).toContain('DHL');
    expect(mails[0]!.html).toContain('JJD0001234567');
    const audit = await t.db
      .selectFrom('audit_entries')
      .selectAll()
      .where('action', '=', 'install.ship')
      .where('entity_id', '=', o.id)
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('a repeat with the same carrier and reference replays 200 without a second mail; another reference answers 409', async () => {
    const admin = await tokenOf(w.provider.id, 'service_provider', 'sp_admin');
    const o = await order(second);
    expect((await ship(admin, o.id)).statusCode).toBe(200);
    const again = await ship(admin, o.id, '/api/v1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ status: 'SHIPPED', mailed: false });
    expect((await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped')).toHaveLength(1);
    const other = await ship(admin, o.id, '', { ref: 'OTHER-REF' });
    expect(other.statusCode).toBe(409);
    expect((await installJobOf(t, o.id))!.tracking_reference).toBe('JJD0001234567');
  });

  it('third-line: 409 while no window is booked (BOOKING_SENT), 200 once BOOKED; the mail repeats the appointment in local time', async () => {
    const admin = await tokenOf(w.provider.id, 'service_provider', null);
    const o = await order(third);
    expect((await installJobOf(t, o.id))!.status).toBe('BOOKING_SENT');
    const early = await ship(admin, o.id);
    expect(early.statusCode).toBe(409);
    expect(early.json().detail).toContain('BOOKING_SENT');
    expect((await installJobOf(t, o.id))!.status).toBe('BOOKING_SENT');
    const invite = (await mailsTo(t, o.email)).find((m) => m.tag === 'installation_booking')!;
    const token = /\/booking\/([A-Za-z0-9_-]+)/.exec(invite.text)![1];
    const slots = (await t.app.inject({ method: 'GET', url: `/booking/${token}/slots` })).json();
    const booked = await t.app.inject({ method: 'POST', url: `/booking/${token}`, payload: { starts_at: slots.windows[0].starts_at } });
    expect(booked.statusCode).toBe(200);
    const r = await ship(admin, o.id, '/api/v1', { carrier: 'UPS', ref: '1Z999AA10123456784' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ kind: 'technician_visit', status: 'SHIPPED' });
    const mail = (await mailsTo(t, o.email)).find((m) => m.tag === 'installation_shipped')!;
    expect(mail.text).toContain('1Z999AA10123456784');
    expect(mail.text).toContain('Europe/Berlin');
    // The booking link no longer moves the appointment.
    const move = await t.app.inject({ method: 'POST', url: `/booking/${token}`, payload: { starts_at: slots.windows[1].starts_at } });
    expect(move.statusCode).toBeGreaterThanOrEqual(400);
  });

  it('409 after completion and after cancellation', async () => {
    const admin = await tokenOf(w.provider.id, 'service_provider', 'sp_admin');
    for (const status of ['COMPLETED', 'CANCELLED', 'BOOKING_HELD']) {
      const o = await order(second);
      await t.db.updateTable('install_jobs').set({ status }).where('subscription_id', '=', o.id).execute();
      const r = await ship(admin, o.id);
      expect(r.statusCode, status).toBe(409);
      expect((await installJobOf(t, o.id))!.status).toBe(status);
    }
  });

  it('403 for sales, bookkeeping and subscriber accounts; 404 for staff of another provider; 401 without a token; 403 with an API key only', async () => {
    const o = await order(second);
    for (const h of [
      await tokenOf(w.provider.id, 'service_provider', 'sales'),
      await tokenOf(w.provider.id, 'service_provider', 'bookkeeping'),
      await tokenOf(null, 'subscriber', null),
    ]) {
      const r = await ship(h, o.id);
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ detail: expect.any(String) });
    }
    const other = await createProvider(t.db);
    const foreign = await ship(await tokenOf(other.id, 'service_provider', 'sp_admin'), o.id);
    expect(foreign.statusCode).toBe(404);
    expect((await ship({}, o.id)).statusCode).toBe(401);
    expect((await ship({ authorization: `Bearer ${w.provider.apiKey}` }, o.id)).statusCode).toBe(403);
    expect((await installJobOf(t, o.id))!.status).toBe('CREATED');
    expect((await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped')).toHaveLength(0);
  });

  it('a platform admin ships for any provider; blank carrier or reference answers 422', async () => {
    const pa = await tokenOf(null, 'platform_admin', null);
    const o = await order(second);
    const blank = await ship(pa, o.id, '', { carrier: '   ' });
    expect(blank.statusCode).toBe(422);
    expect((await ship(pa, o.id)).statusCode).toBe(200);
  });
});
