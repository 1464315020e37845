import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { resetAllFaults, simulatorsOf, TEST_CARDS } from '../../src/adapters/index.js';
import { collectInvoice } from '../../src/modules/billing/collection.js';
import { createDunningService } from '../../src/modules/billing/dunning.service.js';
import { customer, insertInvoice, jobsOf, mailsTo, tokenIn } from './fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
beforeEach(() => t.clock.set(DEFAULT_NOW));
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

const sub = (id: string) =>
  t.db.selectFrom('subscriptions').select(['status', 'suspended_reason']).where('id', '=', id).executeTakeFirstOrThrow();

/** A customer with an open October invoice due 2026-11-01; grace 14 days → suspended from 2026-11-16. */
async function overdue(o: { status?: 'ACTIVE' | 'SUSPENDED'; dueDate?: string } = {}) {
  const c = await customer(t, { status: o.status });
  const inv = await insertInvoice(t, {
    providerId: c.provider.id,
    subscriberId: c.subscriber.id,
    subscriptionId: c.subscription.id,
    month: '2026-10-01',
    invoiceDate: '2026-10-18',
    dueDate: o.dueDate ?? '2026-11-01',
    status: 'open',
    totalCents: 3000,
  });
  return { ...c, invoiceId: inv.id };
}

async function runDunningJob() {
  await t.deps.jobs.enqueue(t.db, { kind: 'billing.dunning', payload: {} });
  await t.deps.jobs.drain();
}

describe('automatic suspension on non-payment', () => {
  it('suspends (reason non_payment) only once the invoice is open more than payment_grace_days past its due date, and puts the port behind the captive portal', async () => {
    const c = await overdue();
    t.clock.set('2026-11-15T12:00:00Z'); // due + 14 = 2026-11-15: still inside the grace window
    await runDunningJob();
    expect(await sub(c.subscription.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
    t.clock.set('2026-11-16T01:00:00Z');
    await runDunningJob();
    expect(await sub(c.subscription.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'non_payment' });
    const job = (await jobsOf(t, 'billing.captive_portal')).find((j) => j.payload.subscription_id === c.subscription.id);
    expect(job?.status).toBe('succeeded');
    expect((await simulatorsOf(t.deps.adapters).switchController.getPort(c.location.id))?.mode).toBe('captive_portal');
  });

  it("honours the provider's payment_grace_days", async () => {
    const c = await overdue();
    await t.db.updateTable('providers').set({ payment_grace_days: 30 }).where('id', '=', c.provider.id).execute();
    t.clock.set('2026-11-20T01:00:00Z');
    await runDunningJob();
    expect((await sub(c.subscription.id)).status).toBe('ACTIVE');
  });

  it('never suspends provider-billed or already paid subscriptions', async () => {
    const c = await overdue();
    await t.db.updateTable('subscriptions').set({ service_billed: false }).where('id', '=', c.subscription.id).execute();
    const paid = await customer(t);
    await insertInvoice(t, {
      providerId: paid.provider.id,
      subscriberId: paid.subscriber.id,
      subscriptionId: paid.subscription.id,
      month: '2026-10-01',
      dueDate: '2026-10-15',
      status: 'paid',
    });
    t.clock.set('2026-12-01T01:00:00Z');
    await runDunningJob();
    expect((await sub(c.subscription.id)).status).toBe('ACTIVE');
    expect((await sub(paid.subscription.id)).status).toBe('ACTIVE');
  });
});

describe('automatic restore on payment', () => {
  it('paying the overdue invoice through its payment link restores the subscription and re-queues port provisioning', async () => {
    const c = await overdue();
    t.clock.set('2026-11-17T01:00:00Z');
    await runDunningJob();
    expect((await sub(c.subscription.id)).status).toBe('SUSPENDED');
    expect((await collectInvoice(t.deps, c.invoiceId)).outcome).toBe('link_sent');
    const token = tokenIn((await mailsTo(t, c.user.email)).at(-1)!.text, '/pay/');
    const r = await t.app.inject({ method: 'POST', url: `/pay/${token}`, payload: { card_number: TEST_CARDS.succeeds } });
    expect(r.statusCode).toBe(200);
    expect(await sub(c.subscription.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
    const prov = (await jobsOf(t, 'provisioning.port')).filter((j) => j.subscription_id === c.subscription.id);
    expect(prov).toHaveLength(1);
    expect(prov[0]!.payload).toEqual({ subscription_id: c.subscription.id, reason: 'restore' });
  });

  it('a saved card charged by the collection job restores too', async () => {
    const c = await overdue();
    t.clock.set('2026-11-17T01:00:00Z');
    await runDunningJob();
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: 'pm_restorebycard', card_brand: 'visa', card_last4: '4242' })
      .where('id', '=', c.subscriber.id)
      .execute();
    expect((await collectInvoice(t.deps, c.invoiceId)).outcome).toBe('charged');
    expect((await sub(c.subscription.id)).status).toBe('ACTIVE');
  });

  it('stays suspended while another invoice is still overdue', async () => {
    const c = await overdue();
    const second = await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-09-01',
      dueDate: '2026-10-01',
      status: 'open',
    });
    t.clock.set('2026-11-17T01:00:00Z');
    await runDunningJob();
    await t.db.updateTable('subscribers').set({ card_payment_method_id: 'pm_onlyoneofthem' }).where('id', '=', c.subscriber.id).execute();
    await collectInvoice(t.deps, c.invoiceId);
    expect(await sub(c.subscription.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'non_payment' });
    await collectInvoice(t.deps, second.id);
    expect(await sub(c.subscription.id)).toEqual({ status: 'ACTIVE', suspended_reason: null });
  });

  it('never lifts a suspension the provider made (reason provider)', async () => {
    const c = await overdue({ status: 'SUSPENDED' });
    await t.db.updateTable('subscriptions').set({ suspended_reason: 'provider' }).where('id', '=', c.subscription.id).execute();
    await t.db
      .updateTable('subscribers')
      .set({ card_payment_method_id: 'pm_providersuspended' })
      .where('id', '=', c.subscriber.id)
      .execute();
    expect((await collectInvoice(t.deps, c.invoiceId)).outcome).toBe('charged');
    expect(await sub(c.subscription.id)).toEqual({ status: 'SUSPENDED', suspended_reason: 'provider' });
    expect((await jobsOf(t, 'provisioning.port')).filter((j) => j.subscription_id === c.subscription.id)).toHaveLength(0);
  });

  it('a payment before the captive-portal job ran leaves the port alone', async () => {
    const c = await overdue();
    t.clock.set('2026-11-17T01:00:00Z');
    await createDunningService(t.deps).runDunning(); // suspends; the captive-portal job waits in the queue
    expect((await sub(c.subscription.id)).status).toBe('SUSPENDED');
    await t.db.updateTable('subscribers').set({ card_payment_method_id: 'pm_paidquickly' }).where('id', '=', c.subscriber.id).execute();
    await collectInvoice(t.deps, c.invoiceId);
    await t.deps.jobs.drain();
    const job = (await jobsOf(t, 'billing.captive_portal')).find((j) => j.payload.subscription_id === c.subscription.id)!;
    expect(job.result).toEqual({ skipped: 'no_longer_suspended' });
    expect((await simulatorsOf(t.deps.adapters).switchController.getPort(c.location.id))?.mode ?? null).not.toBe('captive_portal');
  });
});
