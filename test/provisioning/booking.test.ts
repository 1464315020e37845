import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createRegion } from '../helpers/factories.js';
import { createWorld, installJobOf, subscriber, type World } from './fixtures.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import { BOOKING_SCRIPT_HASH } from '../../src/surfaces/pages/booking.page.js';
import { candidateWindows, earliestStart } from '../../src/modules/install/booking.slots.js';
import { localDate, localTime, weekdayOf } from '../../src/lib/zoned-time.js';

// DEFAULT_NOW is Monday 2026-11-16 10:00 UTC: 11:00 in Berlin (CET, UTC+1), 05:00 in Toronto (EST, UTC-5).
// The factory's buildings are German (no region: the DE row, Europe/Berlin), so windows start at
// 07:00, 11:00 and 15:00 UTC in November.
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
async function order(o: { moveInDate?: string; unitId?: string } = {}) {
  const person = subscriber();
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: {
      plan_version_id: w.plan.id,
      delivery_mode: 'home_drop',
      unit_id: o.unitId ?? third.units[unitIdx++]!.id,
      subscriber: person,
      ...(o.moveInDate ? { move_in_date: o.moveInDate } : {}),
    },
  });
  expect(r.statusCode).toBe(201);
  return { ...r.json(), email: person.email, token: await tokenFor(person.email) };
}

async function tokenFor(email: string): Promise<string | null> {
  const mails = await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'mail.send').execute();
  const m = mails
    .map((x) => x.payload as { to: string; tag: string; text: string })
    .find((p) => p.to === email && p.tag === 'installation_booking');
  return m ? /\/booking\/([A-Za-z0-9_-]+)/.exec(m.text)![1]! : null;
}

const slots = (token: string) => t.app.inject({ method: 'GET', url: `/booking/${token}/slots` });
const book = (token: string, starts_at: string, prefix = '') =>
  t.app.inject({ method: 'POST', url: `${prefix}/booking/${token}`, payload: { starts_at } });
const cancel = (token: string) => t.app.inject({ method: 'DELETE', url: `/booking/${token}` });

/** Every window is four local hours on a local weekday, starting 08:00, 12:00 or 16:00, at least 24 hours ahead. */
function expectLocalWindows(windows: { starts_at: string; ends_at: string }[], zone: string) {
  expect(windows.length).toBeGreaterThan(0);
  for (const win of windows) {
    const s = new Date(win.starts_at);
    expect([1, 2, 3, 4, 5], win.starts_at).toContain(weekdayOf(localDate(zone, s)));
    expect(['08:00', '12:00', '16:00'], win.starts_at).toContain(localTime(zone, s));
    expect(localTime(zone, new Date(win.ends_at))).toBe(`${String(Number(localTime(zone, s).slice(0, 2)) + 4).padStart(2, '0')}:00`);
    expect(s.getTime() - t.clock.now().getTime()).toBeGreaterThanOrEqual(24 * 3_600_000);
  }
}

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
      const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)![1]!;
      expect(`'sha256-${createHash('sha256').update(script).digest('base64')}'`).toBe(BOOKING_SCRIPT_HASH);
      expect(script).not.toContain(o.token);
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

  it("a move-in date inside the provider's booking window (28 days) sends at once", async () => {
    const o = await order({ moveInDate: '2026-12-14' });
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_SENT');
    expect(o.token).not.toBeNull();
  });

  it('a later move-in date holds the invitation (BOOKING_HELD, no link) until the date is inside the window, then a scheduled job sends it', async () => {
    const o = await order({ moveInDate: '2027-01-20' });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({
      status: 'BOOKING_HELD',
      booking_invite_sent_at: null,
      move_in_date: '2027-01-20',
    });
    expect(o.token).toBeNull();
    const job = await t.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'install.booking_invite')
      .where('subscription_id', '=', o.subscription_id)
      .executeTakeFirstOrThrow();
    // Local midnight of the release day (28 days before move-in) in Berlin.
    expect(job.run_at).toEqual(new Date('2026-12-22T23:00:00.000Z'));
    await t.deps.jobs.drain();
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_HELD');
    t.clock.set('2026-12-23T00:00:01.000Z');
    try {
      await t.deps.jobs.drain();
      expect(await installJobOf(t, o.subscription_id)).toMatchObject({
        status: 'BOOKING_SENT',
        booking_invite_sent_at: new Date('2026-12-23T00:00:01.000Z'),
      });
      const token = await tokenFor(o.email);
      expect(token).not.toBeNull();
      // Windows start on the move-in day at the earliest.
      const s = await slots(token!);
      expect(s.json().windows[0].starts_at).toBe('2027-01-20T07:00:00.000Z');
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
  it("offers four-hour weekday windows starting 08:00, 12:00 and 16:00 in the building's time zone (Berlin), at least 24 hours ahead", async () => {
    const o = await order();
    const r = await slots(o.token);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ time_zone: 'Europe/Berlin', status: 'BOOKING_SENT', bookable: true, booking: null, move_in_date: null });
    // Monday 11:00 Berlin + 24 h = Tuesday 11:00: the first window is Tuesday 12:00 Berlin (11:00 UTC).
    expect(body.windows[0]).toEqual({ starts_at: '2026-11-17T11:00:00.000Z', ends_at: '2026-11-17T15:00:00.000Z' });
    expectLocalWindows(body.windows, 'Europe/Berlin');
    expect(body.windows.some((x: { starts_at: string }) => x.starts_at.startsWith('2026-11-21'))).toBe(false);
  });

  it('the calendar rules as pure functions: move-in date bounds the earliest start at local midnight; weekends are skipped', () => {
    const now = new Date('2026-11-20T15:00:00Z'); // Friday
    expect(earliestStart(now, null, 'Europe/Berlin')).toEqual(new Date('2026-11-21T15:00:00Z'));
    expect(candidateWindows(earliestStart(now, null, 'Europe/Berlin'), 'Europe/Berlin', 3)[0]!.starts_at).toEqual(
      new Date('2026-11-23T07:00:00Z'),
    );
    expect(candidateWindows(earliestStart(now, null, 'America/Toronto'), 'America/Toronto', 3)[0]!.starts_at).toEqual(
      new Date('2026-11-23T13:00:00Z'),
    );
    expect(earliestStart(now, '2026-12-01', 'Europe/Berlin')).toEqual(new Date('2026-11-30T23:00:00Z'));
    expect(earliestStart(now, '2026-12-01', 'America/Toronto')).toEqual(new Date('2026-12-01T05:00:00Z'));
  });

  it('books a window, moves it, cancels it through the same link (both mounts), with the install job following', async () => {
    const o = await order();
    const jobBefore = await installJobOf(t, o.subscription_id);
    const a = await book(o.token, '2026-11-18T07:00:00Z');
    expect(a.statusCode).toBe(200);
    expect(a.json()).toEqual({ status: 'BOOKED', booking: { starts_at: '2026-11-18T07:00:00.000Z', ends_at: '2026-11-18T11:00:00.000Z' } });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({
      id: jobBefore!.id,
      status: 'BOOKED',
      booking_starts_at: new Date('2026-11-18T07:00:00Z'),
      booking_ends_at: new Date('2026-11-18T11:00:00Z'),
    });
    expect((await slots(o.token)).json().booking).toEqual({ starts_at: '2026-11-18T07:00:00.000Z', ends_at: '2026-11-18T11:00:00.000Z' });
    const moved = await book(o.token, '2026-11-19T16:00:00+01:00', '/api/v1');
    expect(moved.statusCode).toBe(200);
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({
      status: 'BOOKED',
      booking_starts_at: new Date('2026-11-19T15:00:00Z'),
    });
    const c = await cancel(o.token);
    expect(c.statusCode).toBe(200);
    expect(c.json()).toEqual({ status: 'BOOKING_SENT', booking: null });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({
      status: 'BOOKING_SENT',
      booking_starts_at: null,
      booking_ends_at: null,
    });
    const again = await cancel(o.token);
    expect(again.statusCode).toBe(409);
    // The link is still valid: book again.
    expect((await book(o.token, '2026-11-20T11:00:00Z')).statusCode).toBe(200);
  });

  it('refuses a weekend, a start at a UTC window hour (09:00 Berlin), a start under 24 hours ahead and one beyond the horizon with 422', async () => {
    const o = await order();
    for (const s of ['2026-11-21T07:00:00Z', '2026-11-18T08:00:00Z', '2026-11-17T07:00:00Z', '2027-03-01T07:00:00Z']) {
      const r = await book(o.token, s);
      expect(r.statusCode, s).toBe(422);
      expect(r.json().detail).toMatch(/^starts_at: /);
    }
    expect((await book(o.token, 'tomorrow')).statusCode).toBe(422);
    expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_SENT');
  });

  it('a window with three bookings is full: no longer offered, and booking it answers 409', async () => {
    const start = '2026-11-24T11:00:00.000Z';
    for (let i = 0; i < 3; i++) {
      const o = await order();
      expect((await book(o.token, start)).statusCode).toBe(200);
    }
    const late = await order();
    expect((await slots(late.token)).json().windows.map((x: { starts_at: string }) => x.starts_at)).not.toContain(start);
    const r = await book(late.token, start);
    expect(r.statusCode).toBe(409);
    expect((await installJobOf(t, late.subscription_id))!.status).toBe('BOOKING_SENT');
  });

  it('an appointment less than 24 hours away can no longer be moved or cancelled (409)', async () => {
    const o = await order();
    expect((await book(o.token, '2026-11-18T15:00:00Z')).statusCode).toBe(200);
    t.clock.set('2026-11-17T17:00:00Z');
    try {
      expect((await cancel(o.token)).statusCode).toBe(409);
      expect((await book(o.token, '2026-11-20T07:00:00Z')).statusCode).toBe(409);
      expect((await installJobOf(t, o.subscription_id))!.booking_starts_at).toEqual(new Date('2026-11-18T15:00:00Z'));
    } finally {
      t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });

  it('once the installation left the booking states (e.g. SHIPPED) the link shows it and changes answer 409', async () => {
    const o = await order();
    await t.db.updateTable('install_jobs').set({ status: 'SHIPPED' }).where('subscription_id', '=', o.subscription_id).execute();
    const s = await slots(o.token);
    expect(s.json()).toMatchObject({ status: 'SHIPPED', bookable: false, windows: [] });
    expect((await book(o.token, '2026-11-18T07:00:00Z')).statusCode).toBe(409);
  });
});

describe('booking link and page', () => {
  it('an unknown or expired token answers 404 on every booking endpoint', async () => {
    const o = await order();
    const bad = 'x'.repeat(43);
    for (const r of [
      await slots(bad),
      await book(bad, '2026-11-18T08:00:00Z'),
      await cancel(bad),
      await t.app.inject({ method: 'GET', url: `/booking/${bad}` }),
    ]) {
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ detail: 'Booking link not found or expired' });
    }
    await t.db
      .updateTable('link_tokens')
      .set({ expires_at: new Date(t.clock.now().getTime() - 1) })
      .where('subscriber_id', '=', o.subscriber_id)
      .execute();
    expect((await slots(o.token)).statusCode).toBe(404);
  });

  it('GET /booking/{token} renders an HTML page listing the free windows and the appointment', async () => {
    const o = await order();
    await book(o.token, '2026-11-18T11:00:00Z');
    const r = await t.app.inject({ method: 'GET', url: `/booking/${o.token}` });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body).toContain('Your appointment');
    expect(r.body).toContain('Wednesday, 18 November 2026, 12:00–16:00 (Europe/Berlin time)');
    expect(r.body).toContain('data-start="2026-11-19T07:00:00.000Z"');
    expect(r.body).toContain('>08:00–12:00</button>');
    expect(r.body).toContain('local time (Europe/Berlin)');
    expect(r.body).toContain('data-cancel');
  });
});

describe("booking in the building's own time zone", () => {
  let toronto: Awaited<ReturnType<typeof createBuilding>>;
  let tIdx = 0;
  beforeAll(async () => {
    toronto = await createBuilding(t.db, w.provider.id, {
      lineType: 'third_line',
      country: 'CA',
      region: 'CA-ON',
      city: 'Toronto',
      postalCode: 'M5V 2T6',
      units: Array.from({ length: 12 }, (_, i) => `T${i}`),
    });
  });
  const orderToronto = (o: { moveInDate?: string } = {}) => order({ ...o, unitId: toronto.units[tIdx++]!.id });
  const at = async <T>(iso: string, fn: () => Promise<T>) => {
    t.clock.set(iso);
    try {
      return await fn();
    } finally {
      t.clock.set('2026-11-16T10:00:00.000Z');
    }
  };
  const starts = (body: { windows: { starts_at: string }[] }) => body.windows.map((x) => x.starts_at);

  it('a Toronto building (region CA-ON) is offered 08:00, 12:00 and 16:00 Toronto time, never 03:00; booking a UTC-hour start is 422', async () => {
    const o = await orderToronto();
    const body = (await slots(o.token)).json();
    expect(body.time_zone).toBe('America/Toronto');
    // Monday 05:00 Toronto + 24 h = Tuesday 05:00: the first window is Tuesday 08:00 EST (13:00 UTC).
    expect(body.windows[0]).toEqual({ starts_at: '2026-11-17T13:00:00.000Z', ends_at: '2026-11-17T17:00:00.000Z' });
    expectLocalWindows(body.windows, 'America/Toronto');
    expect(starts(body)).not.toContain('2026-11-18T08:00:00.000Z');
    const bad = await book(o.token, '2026-11-18T08:00:00Z'); // 03:00 in Toronto
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^starts_at: .*America\/Toronto/);
    const ok = await book(o.token, '2026-11-18T08:00:00-05:00');
    expect(ok.statusCode).toBe(200);
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({
      status: 'BOOKED',
      booking_starts_at: new Date('2026-11-18T13:00:00Z'),
      booking_ends_at: new Date('2026-11-18T17:00:00Z'),
    });
    const page = await t.app.inject({ method: 'GET', url: `/booking/${o.token}` });
    expect(page.body).toContain('Wednesday, 18 November 2026, 08:00–12:00 (America/Toronto time)');
  });

  it('the 24-hour lead is counted from now: at Monday 09:00 Toronto, Tuesday 08:00 is too close and Tuesday 12:00 is the first window', async () => {
    await at('2026-11-16T14:00:00.000Z', async () => {
      const o = await orderToronto();
      const body = (await slots(o.token)).json();
      expect(body.windows[0].starts_at).toBe('2026-11-17T17:00:00.000Z');
      expect((await book(o.token, '2026-11-17T13:00:00Z')).statusCode).toBe(422);
    });
  });

  it("weekdays are the building's: in Tokyo, Monday 08:00 (Sunday 23:00 UTC) is offered and Saturday 08:00 (Friday 23:00 UTC) is not", async () => {
    const region = await createRegion(t.db, { timeZone: 'Asia/Tokyo' });
    const tokyo = await createBuilding(t.db, w.provider.id, { lineType: 'third_line', country: 'JP', region: region.code, units: ['J1'] });
    const o = await order({ unitId: tokyo.units[0]!.id });
    const body = (await slots(o.token)).json();
    expect(body.time_zone).toBe('Asia/Tokyo');
    expectLocalWindows(body.windows, 'Asia/Tokyo');
    expect(starts(body)).toContain('2026-11-22T23:00:00.000Z');
    expect(starts(body)).not.toContain('2026-11-20T23:00:00.000Z');
  });

  it('a week crossing the spring DST change in Berlin (29 March 2026) keeps the windows at 08:00 local: 07:00 UTC on Friday, 06:00 UTC on Monday', async () => {
    await at('2026-03-25T10:00:00.000Z', async () => {
      const o = await order();
      const body = (await slots(o.token)).json();
      expectLocalWindows(body.windows, 'Europe/Berlin');
      expect(starts(body)).toEqual(
        expect.arrayContaining([
          '2026-03-27T07:00:00.000Z',
          '2026-03-27T15:00:00.000Z',
          '2026-03-30T06:00:00.000Z',
          '2026-03-30T14:00:00.000Z',
        ]),
      );
      expect(starts(body)).not.toContain('2026-03-30T07:00:00.000Z');
      expect((await book(o.token, '2026-03-30T07:00:00Z')).statusCode).toBe(422);
      const ok = await book(o.token, '2026-03-30T08:00:00+02:00');
      expect(ok.json()).toEqual({
        status: 'BOOKED',
        booking: { starts_at: '2026-03-30T06:00:00.000Z', ends_at: '2026-03-30T10:00:00.000Z' },
      });
    });
  });

  it("weeks crossing Toronto's DST changes (8 March and 1 November 2026) keep the windows at 08:00 local", async () => {
    await at('2026-03-04T15:00:00.000Z', async () => {
      const body = (await slots((await orderToronto()).token)).json();
      expectLocalWindows(body.windows, 'America/Toronto');
      expect(starts(body)).toEqual(expect.arrayContaining(['2026-03-06T13:00:00.000Z', '2026-03-09T12:00:00.000Z']));
    });
    await at('2026-10-28T15:00:00.000Z', async () => {
      const body = (await slots((await orderToronto()).token)).json();
      expectLocalWindows(body.windows, 'America/Toronto');
      expect(starts(body)).toEqual(expect.arrayContaining(['2026-10-30T12:00:00.000Z', '2026-11-02T13:00:00.000Z']));
    });
  });

  it("the hold until move-in uses the region's booking window and the local day: released at local midnight, windows from the local move-in day", async () => {
    const region = await createRegion(t.db, { timeZone: 'America/Toronto', bookingWindowDays: 10 });
    const b = await createBuilding(t.db, w.provider.id, {
      lineType: 'third_line',
      country: 'CA',
      region: region.code,
      units: ['R1', 'R2'],
    });
    // The provider's window (28 days) would send at once; the region's (10 days) holds until 21 November, Toronto time.
    const o = await order({ unitId: b.units[0]!.id, moveInDate: '2026-12-01' });
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKING_HELD', booking_invite_sent_at: null });
    const job = await t.db
      .selectFrom('jobs')
      .selectAll()
      .where('kind', '=', 'install.booking_invite')
      .where('subscription_id', '=', o.subscription_id)
      .executeTakeFirstOrThrow();
    expect(job.run_at).toEqual(new Date('2026-11-21T05:00:00.000Z'));
    // 21 November 03:00 UTC is still the 20th in Toronto: an order then is held too (UTC would have sent it).
    await at('2026-11-21T03:00:00.000Z', async () => {
      const late = await order({ unitId: b.units[1]!.id, moveInDate: '2026-12-01' });
      expect((await installJobOf(t, late.subscription_id))!.status).toBe('BOOKING_HELD');
    });
    await at('2026-11-21T05:00:01.000Z', async () => {
      await t.deps.jobs.drain();
      expect((await installJobOf(t, o.subscription_id))!.status).toBe('BOOKING_SENT');
      const token = await tokenFor(o.email);
      const body = (await slots(token!)).json();
      // Tuesday 1 December, 08:00 Toronto.
      expect(body.windows[0].starts_at).toBe('2026-12-01T13:00:00.000Z');
      expect(body.move_in_date).toBe('2026-12-01');
    });
  });

  it("each part of the calendar falls back on its own: a region row without a booking window takes its country's window and keeps its own zone", async () => {
    const country = await createRegion(t.db, { code: 'XQ', timeZone: 'Asia/Tokyo', bookingWindowDays: 10 });
    const region = await createRegion(t.db, { timeZone: 'America/Toronto' });
    const b = await createBuilding(t.db, w.provider.id, {
      lineType: 'third_line',
      country: country.code,
      region: region.code,
      units: ['F1'],
    });
    const o = await order({ unitId: b.units[0]!.id, moveInDate: '2026-12-01' });
    // The country's 10 days (the provider's 28 would send at once), counted to midnight in Toronto (Tokyo's is 14 hours earlier).
    expect(await installJobOf(t, o.subscription_id)).toMatchObject({ status: 'BOOKING_HELD' });
    const job = await t.db
      .selectFrom('jobs')
      .select('run_at')
      .where('kind', '=', 'install.booking_invite')
      .where('subscription_id', '=', o.subscription_id)
      .executeTakeFirstOrThrow();
    expect(job.run_at).toEqual(new Date('2026-11-21T05:00:00.000Z'));
  });

  it("the invitation mail names the building's zone: local window hours and the link's expiry in Toronto time", async () => {
    const o = await orderToronto();
    const mails = await t.db.selectFrom('jobs').select('payload').where('kind', '=', 'mail.send').execute();
    const m = mails
      .map((x) => x.payload as { to: string; tag: string; text: string })
      .find((p) => p.to === o.email && p.tag === 'installation_booking')!;
    expect(m.text).toContain('starting at 08:00, 12:00 or 16:00 local time (America/Toronto)');
    const link = await t.db
      .selectFrom('link_tokens')
      .select('expires_at')
      .where('subscriber_id', '=', o.subscriber_id)
      .executeTakeFirstOrThrow();
    expect(m.text).toContain(
      `valid until ${localDate('America/Toronto', link.expires_at)} ${localTime('America/Toronto', link.expires_at)} America/Toronto`,
    );
    expect(m.text).not.toMatch(/\d\d:\d\d UTC/);
  });
});
