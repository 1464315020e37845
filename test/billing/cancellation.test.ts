import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { createProvider, createUser, createSubscription } from '../helpers/factories.js';
import { resetAllFaults, simulatorsOf } from '../../src/adapters/index.js';
import { newId } from '../../src/lib/ids.js';
import { bearerFor, customer, insertInvoice, insertPendingAdjustment, jobsOf, mailsTo, tokenIn } from './fixtures.js';
import { collectFirstPayment } from '../../src/modules/billing/first-payment.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(() => t.clock.set(DEFAULT_NOW));
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

async function staffOf(providerId: string, spRole: string | null = 'support') {
  const u = await createUser(t.db, { role: 'service_provider', spRole, providerId });
  return bearerFor(t, { id: u.id, role: 'service_provider', spRole, providerId });
}
const cancel = (id: string, headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: `/api/v1/subscription/${id}/cancel`, headers, payload: payload as object });
const preview = (id: string, headers: Record<string, string>, endDate: string) =>
  t.app.inject({ method: 'GET', url: `/api/v1/subscription/${id}/cancel/preview?end_date=${endDate}`, headers });
const row = (id: string) =>
  t.db
    .selectFrom('subscriptions')
    .select(['status', 'canceled_at', 'ended_at', 'port_reset_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('POST /api/v1/subscription/{id}/cancel', () => {
  it('cancels with an end date: CANCELLED, canceled_at and ended_at echoed, subscription.cancelled webhook in the outbox, port reset job due at ended_at', async () => {
    const c = await customer(t);
    const headers = await staffOf(c.provider.id);
    const r = await cancel(c.subscription.id, headers, { end_date: '2026-11-30' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ subscription_id: c.subscription.id, status: 'CANCELLED', canceled_at: DEFAULT_NOW, ended_at: '2026-11-30' });
    expect(await row(c.subscription.id)).toEqual({
      status: 'CANCELLED',
      canceled_at: new Date(DEFAULT_NOW),
      ended_at: '2026-11-30',
      port_reset_at: null,
    });
    const hooks = await t.db.selectFrom('webhook_deliveries').selectAll().where('subscription_id', '=', c.subscription.id).execute();
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ event_type: 'subscription.cancelled', provider_id: c.provider.id, status: 'pending' });
    expect(hooks[0]!.payload).toMatchObject({
      type: 'subscription.cancelled',
      provider_id: c.provider.id,
      data: {
        subscription_id: c.subscription.id,
        subscriber_id: c.subscriber.id,
        status: 'CANCELLED',
        canceled_at: DEFAULT_NOW,
        ended_at: '2026-11-30',
      },
    });
    const job = (await jobsOf(t, 'cancellation.port_reset')).find((j) => j.subscription_id === c.subscription.id)!;
    expect(job.run_at.toISOString()).toBe('2026-11-30T00:00:00.000Z');
    const audit = await t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', c.subscription.id).execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'subscription.cancel', actor_type: 'user' });
  });

  it('resets the port by the scheduled job only once ended_at is reached (clock moved), and sets port_reset_at', async () => {
    const c = await customer(t);
    await simulatorsOf(t.deps.adapters).switchController.provisionPort({
      operationKey: `prov:${c.subscription.id}`,
      locationId: c.location.id,
      switchId: 'sw-01',
      port: 'ge-0/0/1',
      vlanId: 120,
      downloadMbps: 250,
      uploadMbps: 50,
    });
    await cancel(c.subscription.id, await staffOf(c.provider.id), { end_date: '2026-11-20' });
    await t.deps.jobs.drain();
    expect((await row(c.subscription.id)).port_reset_at).toBeNull();
    expect((await simulatorsOf(t.deps.adapters).switchController.getPort(c.location.id))?.mode).toBe('provisioned');
    t.clock.set('2026-11-19T23:59:00Z');
    await t.deps.jobs.drain();
    expect((await row(c.subscription.id)).port_reset_at).toBeNull();
    t.clock.set('2026-11-20T00:00:30Z');
    await t.deps.jobs.drain();
    expect((await row(c.subscription.id)).port_reset_at?.toISOString()).toBe('2026-11-20T00:00:30.000Z');
    expect((await simulatorsOf(t.deps.adapters).switchController.getPort(c.location.id))?.mode).toBe('reset');
  });

  it('an end date of today resets the port at the next job run; a port already serving a newer subscription is left alone', async () => {
    const c = await customer(t);
    await cancel(c.subscription.id, await staffOf(c.provider.id), { end_date: '2026-11-16' });
    await t.deps.jobs.drain();
    expect((await row(c.subscription.id)).port_reset_at).not.toBeNull();

    const d = await customer(t);
    await cancel(d.subscription.id, await staffOf(d.provider.id), { end_date: '2026-11-25' });
    const next = await createSubscription(t.db, {
      providerId: d.provider.id,
      subscriberId: d.subscriber.id,
      planVersionId: d.plan.id,
      locationId: d.location.id,
      status: 'ACTIVE',
    });
    t.clock.set('2026-11-25T06:00:00Z');
    await t.deps.jobs.drain();
    expect((await row(d.subscription.id)).port_reset_at).toBeNull();
    const job = (await jobsOf(t, 'cancellation.port_reset')).find((j) => j.subscription_id === d.subscription.id)!;
    expect(job.result).toEqual({ skipped: 'location_in_use', by_subscription_id: next.id });
  });

  it('answers 422 for an end date in the past (UTC) or not a calendar date; nothing changes', async () => {
    const c = await customer(t);
    const h = await staffOf(c.provider.id);
    for (const end_date of ['2026-11-15', '2026-02-30', '16.11.2026', '']) {
      const r = await cancel(c.subscription.id, h, { end_date });
      expect(r.statusCode, end_date).toBe(422);
      expect(r.json().detail).toMatch(/^end_date: /);
    }
    expect((await cancel(c.subscription.id, h, {})).statusCode).toBe(422);
    expect((await row(c.subscription.id)).status).toBe('ACTIVE');
  });

  it("answers 404 for another provider's subscription and 409 for a status that cannot be cancelled (CANCELLED, PENDING)", async () => {
    const c = await customer(t);
    const other = await createProvider(t.db);
    const r = await cancel(c.subscription.id, await staffOf(other.id, 'sp_admin'), { end_date: '2026-12-01' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'Subscription not found' });
    expect((await row(c.subscription.id)).status).toBe('ACTIVE');
    const h = await staffOf(c.provider.id);
    expect((await cancel(c.subscription.id, h, { end_date: '2026-12-01' })).statusCode).toBe(200);
    const again = await cancel(c.subscription.id, h, { end_date: '2026-12-05' });
    expect(again.statusCode).toBe(409);
    expect((await row(c.subscription.id)).ended_at).toBe('2026-12-01');
    const p = await customer(t, { status: 'PENDING' });
    expect((await cancel(p.subscription.id, await staffOf(p.provider.id), { end_date: '2026-12-01' })).statusCode).toBe(409);
  });

  it("refuses a subscriber token (403) and a missing token (401); exists only under /api/v1; a platform admin may cancel any provider's subscription", async () => {
    const c = await customer(t);
    expect((await cancel(c.subscription.id, c.headers, { end_date: '2026-12-01' })).statusCode).toBe(403);
    expect((await cancel(c.subscription.id, {}, { end_date: '2026-12-01' })).statusCode).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/subscription/${c.subscription.id}/cancel`,
          headers: await staffOf(c.provider.id),
          payload: { end_date: '2026-12-01' },
        })
      ).statusCode,
    ).toBe(404);
    const admin = await createUser(t.db, { role: 'platform_admin' });
    const r = await cancel(c.subscription.id, await bearerFor(t, { id: admin.id, role: 'platform_admin' }), { end_date: '2026-12-01' });
    expect(r.statusCode).toBe(200);
  });

  it('with an Idempotency-Key, a retried cancel replays the first answer instead of 409, and emits one webhook', async () => {
    const c = await customer(t);
    const h = { ...(await staffOf(c.provider.id)), 'idempotency-key': `cancel-${c.subscription.id}` };
    const first = await cancel(c.subscription.id, h, { end_date: '2026-12-01' });
    const retry = await cancel(c.subscription.id, h, { end_date: '2026-12-01' });
    expect(first.statusCode).toBe(200);
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(
      await t.db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', c.subscription.id).execute(),
    ).toHaveLength(1);
    expect((await cancel(c.subscription.id, h, { end_date: '2026-12-02' })).statusCode).toBe(422);
  });

  it('a PENDING_INSTALL subscription can be cancelled: its installation is called off', async () => {
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    const jobId = newId();
    await t.db
      .insertInto('install_jobs')
      .values({ id: jobId, provider_id: c.provider.id, subscription_id: c.subscription.id, kind: 'cpe_shipment', status: 'SHIPPED' })
      .execute();
    expect((await cancel(c.subscription.id, await staffOf(c.provider.id), { end_date: '2026-11-16' })).statusCode).toBe(200);
    expect((await t.db.selectFrom('install_jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status).toBe(
      'CANCELLED',
    );
  });

  it('cancelling an installed but unpaid subscription voids its first invoice and kills the payment link', async () => {
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    const first = await collectFirstPayment(t.deps, c.subscription.id);
    expect(first.outcome).toBe('link_sent');
    const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
    expect((await cancel(c.subscription.id, await staffOf(c.provider.id), { end_date: '2026-11-16' })).statusCode).toBe(200);
    expect((await t.db.selectFrom('invoices').select('status').where('id', '=', first.invoiceId!).executeTakeFirstOrThrow()).status).toBe(
      'void',
    );
    expect((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: '4242424242424242' } })).statusCode).toBe(
      404,
    );
  });

  it('for a service-billed subscription whose end month is invoiced, credits the unused days with an open credit note', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    expect((await cancel(c.subscription.id, await staffOf(c.provider.id), { end_date: '2026-11-21' })).statusCode).toBe(200);
    const notes = await t.db.selectFrom('credit_notes').selectAll().where('subscription_id', '=', c.subscription.id).execute();
    expect(notes).toHaveLength(1);
    // 21..30 Nov = 10 of 30 days of 30.00
    expect(notes[0]).toMatchObject({
      state: 'open',
      amount_cents: 1000,
      subscriber_id: c.subscriber.id,
      reason: 'Cancellation: Credit for unused days, 21–30 Nov 2026',
    });
  });
});

describe('GET /api/v1/subscription/{id}/cancel/preview', () => {
  it('quotes a service-billed subscription whose month is invoiced: unused-days credit plus pending plan-change lines; writes nothing', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'upgrade_line',
      amountCents: 450,
      description: 'Plan change Fast → Faster, 16–30 Nov',
    });
    const r = await preview(c.subscription.id, await staffOf(c.provider.id), '2026-11-21');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscription.id,
      effective_date: '2026-11-21',
      calendar_month: '2026-11',
      month_invoiced: true,
      billed_by: 'service',
      currency: 'EUR',
      lines: [
        { kind: 'unused_days_credit', description: 'Credit for unused days, 21–30 Nov 2026', amount: '-10.00', currency: 'EUR' },
        { kind: 'pending_adjustment', description: 'Plan change Fast → Faster, 16–30 Nov', amount: '4.50', currency: 'EUR' },
      ],
    });
    expect(await row(c.subscription.id)).toMatchObject({ status: 'ACTIVE', canceled_at: null, ended_at: null });
    expect(await t.db.selectFrom('credit_notes').select('id').where('subscription_id', '=', c.subscription.id).execute()).toHaveLength(0);
  });

  it('quotes the final month pro rata when the month is not invoiced yet', async () => {
    const c = await customer(t);
    const r = await preview(c.subscription.id, await staffOf(c.provider.id), '2027-01-11');
    expect(r.json()).toMatchObject({
      calendar_month: '2027-01',
      month_invoiced: false,
      lines: [
        {
          kind: 'final_month',
          description: 'Fast, 1–10 Jan 2027 (pro rata, on the invoice of January 2027)',
          amount: '9.68',
          currency: 'EUR',
        },
      ],
    });
  });

  it('provider-billed: month_invoiced null and no money lines', async () => {
    const c = await customer(t, { serviceBilled: false });
    const r = await preview(c.subscription.id, await staffOf(c.provider.id), '2026-11-20');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ month_invoiced: null, billed_by: 'provider', lines: [] });
  });

  it("answers 422 for a past end date, 404 for another provider's subscription, 403 for a subscriber token", async () => {
    const c = await customer(t);
    expect((await preview(c.subscription.id, await staffOf(c.provider.id), '2026-11-01')).statusCode).toBe(422);
    expect((await preview(c.subscription.id, await staffOf((await createProvider(t.db)).id), '2026-12-01')).statusCode).toBe(404);
    expect((await preview(c.subscription.id, c.headers, '2026-12-01')).statusCode).toBe(403);
  });
});
