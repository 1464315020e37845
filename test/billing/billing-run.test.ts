import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { createBillingRunService, buildInvoiceLines } from '../../src/modules/billing/billing-run.service.js';
import { simulatorsOf } from '../../src/adapters/index.js';
import { newId } from '../../src/lib/ids.js';
import { customer, insertCreditNote, insertInvoice, insertPendingAdjustment, jobsOf } from './fixtures.js';

let t: TestApp;
let run: ReturnType<typeof createBillingRunService>;
beforeAll(async () => {
  t = await buildTestApp();
  run = createBillingRunService(t.deps);
});
beforeEach(() => t.clock.set(DEFAULT_NOW));
afterAll(() => t.close());

const invoicesOf = (subscriptionId: string) =>
  t.db.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).orderBy('period_start').execute();
const linesOf = (invoiceId: string) =>
  t.db
    .selectFrom('invoice_lines')
    .select(['position', 'kind', 'description', 'amount_cents'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('position')
    .execute();

describe('billing.monthly run', () => {
  it("creates the month's invoice on the billing day with its subscription line, billing document and collection job", async () => {
    const c = await customer(t);
    const r = await run.runMonthly();
    expect(r.invoice_ids.length).toBeGreaterThanOrEqual(1);
    const [inv] = await invoicesOf(c.subscription.id);
    expect(inv).toMatchObject({
      kind: 'monthly',
      period_start: '2026-11-01',
      invoice_date: '2026-11-16',
      due_date: '2026-11-30',
      total_cents: 3000,
      status: 'open',
      subscriber_id: c.subscriber.id,
      provider_id: c.provider.id,
    });
    expect(inv!.invoice_number).toMatch(/^INV-202611-[A-Z0-9]{8}$/);
    expect(await linesOf(inv!.id)).toEqual([{ position: 1, kind: 'subscription', description: 'Fast, November 2026', amount_cents: 3000 }]);
    const doc = await t.db
      .selectFrom('billing_documents')
      .selectAll()
      .where('subscription_id', '=', c.subscription.id)
      .executeTakeFirstOrThrow();
    expect(doc).toMatchObject({ period_start: '2026-11-01', invoice_id: inv!.id });
    expect(doc.external_document_id).toMatch(/^bdoc_/);
    const collect = (await jobsOf(t, 'billing.collect')).filter((j) => j.payload.invoice_id === inv!.id);
    expect(collect).toHaveLength(1);
    expect(await simulatorsOf(t.deps.adapters).billingSystem.getNextInvoiceSendDate(c.subscription.id)).toBe('2026-12-01');
  });

  it('running the billing run twice never bills twice: one invoice per (subscription, month)', async () => {
    const c = await customer(t);
    await run.runMonthly();
    const second = await run.runMonthly();
    expect(second.invoiced).toBe(0);
    expect(await invoicesOf(c.subscription.id)).toHaveLength(1);
    expect(await run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-16')).toEqual({ outcome: 'already_invoiced' });
    expect(await t.db.selectFrom('billing_documents').select('id').where('subscription_id', '=', c.subscription.id).execute()).toHaveLength(
      1,
    );
  });

  it('two billing runs at the same time bill once (row lock and unique index)', async () => {
    const c = await customer(t);
    const results = await Promise.all([
      run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-16'),
      run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-16'),
      run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-16'),
    ]);
    expect(results.filter((r) => r.outcome === 'invoiced')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'already_invoiced')).toHaveLength(2);
    expect(await invoicesOf(c.subscription.id)).toHaveLength(1);
    if (usingPostgres()) expect(results.length).toBe(3); // really concurrent on Postgres (pool of 10)
  });

  it('leaves a month with a billing document but no invoice (operator-escalation case c) to an operator: never issues a second document', async () => {
    const c = await customer(t);
    await t.db
      .insertInto('billing_documents')
      .values({
        id: newId(),
        provider_id: c.provider.id,
        subscription_id: c.subscription.id,
        period_start: '2026-11-01',
        external_document_id: 'bdoc_issuedelsewhere',
      })
      .execute();
    const r = await run.runMonthly();
    expect(r.needs_operator).toBeGreaterThanOrEqual(1);
    expect(await invoicesOf(c.subscription.id)).toHaveLength(0);
    const docs = await t.db.selectFrom('billing_documents').selectAll().where('subscription_id', '=', c.subscription.id).execute();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ external_document_id: 'bdoc_issuedelsewhere', invoice_id: null });
  });

  it('is run by the daily scheduled billing.monthly job, through the job table', async () => {
    const c = await customer(t);
    const ticks = await t.deps.scheduler.tick();
    expect(ticks.map((x) => x.kind)).toEqual(expect.arrayContaining(['billing.monthly', 'billing.dunning']));
    await t.deps.jobs.drain();
    const job = (await jobsOf(t, 'billing.monthly')).at(-1)!;
    expect(job.status).toBe('succeeded');
    expect(await invoicesOf(c.subscription.id)).toHaveLength(1);
    await t.deps.scheduler.tick(); // the same daily slot again: deduplicated
    expect((await jobsOf(t, 'billing.monthly')).length).toBe(1);
  });

  it('bills nothing before the billing day, then on it; a changed billing day applies from its effective month', async () => {
    t.clock.set('2026-11-03T10:00:00Z');
    const c = await customer(t);
    await t.db
      .updateTable('subscriptions')
      .set({ billing_day: 5, billing_day_effective_from: '2026-12-01', previous_billing_day: 2 })
      .where('id', '=', c.subscription.id)
      .execute();
    // November uses the previous day (2): due since the 2nd
    expect((await run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-01')).outcome).toBe('not_due');
    expect((await run.billSubscription(c.subscription.id, '2026-11-01', '2026-11-03')).outcome).toBe('invoiced');
    // December uses the new day (5)
    expect((await run.billSubscription(c.subscription.id, '2026-12-01', '2026-12-04')).outcome).toBe('not_due');
    const dec = await run.billSubscription(c.subscription.id, '2026-12-01', '2026-12-05');
    expect(dec.outcome).toBe('invoiced');
    expect((await invoicesOf(c.subscription.id)).map((i) => [i.period_start, i.invoice_date])).toEqual([
      ['2026-11-01', '2026-11-03'],
      ['2026-12-01', '2026-12-05'],
    ]);
  });

  it('bills the pending upgrade line and applies open credit notes on the next invoice, marking both applied', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    const up = await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'upgrade_line',
      amountCents: 1500,
      description: 'Plan change Fast → Faster, 16–30 Nov',
    });
    const cn = await insertCreditNote(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      state: 'open',
      amountCents: 1000,
      issuedAt: '2026-11-10T10:00:00Z',
    });
    const refunded = await insertCreditNote(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      state: 'refunded',
      amountCents: 400,
      issuedAt: '2026-11-11T10:00:00Z',
    });
    expect((await run.runMonthly()).invoice_ids).not.toContain(undefined);
    expect(await invoicesOf(c.subscription.id)).toHaveLength(1); // November was already invoiced
    t.clock.set('2026-12-01T00:10:00Z');
    await run.runMonthly();
    const dec = (await invoicesOf(c.subscription.id))[1]!;
    expect(dec).toMatchObject({ period_start: '2026-12-01', invoice_date: '2026-12-01', total_cents: 3500, status: 'open' });
    expect(await linesOf(dec.id)).toEqual([
      { position: 1, kind: 'subscription', description: 'Fast, December 2026', amount_cents: 3000 },
      { position: 2, kind: 'plan_change_adjustment', description: 'Plan change Fast → Faster, 16–30 Nov', amount_cents: 1500 },
      { position: 3, kind: 'credit_applied', description: `Credit note ${cn.number}`, amount_cents: -1000 },
    ]);
    expect(
      await t.db
        .selectFrom('pending_adjustments')
        .select(['status', 'applied_invoice_id'])
        .where('id', '=', up.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: 'applied', applied_invoice_id: dec.id });
    expect(
      await t.db.selectFrom('credit_notes').select(['state', 'applied_invoice_id']).where('id', '=', cn.id).executeTakeFirstOrThrow(),
    ).toEqual({ state: 'applied', applied_invoice_id: dec.id });
    expect((await t.db.selectFrom('credit_notes').select('state').where('id', '=', refunded.id).executeTakeFirstOrThrow()).state).toBe(
      'refunded',
    );
    // the next month has nothing pending any more
    t.clock.set('2027-01-01T00:10:00Z');
    await run.runMonthly();
    const jan = (await invoicesOf(c.subscription.id))[2]!;
    expect(await linesOf(jan.id)).toEqual([{ position: 1, kind: 'subscription', description: 'Fast, January 2027', amount_cents: 3000 }]);
  });

  it('carried corrections reach the invoice only once their sum is at least 0.50', async () => {
    const c = await customer(t);
    const a = await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'carried_correction',
      amountCents: 20,
      description: 'carried',
    });
    await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'carried_correction',
      amountCents: 20,
      description: 'carried',
    });
    await run.runMonthly();
    const [nov] = await invoicesOf(c.subscription.id);
    expect((await linesOf(nov!.id)).map((l) => l.kind)).toEqual(['subscription']);
    expect((await t.db.selectFrom('pending_adjustments').select('status').where('id', '=', a.id).executeTakeFirstOrThrow()).status).toBe(
      'pending',
    );
    await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'carried_correction',
      amountCents: 15,
      description: 'carried',
    });
    t.clock.set('2026-12-01T09:00:00Z');
    await run.runMonthly();
    const dec = (await invoicesOf(c.subscription.id))[1]!;
    expect(await linesOf(dec.id)).toEqual([
      { position: 1, kind: 'subscription', description: 'Fast, December 2026', amount_cents: 3000 },
      { position: 2, kind: 'correction', description: 'Correction carried from earlier plan changes', amount_cents: 55 },
    ]);
    const left = await t.db
      .selectFrom('pending_adjustments')
      .select('id')
      .where('subscription_id', '=', c.subscription.id)
      .where('status', '=', 'pending')
      .execute();
    expect(left).toHaveLength(0);
  });

  it('a credit note larger than the invoice stays open; an invoice brought to zero by credits is paid at once, with no collection', async () => {
    const c = await customer(t);
    const big = await insertCreditNote(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      state: 'open',
      amountCents: 5000,
      issuedAt: '2026-11-01T10:00:00Z',
    });
    const exact = await insertCreditNote(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: null,
      state: 'open',
      amountCents: 3000,
      issuedAt: '2026-11-02T10:00:00Z',
    });
    await run.runMonthly();
    const [inv] = await invoicesOf(c.subscription.id);
    expect(inv).toMatchObject({ total_cents: 0, status: 'paid' });
    expect((await t.db.selectFrom('credit_notes').select('state').where('id', '=', big.id).executeTakeFirstOrThrow()).state).toBe('open');
    expect((await t.db.selectFrom('credit_notes').select('state').where('id', '=', exact.id).executeTakeFirstOrThrow()).state).toBe(
      'applied',
    );
    expect((await jobsOf(t, 'billing.collect')).filter((j) => j.payload.invoice_id === inv!.id)).toHaveLength(0);
  });

  it('never invoices provider-billed subscriptions, subscriptions not installed yet, or a month that started after its billing day', async () => {
    const provider = await customer(t, { serviceBilled: false });
    const pending = await customer(t, { status: 'PENDING_INSTALL' });
    const late = await customer(t, { activatedAt: new Date('2026-11-10T10:00:00Z') });
    await insertPendingAdjustment(t, {
      providerId: provider.provider.id,
      subscriptionId: provider.subscription.id,
      kind: 'upgrade_line',
      amountCents: 100,
      description: 'x',
    });
    await run.runMonthly();
    for (const s of [provider, pending, late]) expect(await invoicesOf(s.subscription.id)).toHaveLength(0);
    t.clock.set('2026-12-01T08:00:00Z');
    await run.runMonthly();
    expect(await invoicesOf(provider.subscription.id)).toHaveLength(0);
    expect(await invoicesOf(late.subscription.id)).toHaveLength(1);
  });

  it('bills a SUSPENDED subscription like an active one (suspension has no billing effect)', async () => {
    const c = await customer(t, { status: 'SUSPENDED' });
    await run.runMonthly();
    expect(await invoicesOf(c.subscription.id)).toHaveLength(1);
  });

  it('bills the month a cancellation ends in pro rata up to ended_at, then a closing invoice only for lines still pending', async () => {
    const c = await customer(t);
    await insertInvoice(t, {
      providerId: c.provider.id,
      subscriberId: c.subscriber.id,
      subscriptionId: c.subscription.id,
      month: '2026-11-01',
    });
    await t.db
      .updateTable('subscriptions')
      .set({ status: 'CANCELLED', canceled_at: new Date(DEFAULT_NOW), ended_at: '2026-12-16' })
      .where('id', '=', c.subscription.id)
      .execute();
    t.clock.set('2026-12-01T08:00:00Z');
    await run.runMonthly();
    const dec = (await invoicesOf(c.subscription.id))[1]!;
    expect(await linesOf(dec.id)).toEqual([
      { position: 1, kind: 'subscription', description: 'Fast, 1–15 Dec 2026 (until cancellation, pro rata)', amount_cents: 1452 },
    ]);
    await insertPendingAdjustment(t, {
      providerId: c.provider.id,
      subscriptionId: c.subscription.id,
      kind: 'upgrade_line',
      amountCents: 700,
      description: 'Plan change Fast → Faster, 10–15 Dec',
    });
    t.clock.set('2027-01-01T08:00:00Z');
    await run.runMonthly();
    const jan = (await invoicesOf(c.subscription.id))[2]!;
    expect(jan).toMatchObject({ period_start: '2027-01-01', total_cents: 700 });
    expect(await linesOf(jan.id)).toEqual([
      { position: 1, kind: 'plan_change_adjustment', description: 'Plan change Fast → Faster, 10–15 Dec', amount_cents: 700 },
    ]);
    t.clock.set('2027-02-01T08:00:00Z');
    await run.runMonthly();
    expect(await invoicesOf(c.subscription.id)).toHaveLength(3);
  });
});

describe('buildInvoiceLines', () => {
  it('keeps integer cents: pro rata rounds half-up', () => {
    const b = buildInvoiceLines({ plan_name: 'P', monthly_price_cents: 999, ended_at: '2026-11-02' }, '2026-11-01', [], []);
    expect(b.lines).toEqual([{ kind: 'subscription', description: 'P, 1–1 Nov 2026 (until cancellation, pro rata)', amount_cents: 33 }]);
    expect(Number.isInteger(b.totalCents)).toBe(true);
  });
});
