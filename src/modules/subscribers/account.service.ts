// Subscriber self-service reads: own record, profile, invoices, usage, connection history.
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { addMonths, monthStart } from '../../lib/dates.js';
import { notFound } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import * as repo from './account.repository.js';
import { findProvider } from '../providers/index.js';

export interface SubscriberDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
}

const NO_SUBSCRIBER_RECORD = 'No subscriber record for this account';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

interface Branding {
  display_name?: string | null;
  logo_url?: string | null;
  primary_color?: string | null;
  support_phone?: string | null;
}

/** Bytes to decimal gigabytes (1 GB = 1000^3 bytes), rounded half-up to 2 places, without floats. */
function bytesToGb(bytes: string | number | bigint): number {
  const b = BigInt(bytes);
  const hundredths = (b * 100n + 500_000_000n) / 1_000_000_000n;
  return Number(hundredths) / 100;
}

export function createSubscriberService({ db, clock, log }: SubscriberDeps) {
  async function requireSubscriber(userId: string) {
    const s = await repo.findSubscriberByUser(db, userId);
    if (!s) throw notFound(NO_SUBSCRIBER_RECORD);
    return s;
  }

  function presentSubscriber(s: repo.SubscriberRow) {
    return {
      id: s.id,
      customer_number: s.customer_number,
      first_name: s.first_name,
      last_name: s.last_name,
      email: s.email,
      phone: s.phone,
      created_at: s.created_at.toISOString(),
    };
  }

  function presentSubscription(r: Awaited<ReturnType<typeof repo.subscriptionsOf>>[number]) {
    const hasAddress = r.street !== null || r.city !== null;
    return {
      id: r.id,
      status: r.status as 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED',
      billed_by: r.service_billed ? ('service' as const) : ('provider' as const),
      plan: {
        plan_version_id: r.plan_version_id,
        name: r.plan_name,
        monthly_price: formatCents(r.monthly_price_cents),
        currency: r.currency.trim(),
        download_mbps: r.download_mbps,
        upload_mbps: r.upload_mbps,
      },
      billing_day: r.billing_day,
      billing_day_effective_from: r.billing_day_effective_from,
      service_address: hasAddress
        ? {
            street: r.street,
            house_number: r.house_number,
            postal_code: r.postal_code,
            city: r.city,
            province: r.province,
            country: r.country?.trim() ?? null,
            unit: r.unit_label,
          }
        : null,
      activated_at: iso(r.activated_at),
      canceled_at: iso(r.canceled_at),
      ended_at: r.ended_at,
      created_at: r.created_at.toISOString(),
    };
  }

  async function me(userId: string) {
    const [s, sessions] = await Promise.all([repo.findSubscriberByUser(db, userId), repo.checkoutSessionsOfUser(db, userId)]);
    const checkout_sessions = sessions.map((c) => ({
      id: c.id,
      status: c.status as 'pending' | 'redirected' | 'completed' | 'expired' | 'cancelled',
      plan: {
        plan_version_id: c.plan_version_id,
        name: c.plan_name,
        monthly_price: formatCents(c.monthly_price_cents),
        currency: c.currency.trim(),
      },
      subscription_id: c.subscription_id,
      created_at: c.created_at.toISOString(),
      completed_at: iso(c.completed_at),
    }));
    if (!s) return { subscriber: null, subscriptions: [], checkout_sessions, provider: null };
    const [subs, p] = await Promise.all([repo.subscriptionsOf(db, s.id), findProvider(db, s.provider_id)]);
    const b = (p?.branding ?? {}) as Branding;
    return {
      subscriber: presentSubscriber(s),
      subscriptions: subs.map(presentSubscription),
      checkout_sessions,
      provider: p
        ? {
            id: p.id,
            name: p.name,
            support_email: p.support_email,
            branding: {
              display_name: b.display_name ?? p.name,
              logo_url: b.logo_url ?? null,
              primary_color: b.primary_color ?? null,
              support_phone: b.support_phone ?? null,
            },
          }
        : null,
    };
  }

  async function details(userId: string) {
    const s = await requireSubscriber(userId);
    const hasCard = Boolean(s.card_payment_method_id);
    return {
      ...presentSubscriber(s),
      invoice_contact: {
        first_name: s.invoice_first_name,
        last_name: s.invoice_last_name,
        email: s.invoice_email,
        phone: s.invoice_phone,
      },
      invoice_address: {
        street: s.invoice_street,
        house_number: s.invoice_house_number,
        postal_code: s.invoice_postal_code,
        city: s.invoice_city,
        country: s.invoice_country?.trim() ?? null,
      },
      payment_method:
        hasCard && s.card_brand && s.card_last4
          ? { brand: s.card_brand, last4: s.card_last4, exp_month: s.card_exp_month, exp_year: s.card_exp_year }
          : null,
      updated_at: s.updated_at.toISOString(),
    };
  }

  async function invoices(userId: string) {
    const s = await requireSubscriber(userId);
    const rows = await repo.invoicesOf(db, s.id);
    const lines = await repo.linesOf(
      db,
      rows.map((r) => r.id),
    );
    const byInvoice = new Map<string, typeof lines>();
    for (const l of lines) byInvoice.set(l.invoice_id, [...(byInvoice.get(l.invoice_id) ?? []), l]);
    return rows.map((r) => ({
      id: r.id,
      number: r.invoice_number,
      kind: r.kind as 'monthly' | 'first',
      invoice_date: r.invoice_date,
      due_date: r.due_date,
      period: r.period_start ? r.period_start.slice(0, 7) : null,
      total: formatCents(r.total_cents),
      currency: r.currency.trim(),
      status: r.status as 'open' | 'paid' | 'void',
      paid_at: iso(r.paid_at),
      subscription_id: r.subscription_id,
      lines: (byInvoice.get(r.id) ?? []).map((l) => ({
        kind: l.kind as 'subscription' | 'plan_change_adjustment' | 'credit_applied' | 'correction',
        description: l.description,
        amount: formatCents(l.amount_cents),
      })),
    }));
  }

  /** Last 6 complete calendar months plus the current month to date, oldest first. */
  async function usage(userId: string) {
    const s = await requireSubscriber(userId);
    const subs = await repo.subscriptionsOf(db, s.id);
    if (!subs.length) return { status: 'no_subscription' as const, months: [] };
    const current = monthStart(clock.now());
    const first = addMonths(current, -6);
    const rows = await repo.usageOf(
      db,
      subs.map((x) => x.id),
      first,
    );
    const sums = new Map<string, { down: bigint; up: bigint }>();
    for (const r of rows) {
      const m = r.month.slice(0, 10);
      if (m > current) continue;
      const acc = sums.get(m) ?? { down: 0n, up: 0n };
      acc.down += BigInt(r.download_bytes);
      acc.up += BigInt(r.upload_bytes);
      sums.set(m, acc);
    }
    if (!sums.size) return { status: 'no_data' as const, months: [] };
    const months = [];
    for (let i = 0; i <= 6; i++) {
      const m = addMonths(first, i);
      const v = sums.get(m) ?? { down: 0n, up: 0n };
      months.push({ month: m.slice(0, 7), download_gb: bytesToGb(v.down), upload_gb: bytesToGb(v.up), partial: m === current });
    }
    return { status: 'ok' as const, months };
  }

  /** Own connection timeline, newest first; any failure degrades to an empty list (logged). */
  async function statusHistory(userId: string) {
    try {
      const s = await repo.findSubscriberByUser(db, userId);
      if (!s) return { events: [] };
      const rows = await repo.statusEventsOf(db, s.id, STATUS_HISTORY_LIMIT);
      return {
        events: rows.map((r) => ({
          id: r.id,
          kind: r.kind as 'outage' | 'degraded' | 'maintenance',
          description: r.description,
          started_at: r.started_at.toISOString(),
          resolved_at: iso(r.resolved_at),
          ongoing: r.resolved_at === null,
        })),
      };
    } catch (err) {
      log.error({ err, user_id: userId }, 'status history unavailable; answering an empty list');
      return { events: [] };
    }
  }

  return { me, details, invoices, usage, statusHistory, requireSubscriber };
}

const STATUS_HISTORY_LIMIT = 100;

/** @public The type of what the container builds. */
export type SubscriberService = ReturnType<typeof createSubscriberService>;
