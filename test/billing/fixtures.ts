// Fixtures shared by the subscriber, billing and staff tests (on top of test/helpers/factories.ts).
import type { TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
  createUser,
} from '../helpers/factories.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';

export async function bearerFor(
  t: TestApp,
  u: { id: string; role?: 'subscriber' | 'service_provider' | 'platform_admin'; spRole?: string | null; providerId?: string | null },
) {
  const tok = await t.services.auth.issueJwt({
    id: u.id,
    role: u.role ?? 'subscriber',
    sp_role: u.spRole ?? null,
    provider_id: u.providerId ?? null,
  });
  return { authorization: `Bearer ${tok.access_token}` };
}

/** A provider with a plan, and a subscriber who can log in, with one service-billed ACTIVE subscription on a port. */
export async function customer(
  t: TestApp,
  o: {
    provider?: Awaited<ReturnType<typeof createProvider>>;
    priceCents?: number;
    serviceBilled?: boolean;
    status?: 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';
    cardProcessor?: string | null;
    activatedAt?: Date;
    customerNumber?: string | null;
  } = {},
) {
  const provider = o.provider ?? (await createProvider(t.db, { cardProcessor: o.cardProcessor }));
  const plan = await createPlanVersion(t.db, provider.id, { name: 'Fast', priceCents: o.priceCents ?? 3000 });
  const user = await createUser(t.db, { password: 'correct horse battery' });
  const sub = await createSubscriber(t.db, provider.id, { userId: user.id, email: user.email, customerNumber: o.customerNumber });
  const building = await createBuilding(t.db, provider.id);
  const location = await createLocation(t.db, provider.id, building.id, building.units[0]!.id);
  const subscription = await createSubscription(t.db, {
    providerId: provider.id,
    subscriberId: sub.id,
    planVersionId: plan.id,
    buildingId: building.id,
    unitId: building.units[0]!.id,
    locationId: location.id,
    status: o.status ?? 'ACTIVE',
    serviceBilled: o.serviceBilled ?? true,
    activatedAt: o.activatedAt,
  });
  const headers = await bearerFor(t, { id: user.id });
  return { provider, plan, user, subscriber: sub, subscription, location, building, headers };
}

export async function insertInvoice(
  t: TestApp,
  o: {
    providerId: string;
    subscriberId: string;
    subscriptionId: string | null;
    month: string;
    invoiceDate?: string;
    dueDate?: string;
    totalCents?: number;
    status?: 'draft' | 'open' | 'paid' | 'void';
    kind?: 'monthly' | 'first';
    withDocument?: boolean;
  },
) {
  const id = newId();
  await t.db
    .insertInto('invoices')
    .values({
      id,
      provider_id: o.providerId,
      subscriber_id: o.subscriberId,
      subscription_id: o.subscriptionId,
      invoice_number: `INV-T-${randomAlnum(10).toUpperCase()}`,
      kind: o.kind ?? 'monthly',
      period_start: o.month,
      invoice_date: o.invoiceDate ?? o.month,
      due_date: o.dueDate ?? o.month,
      currency: 'EUR',
      total_cents: o.totalCents ?? 3000,
      status: o.status ?? 'paid',
      paid_at: (o.status ?? 'paid') === 'paid' ? new Date(`${o.month}T12:00:00Z`) : null,
    })
    .execute();
  await t.db
    .insertInto('invoice_lines')
    .values({ id: newId(), invoice_id: id, position: 1, kind: 'subscription', description: 'Fast', amount_cents: o.totalCents ?? 3000 })
    .execute();
  if (o.withDocument !== false && o.subscriptionId && o.kind !== 'first') {
    await t.db
      .insertInto('billing_documents')
      .values({
        id: newId(),
        provider_id: o.providerId,
        subscription_id: o.subscriptionId,
        period_start: o.month,
        invoice_id: id,
        external_document_id: `bdoc_${randomAlnum(10)}`,
      })
      .execute();
  }
  return { id };
}

export async function insertCreditNote(
  t: TestApp,
  o: {
    providerId: string;
    subscriberId: string;
    subscriptionId: string | null;
    state: string;
    amountCents: number;
    issuedAt: string;
    number?: string;
  },
) {
  const id = newId();
  const number = o.number ?? `CN-T-${randomAlnum(8).toUpperCase()}`;
  await t.db
    .insertInto('credit_notes')
    .values({
      id,
      provider_id: o.providerId,
      subscriber_id: o.subscriberId,
      subscription_id: o.subscriptionId,
      number,
      state: o.state,
      amount_cents: o.amountCents,
      currency: 'EUR',
      reason: 'Plan change Faster → Fast',
      issued_at: new Date(o.issuedAt),
    })
    .execute();
  return { id, number };
}

export async function insertPendingAdjustment(
  t: TestApp,
  o: { providerId: string; subscriptionId: string; kind: 'upgrade_line' | 'carried_correction'; amountCents: number; description: string },
) {
  const id = newId();
  await t.db
    .insertInto('pending_adjustments')
    .values({
      id,
      provider_id: o.providerId,
      subscription_id: o.subscriptionId,
      kind: o.kind,
      amount_cents: o.amountCents,
      description: o.description,
    })
    .execute();
  return { id };
}

/** The jobs of a kind, oldest first. */
export async function jobsOf(t: TestApp, kind: string) {
  const rows = await t.db.selectFrom('jobs').selectAll().where('kind', '=', kind).orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ ...r, payload: (r.payload ?? {}) as Record<string, unknown>, result: r.result }));
}

/** mail.send jobs (payload is the message) to an address. */
export async function mailsTo(t: TestApp, to: string) {
  const jobs = await jobsOf(t, 'mail.send');
  return jobs
    .map((j) => j.payload as unknown as { to: string; subject: string; text: string; html?: string; tag: string })
    .filter((m) => m.to === to);
}

/** The clear token of a link in a mail body (…/pay/<token> or …?token=<token>). */
export function tokenIn(text: string, path: '/pay/' | 'token='): string {
  const re = path === '/pay/' ? /\/pay\/([A-Za-z0-9_%-]+)/ : /token=([A-Za-z0-9_%-]+)/;
  const m = re.exec(text);
  if (!m) throw new Error(`no ${path} link in: ${text}`);
  return decodeURIComponent(m[1]!);
}
