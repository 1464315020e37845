import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import { newId } from '../../src/lib/ids.js';
import { verifyPassword } from '../../src/lib/crypto.js';
import { bearerFor, customer, insertInvoice } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

describe('subscriber auth', () => {
  it('answers 401 without a token and 403 for a staff token on every subscriber endpoint', async () => {
    const p = await createProvider(t.db);
    const staff = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    const staffHeaders = await bearerFor(t, { id: staff.id, role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    for (const url of [
      '/subscriber/me',
      '/subscriber/me/details',
      '/subscriber/me/invoices',
      '/subscriber/me/credit-notes',
      '/subscriber/me/usage',
      '/subscriber/status-history',
      '/subscriber/me/payment-method',
    ]) {
      const none = await get(url, {});
      expect(none.statusCode, url).toBe(401);
      expect(none.json()).toEqual({ detail: 'Not authenticated' });
      const wrong = await get(url, staffHeaders);
      expect(wrong.statusCode, url).toBe(403);
    }
  });
});

describe('GET /subscriber/me', () => {
  it('answers 200 with subscriber null and empty subscriptions while the account has no subscriber record, listing its linked checkout sessions', async () => {
    const c = await customer(t);
    const u = await createUser(t.db);
    const sessionId = newId();
    await t.db
      .insertInto('checkout_sessions')
      .values({ id: sessionId, provider_id: c.provider.id, plan_version_id: c.plan.id, building_id: c.building.id, user_id: u.id })
      .execute();
    const r = await get('/subscriber/me', await bearerFor(t, { id: u.id }));
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body).toMatchObject({ subscriber: null, subscriptions: [], provider: null });
    expect(body.checkout_sessions).toHaveLength(1);
    expect(body.checkout_sessions[0]).toMatchObject({
      id: sessionId,
      status: 'pending',
      plan: { plan_version_id: c.plan.id, name: 'Fast', monthly_price: '30.00', currency: 'EUR' },
      subscription_id: null,
    });
  });

  it('returns the record, the subscriptions with plan and address, and the provider branding, on both mounts, without internal fields', async () => {
    const c = await customer(t);
    for (const prefix of ['', '/api/v1']) {
      const r = await get(`${prefix}/subscriber/me`, c.headers);
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body.subscriber).toMatchObject({
        id: c.subscriber.id,
        customer_number: c.subscriber.customerNumber,
        email: c.user.email,
        first_name: 'Erika',
      });
      expect(body.subscriptions).toHaveLength(1);
      expect(body.subscriptions[0]).toMatchObject({
        id: c.subscription.id,
        status: 'ACTIVE',
        billed_by: 'service',
        billing_day: 1,
        plan: { plan_version_id: c.plan.id, name: 'Fast', monthly_price: '30.00', currency: 'EUR' },
        service_address: { street: 'Hauptstraße', city: 'Berlin', unit: '1A' },
      });
      expect(body.provider).toMatchObject({
        id: c.provider.id,
        name: c.provider.name,
        branding: { display_name: c.provider.name, primary_color: '#0055aa' },
      });
      expect(r.body).not.toMatch(/mac_address|AA:BB:CC|operator_notes|processor_customer_id|user_id|cus_/);
    }
  });
});

describe('GET /subscriber/me/details', () => {
  it('answers 404 without a subscriber record', async () => {
    const u = await createUser(t.db);
    const r = await get('/subscriber/me/details', await bearerFor(t, { id: u.id }));
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'No subscriber record for this account' });
  });

  it('returns the full profile with customer_number, null for an old account', async () => {
    const c = await customer(t);
    const r = await get('/subscriber/me/details', c.headers);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      id: c.subscriber.id,
      customer_number: c.subscriber.customerNumber,
      invoice_address: { street: 'Hauptstraße', house_number: '5', postal_code: '10115', city: 'Berlin', country: 'DE' },
      payment_method: null,
    });
    expect(r.body).not.toMatch(/operator_notes|internal: called|processor_customer_id|cus_/);
    const old = await customer(t, { customerNumber: null });
    const r2 = await get('/subscriber/me/details', old.headers);
    expect(r2.json().customer_number).toBeNull();
  });
});

describe('PATCH /subscriber/me/password', () => {
  it('answers 400 "Current password is incorrect" for a wrong current password and leaves the hash unchanged', async () => {
    const c = await customer(t);
    const before = await t.db.selectFrom('users').select('password_hash').where('id', '=', c.user.id).executeTakeFirstOrThrow();
    const r = await t.app.inject({
      method: 'PATCH',
      url: '/subscriber/me/password',
      headers: c.headers,
      payload: { current_password: 'wrong-password', new_password: 'a-new-password-1' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ detail: 'Current password is incorrect' });
    const after = await t.db.selectFrom('users').select('password_hash').where('id', '=', c.user.id).executeTakeFirstOrThrow();
    expect(after.password_hash).toBe(before.password_hash);
  });

  it('answers 422 naming the field for a new password under 10 characters', async () => {
    const c = await customer(t);
    const r = await t.app.inject({
      method: 'PATCH',
      url: '/subscriber/me/password',
      headers: c.headers,
      payload: { current_password: 'correct horse battery', new_password: 'short' },
    });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^new_password: /);
  });

  it('changes the password: 200 {success, message}, the new one logs in, the old one no longer does, open reset links die', async () => {
    const c = await customer(t);
    const tokenId = newId();
    await t.db
      .insertInto('link_tokens')
      .values({
        id: tokenId,
        purpose: 'password_reset',
        token_hash: Buffer.from(newId()),
        user_id: c.user.id,
        expires_at: new Date('2030-01-01T00:00:00Z'),
      })
      .execute();
    const r = await t.app.inject({
      method: 'PATCH',
      url: '/subscriber/me/password',
      headers: c.headers,
      payload: { current_password: 'correct horse battery', new_password: 'a-brand-new-password' },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ success: true, message: 'Password changed' });
    const u = await t.db
      .selectFrom('users')
      .select(['password_hash', 'password_set_at'])
      .where('id', '=', c.user.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(u.password_hash, 'a-brand-new-password')).toBe(true);
    expect(u.password_set_at?.toISOString()).toBe(t.clock.now().toISOString());
    const link = await t.db.selectFrom('link_tokens').select('used_at').where('id', '=', tokenId).executeTakeFirstOrThrow();
    expect(link.used_at).not.toBeNull();
    const oldLogin = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: c.user.email, password: 'correct horse battery' },
    });
    expect(oldLogin.statusCode).toBe(401);
    const newLogin = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: c.user.email, password: 'a-brand-new-password' },
    });
    expect(newLogin.statusCode).toBe(200);
  });
});

describe('GET /subscriber/me/invoices', () => {
  it('answers 404 without a subscriber record', async () => {
    const u = await createUser(t.db);
    const r = await get('/subscriber/me/invoices', await bearerFor(t, { id: u.id }));
    expect(r.statusCode).toBe(404);
  });

  it("lists own local invoices by invoice_date descending with lines, never drafts or other subscribers' invoices", async () => {
    const c = await customer(t);
    const other = await customer(t, { provider: c.provider });
    const sep = await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-09-01',
      invoiceDate: '2026-09-01',
      totalCents: 3000,
    });
    const nov = await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
      invoiceDate: '2026-11-01',
      totalCents: 3150,
      status: 'open',
    });
    const oct = await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-10-01',
      invoiceDate: '2026-10-01',
    });
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-12-01',
      invoiceDate: '2026-12-01',
      status: 'draft',
    });
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: other.subscriber.id,
      subscriptionId: other.subscription.id,
      month: '2026-11-01',
    });
    const r = await get('/subscriber/me/invoices', c.headers);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.map((i: { id: string }) => i.id)).toEqual([nov.id, oct.id, sep.id]);
    expect(body[0]).toMatchObject({
      kind: 'monthly',
      invoice_date: '2026-11-01',
      period: '2026-11',
      total: '31.50',
      currency: 'EUR',
      status: 'open',
      paid_at: null,
      lines: [{ kind: 'subscription', description: 'Fast', amount: '31.50' }],
    });
    expect(body[2].status).toBe('paid');
    expect(r.body).not.toMatch(/payment_intent_id|pi_/);
  });
});

describe('GET /subscriber/me/usage', () => {
  it('answers 404 without a subscriber record', async () => {
    const u = await createUser(t.db);
    expect((await get('/subscriber/me/usage', await bearerFor(t, { id: u.id }))).statusCode).toBe(404);
  });

  it('answers status no_subscription with no months when the subscriber has no subscription', async () => {
    const p = await createProvider(t.db);
    const u = await createUser(t.db);
    await t.db
      .insertInto('subscribers')
      .values({ id: newId(), provider_id: p.id, user_id: u.id, first_name: 'A', last_name: 'B', email: u.email })
      .execute();
    const r = await get('/subscriber/me/usage', await bearerFor(t, { id: u.id }));
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'no_subscription', months: [] });
  });

  it('answers status no_data when nothing was recorded in the window', async () => {
    const c = await customer(t);
    await t.db
      .insertInto('usage_monthly')
      .values({ subscription_id: c.subscription.id, month: '2025-01-01', download_bytes: '5000000000', upload_bytes: '1' })
      .execute();
    const r = await get('/subscriber/me/usage', c.headers);
    expect(r.json()).toEqual({ status: 'no_data', months: [] });
  });

  it('returns the last 6 complete months plus the month to date in decimal GB (1000^3, 2 places), zero-filled, current month partial', async () => {
    const c = await customer(t);
    // now: 2026-11-16 → window 2026-05 .. 2026-11
    await t.db
      .insertInto('usage_monthly')
      .values([
        { subscription_id: c.subscription.id, month: '2026-04-01', download_bytes: '999000000000', upload_bytes: '1' }, // outside
        { subscription_id: c.subscription.id, month: '2026-05-01', download_bytes: '123456789012', upload_bytes: '1004999999' },
        { subscription_id: c.subscription.id, month: '2026-07-01', download_bytes: '5000000', upload_bytes: '4999999' },
        { subscription_id: c.subscription.id, month: '2026-11-01', download_bytes: '42000000000', upload_bytes: '7000000000' },
      ])
      .execute();
    const r = await get('/subscriber/me/usage', c.headers);
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.status).toBe('ok');
    expect(body.months.map((m: { month: string }) => m.month)).toEqual([
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
    ]);
    expect(body.months[0]).toEqual({ month: '2026-05', download_gb: 123.46, upload_gb: 1, partial: false });
    expect(body.months[1]).toEqual({ month: '2026-06', download_gb: 0, upload_gb: 0, partial: false });
    expect(body.months[2]).toEqual({ month: '2026-07', download_gb: 0.01, upload_gb: 0, partial: false });
    expect(body.months[6]).toEqual({ month: '2026-11', download_gb: 42, upload_gb: 7, partial: true });
  });
});

describe('GET /subscriber/status-history', () => {
  it("lists own events newest first with ongoing for unresolved ones, never another subscriber's", async () => {
    const c = await customer(t);
    const other = await customer(t);
    const a = newId();
    const b = newId();
    await t.db
      .insertInto('status_events')
      .values([
        {
          id: a,
          subscriber_id: c.subscriber.id,
          subscription_id: c.subscription.id,
          kind: 'outage',
          description: 'Fibre cut',
          started_at: new Date('2026-10-01T08:00:00Z'),
          resolved_at: new Date('2026-10-01T11:00:00Z'),
        },
        {
          id: b,
          subscriber_id: c.subscriber.id,
          subscription_id: c.subscription.id,
          kind: 'maintenance',
          description: null,
          started_at: new Date('2026-11-16T09:00:00Z'),
          resolved_at: null,
        },
        { id: newId(), subscriber_id: other.subscriber.id, kind: 'outage', started_at: new Date('2026-11-01T00:00:00Z') },
      ])
      .execute();
    const r = await get('/subscriber/status-history', c.headers);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      events: [
        { id: b, kind: 'maintenance', description: null, started_at: '2026-11-16T09:00:00.000Z', resolved_at: null, ongoing: true },
        {
          id: a,
          kind: 'outage',
          description: 'Fibre cut',
          started_at: '2026-10-01T08:00:00.000Z',
          resolved_at: '2026-10-01T11:00:00.000Z',
          ongoing: false,
        },
      ],
    });
  });

  it('degrades to an empty list (200) when reading the history fails', async () => {
    const c = await customer(t);
    await t.db
      .insertInto('status_events')
      .values({ id: newId(), subscriber_id: c.subscriber.id, kind: 'outage', started_at: new Date('2026-10-01T08:00:00Z') })
      .execute();
    await sql`ALTER TABLE status_events RENAME TO status_events_offline`.execute(t.db);
    try {
      const r = await get('/subscriber/status-history', c.headers);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ events: [] });
    } finally {
      await sql`ALTER TABLE status_events_offline RENAME TO status_events`.execute(t.db);
    }
  });

  it('answers an empty list without a subscriber record', async () => {
    const u = await createUser(t.db);
    const r = await get('/subscriber/status-history', await bearerFor(t, { id: u.id }));
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ events: [] });
  });
});
