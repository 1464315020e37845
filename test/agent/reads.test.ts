import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { createInvoice, createModemStatus } from '../helpers/factories.js';
import { recordStatements } from '../helpers/statements.js';
import { expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let c: SeededCustomer;
let session: string;
let paidOld: Awaited<ReturnType<typeof createInvoice>>;
let paidNew: Awaited<ReturnType<typeof createInvoice>>;
let openA: Awaited<ReturnType<typeof createInvoice>>;
let openB: Awaited<ReturnType<typeof createInvoice>>;

const get = (path: string, s = session) => kit.call('GET', `/agent/customers/${c.id}${path}`, { session: s });

beforeAll(async () => {
  kit = await setupAgent();
  c = await seedCustomer(kit, {
    firstName: 'Rita',
    lastName: 'Reader',
    phone: '+49 30 1234567',
    unit: '2C',
    street: 'Kastanienallee',
    houseNumber: '21',
    postalCode: '10435',
    login: 'active',
  });
  const db = kit.t.db;
  await db
    .updateTable('subscribers')
    .set({
      invoice_first_name: 'Accounts',
      invoice_last_name: 'Reader GmbH',
      invoice_email: 'billing@reader.example',
      card_brand: 'visa',
      card_last4: '4242',
    })
    .where('id', '=', c.id)
    .execute();
  paidOld = await createInvoice(db, {
    providerId: kit.main.id,
    subscriberId: c.id,
    subscriptionId: c.subscriptionId,
    status: 'paid',
    totalCents: 3999,
    invoiceDate: '2026-09-01',
    dueDate: '2026-09-15',
    periodStart: '2026-09-01',
    paidAt: new Date('2026-09-03T08:00:00Z'),
    paymentReference: 'PAY-SEP-01',
  });
  paidNew = await createInvoice(db, {
    providerId: kit.main.id,
    subscriberId: c.id,
    subscriptionId: c.subscriptionId,
    status: 'paid',
    totalCents: 4250,
    invoiceDate: '2026-10-01',
    dueDate: '2026-10-15',
    periodStart: '2026-10-01',
    paidAt: new Date('2026-10-02T08:00:00Z'),
    paymentMethod: 'bank_transfer',
    paymentReference: 'PAY-OCT-01',
  });
  openA = await createInvoice(db, {
    providerId: kit.main.id,
    subscriberId: c.id,
    subscriptionId: c.subscriptionId,
    status: 'open',
    totalCents: 3999,
    invoiceDate: '2026-11-01',
    dueDate: '2026-11-15',
    periodStart: '2026-11-01',
  });
  openB = await createInvoice(db, {
    providerId: kit.main.id,
    subscriberId: c.id,
    status: 'open',
    totalCents: 1001,
    kind: 'first',
    invoiceDate: '2026-11-10',
    dueDate: '2026-11-24',
  });
  await createInvoice(db, { providerId: kit.main.id, subscriberId: c.id, status: 'draft', totalCents: 777 });
  session = await verify(kit, c);
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe('GET /agent/customers/{customerId} (profile)', () => {
  it('answers contacts, invoice address, service locations, subscriptions with plan and the portal-account state', async () => {
    const r = await get('');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      customer_id: c.id,
      customer_number: c.customerNumber,
      contacts: {
        contract: { first_name: 'Rita', last_name: 'Reader', email: c.email, phone: '+49 30 1234567' },
        invoice: { first_name: 'Accounts', last_name: 'Reader GmbH', email: 'billing@reader.example', phone: null },
      },
      invoice_address: {
        street: 'Hauptstraße',
        house_number: '5',
        postal_code: '10115',
        city: 'Berlin',
        country: 'DE',
        formatted: 'Hauptstraße 5, 10115 Berlin',
      },
      service_locations: [
        {
          subscription_id: c.subscriptionId,
          building_id: c.building.id,
          address: 'Kastanienallee 21, 10435 Berlin',
          street: 'Kastanienallee',
          house_number: '21',
          postal_code: '10435',
          city: 'Berlin',
          country: 'DE',
          unit_label: '2C',
        },
      ],
      subscriptions: [
        {
          subscription_id: c.subscriptionId,
          status: 'ACTIVE',
          suspended_reason: null,
          plan: {
            plan_version_id: c.plan.id,
            name: 'Fibre 250',
            monthly_price: '39.99',
            currency: 'EUR',
            download_mbps: 250,
            upload_mbps: 50,
          },
          service_location: expect.objectContaining({ unit_label: '2C', address: 'Kastanienallee 21, 10435 Berlin' }),
          activated_at: '2026-01-10T09:00:00.000Z',
          ended_at: null,
          billing_day: 1,
        },
      ],
      portal_account: 'active',
    });
  });

  it('is one statement: ownership, the verified session and the profile are read together', async () => {
    await get(''); // the API key is cached after its first lookup
    const rec = recordStatements(kit.t.db);
    try {
      const r = await get('');
      expect(r.status).toBe(200);
    } finally {
      rec.stop();
    }
    expect(rec.seen).toHaveLength(1);
    expect(rec.seen[0]!.trimStart()).toMatch(/^select /i);
  });

  it('takes the customer id in upper case like any UUID', async () => {
    const r = await kit.call('GET', `/agent/customers/${c.id.toUpperCase()}`, { session });
    expect(r.status).toBe(200);
    expect(r.body.customer_id).toBe(c.id);
  });

  it('says not_activated / none for customers who never chose a password / have no login', async () => {
    const a = await seedCustomer(kit, { login: 'not_activated' });
    const b = await seedCustomer(kit, { login: 'none' });
    expect((await kit.call('GET', `/agent/customers/${a.id}`, { session: await verify(kit, a) })).body.portal_account).toBe(
      'not_activated',
    );
    expect((await kit.call('GET', `/agent/customers/${b.id}`, { session: await verify(kit, b) })).body.portal_account).toBe('none');
  });
});

describe('GET …/billing-summary', () => {
  it('balance is the sum of open invoices; open invoices carry invoice_id; drafts are not listed; last payment is the newest paid invoice', async () => {
    const r = await get('/billing-summary');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      customer_id: c.id,
      currency: 'EUR',
      balance: '50.00',
      open_invoice_count: 2,
      open_invoices: [
        {
          invoice_id: openA.id,
          invoice_number: openA.invoiceNumber,
          invoice_date: '2026-11-01',
          due_date: '2026-11-15',
          amount: '39.99',
          currency: 'EUR',
          overdue: true,
        },
        {
          invoice_id: openB.id,
          invoice_number: openB.invoiceNumber,
          invoice_date: '2026-11-10',
          due_date: '2026-11-24',
          amount: '10.01',
          currency: 'EUR',
          overdue: false,
        },
      ],
      // November is invoiced; the next monthly invoice goes out on the billing day (1st) of December.
      next_invoice_date: '2026-12-01',
      last_payment: {
        invoice_id: paidNew.id,
        invoice_number: paidNew.invoiceNumber,
        invoice_date: '2026-10-01',
        amount: '42.50',
        currency: 'EUR',
        paid_at: '2026-10-02T08:00:00.000Z',
        payment_method: 'bank_transfer',
        payment_reference: 'PAY-OCT-01',
      },
    });
  });

  it("a customer with nothing billed answers a zero balance, no last payment and, before this month's run, this month's billing date", async () => {
    const d = await seedCustomer(kit);
    await kit.t.db.updateTable('subscriptions').set({ billing_day: 5 }).where('id', '=', d.subscriptionId).execute();
    kit.t.clock.set('2026-11-03T10:00:00.000Z');
    try {
      const s = await verify(kit, d);
      const r = await kit.call('GET', `/agent/customers/${d.id}/billing-summary`, { session: s });
      expect(r.body).toMatchObject({
        balance: '0.00',
        open_invoice_count: 0,
        open_invoices: [],
        last_payment: null,
        next_invoice_date: '2026-11-05',
      });
    } finally {
      kit.t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });
});

describe('GET …/payments', () => {
  it('lists paid invoices newest first with their payment reference (never the processor id)', async () => {
    const r = await get('/payments');
    expect(r.status).toBe(200);
    expect(r.body.total_count).toBe(2);
    expect(r.body.payments.map((p: any) => p.invoice_id)).toEqual([paidNew.id, paidOld.id]);
    expect(r.body.payments[1]).toEqual({
      invoice_id: paidOld.id,
      invoice_number: paidOld.invoiceNumber,
      invoice_date: '2026-09-01',
      amount: '39.99',
      currency: 'EUR',
      paid_at: '2026-09-03T08:00:00.000Z',
      payment_method: 'card',
      payment_reference: 'PAY-SEP-01',
    });
    expect(r.raw).not.toContain(paidOld.paymentIntentId!);
    const one = await get('/payments?limit=1');
    expect(one.body.payments).toHaveLength(1);
    expect(one.body.total_count).toBe(2);
  });
});

describe('GET …/network-health', () => {
  it('per subscription: status, activation, provisioning state with the latest job, modem status; read-only; internal job errors stay internal', async () => {
    const db = kit.t.db;
    await createModemStatus(db, c.subscriptionId, { state: 'degraded', signalDbm: -24.5, uptimeSeconds: 3600 });
    await db
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: 'provisioning.port',
        status: 'succeeded',
        attempts: 1,
        subscription_id: c.subscriptionId,
        provider_id: kit.main.id,
        created_at: new Date('2026-01-10T08:00:00Z'),
        updated_at: new Date('2026-01-10T08:01:00Z'),
      })
      .execute();
    await db
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: 'provisioning.port',
        status: 'failed',
        attempts: 8,
        subscription_id: c.subscriptionId,
        provider_id: kit.main.id,
        last_error: 'switch sw-01 refused MAC AA:BB:CC:DD:EE:FF',
        created_at: new Date('2026-11-15T08:00:00Z'),
        updated_at: new Date('2026-11-15T09:00:00Z'),
      })
      .execute();
    await db
      .insertInto('status_events')
      .values({
        id: newId(),
        subscriber_id: c.id,
        subscription_id: c.subscriptionId,
        kind: 'outage',
        description: 'Fibre cut in the street',
        started_at: new Date('2026-11-16T07:00:00Z'),
      })
      .execute();
    await db
      .insertInto('status_events')
      .values({
        id: newId(),
        subscriber_id: c.id,
        subscription_id: c.subscriptionId,
        kind: 'maintenance',
        description: 'old',
        started_at: new Date('2026-10-01T07:00:00Z'),
        resolved_at: new Date('2026-10-01T08:00:00Z'),
      })
      .execute();
    const jobsBefore = await db.selectFrom('jobs').select('id').execute();
    const r = await get('/network-health');
    expect(r.status).toBe(200);
    expect(r.body.subscriptions).toEqual([
      {
        subscription_id: c.subscriptionId,
        status: 'ACTIVE',
        suspended_reason: null,
        plan_name: 'Fibre 250',
        service_location: expect.objectContaining({ unit_label: '2C' }),
        activation: { activated: true, activated_at: '2026-01-10T09:00:00.000Z', ended_at: null },
        provisioning: {
          state: 'failed',
          last_job: { kind: 'provisioning.port', status: 'failed', attempts: 8, updated_at: '2026-11-15T09:00:00.000Z' },
        },
        install: null,
        modem: {
          state: 'degraded',
          last_seen_at: '2026-11-16T09:55:00.000Z',
          signal_dbm: -24.5,
          uptime_seconds: 3600,
          reported_at: '2026-11-16T09:55:00.000Z',
        },
        incidents: [{ kind: 'outage', description: 'Fibre cut in the street', started_at: '2026-11-16T07:00:00.000Z', resolved_at: null }],
      },
    ]);
    expect(r.raw).not.toContain('AA:BB:CC:DD:EE:FF');
    expect(r.raw).not.toContain('sw-01');
    // Read-only: nothing was enqueued or changed.
    expect(await db.selectFrom('jobs').select('id').execute()).toHaveLength(jobsBefore.length);
  });

  it('modem null when unknown; a pending-install subscription shows its installation', async () => {
    const p = await seedCustomer(kit, { status: 'PENDING_INSTALL' });
    await kit.t.db.updateTable('subscriptions').set({ activated_at: null }).where('id', '=', p.subscriptionId).execute();
    await kit.t.db
      .insertInto('install_jobs')
      .values({
        id: newId(),
        provider_id: kit.main.id,
        subscription_id: p.subscriptionId,
        unit_id: p.unit.id,
        kind: 'cpe_shipment',
        status: 'SHIPPED',
      })
      .execute();
    const r = await kit.call('GET', `/agent/customers/${p.id}/network-health`, { session: await verify(kit, p) });
    expect(r.body.subscriptions[0]).toMatchObject({
      status: 'PENDING_INSTALL',
      activation: { activated: false, activated_at: null },
      provisioning: { state: 'not_started', last_job: null },
      install: { kind: 'cpe_shipment', status: 'SHIPPED', move_in_date: null, booking_starts_at: null, booking_ends_at: null },
      modem: null,
    });
  });
});

describe('GET …/tickets', () => {
  it("lists the customer's tickets by the emails on file and by link, newest first, never internal comments or other providers' tickets", async () => {
    const db = kit.t.db;
    const mk = async (o: { provider?: string; subscriber?: string | null; email: string; subject: string; at: string }) => {
      const id = newId();
      await db
        .insertInto('tickets')
        .values({
          id,
          provider_id: o.provider ?? kit.main.id,
          subscriber_id: o.subscriber ?? null,
          contact_email: o.email,
          subject: o.subject,
          priority: 'normal',
          article: `Article of ${o.subject}`,
          created_at: new Date(o.at),
          updated_at: new Date(o.at),
        })
        .execute();
      await db
        .insertInto('ticket_comments')
        .values({ id: newId(), ticket_id: id, public: false, author: 'ai_agent', body: `secret transcript of ${o.subject}` })
        .execute();
      return id;
    };
    const t1 = await mk({ email: c.email.toUpperCase(), subject: 'By contract email', at: '2026-11-01T10:00:00Z' });
    const t2 = await mk({ email: 'billing@reader.example', subject: 'By invoice email', at: '2026-11-02T10:00:00Z' });
    const t3 = await mk({ subscriber: c.id, email: 'someone@else.example', subject: 'Linked', at: '2026-11-03T10:00:00Z' });
    await mk({ email: 'stranger@example.com', subject: 'Not theirs', at: '2026-11-04T10:00:00Z' });
    await mk({ provider: kit.other.id, email: c.email, subject: 'Other provider', at: '2026-11-05T10:00:00Z' });
    const r = await get('/tickets');
    expect(r.status).toBe(200);
    expect(r.body.tickets.map((t: any) => t.ticket_id)).toEqual([t3, t2, t1]);
    expect(r.body.tickets[0]).toEqual({
      ticket_id: t3,
      subject: 'Linked',
      status: 'open',
      priority: 'normal',
      queue: 'support',
      caller_verified: false,
      article: 'Article of Linked',
      created_at: '2026-11-03T10:00:00.000Z',
      updated_at: '2026-11-03T10:00:00.000Z',
    });
    expect(r.raw).not.toContain('secret transcript');
    expect((await get('/tickets?limit=1')).body.tickets).toHaveLength(1);
  });
});
