import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding } from '../helpers/factories.js';
import { createWorld, installJobOf, subscriber, type World } from './fixtures.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import { BOOKING_SCRIPT_HASH } from '../../src/modules/install/booking.page.js';
import { candidateWindows, earliestStart } from '../../src/modules/install/booking.slots.js';

// DEFAULT_NOW is Monday 2026-11-16 10:00 UTC.
let t: TestApp;
let w: World;
let third: Awaited<ReturnType<typeof createBuilding>>;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  third = await createBuilding(t.db, w.provider.id, { lineType: 'third_line', units: Array.from({ length: 24 }, (_, i) => `U${i}`) });
});
afterAll(() => t.close());

let unitIdx = 0;
/** A third-line order; returns the ids and (when sent) the token of the emailed booking link. */
async function order(o: { moveInDate?: string } = {}) {
  const person = subscriber();
  const r = await t.app.inject({
    method: 'POST', url: '/provisioning/provider-initiated', headers: w.hdr,
    payload: { plan_version_id: w.plan.id, unit_id: third.units[unitIdx++].id, subscriber: person, ...(o.moveInDate ? { move_in_date: o.moveInDate } : {}) },
  });
  expect(r.statusCode).toBe(201);
  return { ...r.json(), email: person.email, token: await tokenFor(person.email) } as { subscription_id: string; subscriber_id: string; email: string; token: string | null };
}

async function tokenFor(email: string): Promise<string | null> {
  const mails = await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'mail.send').execute();
  const m = mails.map((x) => x.payload as { to: string; tag: string; text: string }).find((p) => p.to === email && p.tag === 'installation_booking');
  return m ? /\/booking\/([A-Za-z0-9_-]+)/.exec(m.text)![1] : null;
}

const slots = (token: string) => t.app.inject({ method: 'GET', url: `/booking/${token}/slots` });
const book = (token: string, starts_at: string, prefix = '') => t.app.inject({ method: 'POST', url: `${prefix}/booking/${token}`, payload: { starts_at } });
const cancel = (token: string) => t.app.inject({ method: 'DELETE', url: `/booking/${token}` });

describe('booking page headers', () => {
  it('the booking page sends its CSP (its one script by hash, fetch to itself only), frame-ancestors none, no referrer, nosniff and no-store, on both mounts', async () => {
    const o = await order();
    for (const prefix of ['', '/api/v1']) {
      const page = await t.app.inject({ method: 'GET', url: `${prefix}/booking/${o.token}` });
      expect(page.statusCode).toBe(200);
      expectPageHeaders(page, { token: true });
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain(`script-src ${BOOKING_SCRIPT_HASH}`);
      expect(csp).toContain("connect-src 'self'");
      // The inline script is the one the hash names (the token is in data-base, not in the script).
      const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)![1];
      expect(`'sha256-${createHash('sha256').update(script).digest('base64')}'`).toBe(BOOKING_SCRIPT_HASH);
      expect(script).not.toContain(o.token!);
      expect(page.body).toContain(`data-base="./${o.token}"`);
    }
    const unknown = await t.app.inject({ method: 'GET', url: '/booking/unknown-token-123' });
    expect(unknown.statusCode).toBe(404);
    expectPageHeaders(unknown, { token: true });
  });
});

describe('booking invitation (third-line)', () => {
  it('without a move-in date the link is mailed at once: BOOKING_SENT, a booking token bound to the install job', async () => {
    const o = await order();
    const job = await installJobOf(t, o.subscription_id);
    expect(job).toMatchObject({ status: 'BOOKING_SENT', kind: 'technician_visit', booking_invite_sent_at: t.clock.now() });
    expect(o.token).toEqual(expect.any(String));
    const link = await t.db.selectFrom('link_tokens').selectAll().where('subscriber_id', '=', o.subscriber_id).executeTakeFirstOrThrow();
    expect(link).toMatchObject({ purpose: 'booking', reference_id: job!.id, used_at: null });
  });

  it('a move-in date inside the provider\'s booking window (28 days) sends at once', async () => {
    const o = await order({ moveInDate: '2026-12-14' });
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_SENT');
    expect(o.token).not.toBeNull();
  });

  it('a later move-in date holds the invitation (BOOKING_HELD, no link) until the date is inside the window, then a scheduled job sends it', async () => {
    const o = await order({ moveInDate: '2027-01-20' });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKING_HELD', booking_invite_sent_at: null, move_in_date: '2027-01-20' });
    expect(o.token).toBeNull();
    const job = await t.db.selectFrom('jobs').selectAll().where('kind', '=', 'install.booking_invite').where('subscription_id', '=', o.subscription_id).executeTakeFirstOrThrow();
    expect(job.run_at).toEqual(new Date('2026-12-23T00:00:00.000Z'));
    await t.deps.jobs.drain();
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_HELD');
    t.clock.set('2026-12-23T00:00:01.000Z');
    try {
      await t.deps.jobs.drain();
      expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKING_SENT', booking_invite_sent_at: new Date('2026-12-23T00:00:01.000Z') });
      const token = await tokenFor(o.email);
      expect(token).not.toBeNull();
      // Windows start on the move-in day at the earliest.
      const s = await slots(token!);
      expect(s.json().windows[0].starts_at).toBe('2027-01-20T08:00:00.000Z');
    } finally {
      t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });

  it('a held invitation of a subscription no longer pending install is not sent', async () => {
    const o = await order({ moveInDate: '2027-02-20' });
    await t.db.updateTable('subscriptions').set({ status: 'CANCELLED' }).where('id', '=', o.subscription_id).execute();
    t.clock.set('2027-01-24T00:00:01.000Z');
    try {
      await t.deps.jobs.drain();
      expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_HELD');
      expect(await tokenFor(o.email)).toBeNull();
    } finally {
      t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });
});

describe('booking windows', () => {
  it('offers four-hour weekday windows starting 08:00, 12:00 and 16:00 UTC, at least 24 hours ahead', async () => {
    const o = await order();
    const r = await slots(o.token!);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ status: 'BOOKING_SENT', bookable: true, booking: null, move_in_date: null });
    // Monday 10:00 + 24 h = Tuesday 10:00: the first window is Tuesday 12:00.
    expect(body.windows[0]).toEqual({ starts_at: '2026-11-17T12:00:00.000Z', ends_at: '2026-11-17T16:00:00.000Z' });
    for (const win of body.windows) {
      const s = new Date(win.starts_at);
      expect([1, 2, 3, 4, 5]).toContain(s.getUTCDay());
      expect([8, 12, 16]).toContain(s.getUTCHours());
      expect(new Date(win.ends_at).getTime() - s.getTime()).toBe(4 * 3_600_000);
      expect(s.getTime() - t.clock.now().getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
    }
    expect(body.windows.some((x: { starts_at: string }) => x.starts_at.startsWith('2026-11-21'))).toBe(false);
  });

  it('the calendar rules as pure functions: move-in date bounds the earliest start; weekends are skipped', () => {
    const now = new Date('2026-11-20T15:00:00Z'); // Friday
    expect(earliestStart(now, null)).toEqual(new Date('2026-11-21T15:00:00Z'));
    expect(candidateWindows(earliestStart(now, null), 3)[0].starts_at).toEqual(new Date('2026-11-23T08:00:00Z'));
    expect(earliestStart(now, '2026-12-01')).toEqual(new Date('2026-12-01T00:00:00Z'));
  });

  it('books a window, moves it, cancels it through the same link (both mounts), with the install job following', async () => {
    const o = await order();
    const jobBefore = await installJobOf(t, o.subscription_id);
    const a = await book(o.token!, '2026-11-18T08:00:00Z');
    expect(a.statusCode).toBe(200);
    expect(a.json()).toEqual({ status: 'BOOKED', booking: { starts_at: '2026-11-18T08:00:00.000Z', ends_at: '2026-11-18T12:00:00.000Z' } });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ id: jobBefore!.id, status: 'BOOKED', booking_starts_at: new Date('2026-11-18T08:00:00Z'), booking_ends_at: new Date('2026-11-18T12:00:00Z') });
    expect((await slots(o.token!)).json().booking).toEqual({ starts_at: '2026-11-18T08:00:00.000Z', ends_at: '2026-11-18T12:00:00.000Z' });
    const moved = await book(o.token!, '2026-11-19T16:00:00+00:00', '/api/v1');
    expect(moved.statusCode).toBe(200);
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKED', booking_starts_at: new Date('2026-11-19T16:00:00Z') });
    const c = await cancel(o.token!);
    expect(c.statusCode).toBe(200);
    expect(c.json()).toEqual({ status: 'BOOKING_SENT', booking: null });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKING_SENT', booking_starts_at: null, booking_ends_at: null });
    const again = await cancel(o.token!);
    expect(again.statusCode).toBe(409);
    // The link is still valid: book again.
    expect((await book(o.token!, '2026-11-20T12:00:00Z')).statusCode).toBe(200);
  });

  it('refuses a weekend, a misaligned start, a start under 24 hours ahead and one beyond the horizon with 422', async () => {
    const o = await order();
    for (const s of ['2026-11-21T08:00:00Z', '2026-11-18T09:00:00Z', '2026-11-17T08:00:00Z', '2027-03-01T08:00:00Z']) {
      const r = await book(o.token!, s);
      expect(r.statusCode, s).toBe(422);
      expect(r.json().detail).toMatch(/^starts_at: /);
    }
    expect((await book(o.token!, 'tomorrow')).statusCode).toBe(422);
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_SENT');
  });

  it('a window with three bookings is full: no longer offered, and booking it answers 409', async () => {
    const start = '2026-11-24T12:00:00.000Z';
    for (let i = 0; i < 3; i++) {
      const o = await order();
      expect((await book(o.token!, start)).statusCode).toBe(200);
    }
    const late = await order();
    expect((await slots(late.token!)).json().windows.map((x: { starts_at: string }) => x.starts_at)).not.toContain(start);
    const r = await book(late.token!, start);
    expect(r.statusCode).toBe(409);
    expect((await installJobOf(t, late.subscription_id))!.status).toBe('BOOKING_SENT');
  });

  it('an appointment less than 24 hours away can no longer be moved or cancelled (409)', async () => {
    const o = await order();
    expect((await book(o.token!, '2026-11-18T16:00:00Z')).statusCode).toBe(200);
    t.clock.set('2026-11-17T17:00:00Z');
    try {
      expect((await cancel(o.token!)).statusCode).toBe(409);
      expect((await book(o.token!, '2026-11-20T08:00:00Z')).statusCode).toBe(409);
      expect((await installJobOf(t, o.subscription_id))!.booking_starts_at).toEqual(new Date('2026-11-18T16:00:00Z'));
    } finally {
      t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });

  it('once the installation left the booking states (e.g. SHIPPED) the link shows it and changes answer 409', async () => {
    const o = await order();
    await t.db.updateTable('install_jobs').set({ status: 'SHIPPED' }).where('subscription_id', '=', o.subscription_id).execute();
    const s = await slots(o.token!);
    expect(s.json()).toMatchObject({ status: 'SHIPPED', bookable: false, windows: [] });
    expect((await book(o.token!, '2026-11-18T08:00:00Z')).statusCode).toBe(409);
  });
});

describe('booking link and page', () => {
  it('an unknown or expired token answers 404 on every booking endpoint', async () => {
    const o = await order();
    const bad = 'x'.repeat(43);
    for (const r of [await slots(bad), await book(bad, '2026-11-18T08:00:00Z'), await cancel(bad), await t.app.inject({ method: 'GET', url: `/booking/${bad}` })]) {
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Booking link not found or expired' });
    }
    await t.db.updateTable('link_tokens').set({ expires_at: new Date(t.clock.now().getTime() - 1) }).where('subscriber_id', '=', o.subscriber_id).execute();
    expect((await slots(o.token!)).statusCode).toBe(404);
  });

  it('GET /booking/{token} renders an HTML page listing the free windows and the appointment', async () => {
    const o = await order();
    await book(o.token!, '2026-11-18T12:00:00Z');
    const r = await t.app.inject({ method: 'GET', url: `/booking/${o.token}` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body).toContain('Your appointment');
    expect(r.body).toContain('12:00–16:00 UTC');
    expect(r.body).toContain('data-start="2026-11-19T08:00:00.000Z"');
    expect(r.body).toContain('data-cancel');
  });
});
