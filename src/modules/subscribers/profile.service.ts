import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoDate, monthStart } from '../../lib/dates.js';
import { formatCents } from '../../lib/money.js';
import { billingDateFor, nextMonth } from '../invoices/index.js';
import { getProvider } from '../providers/index.js';
import { formatAddress, iso } from './subscriber.format.js';
import { subscriberNotFound } from './subscriber.errors.js';
import * as repo from './profile.repository.js';

// The verified reads of the /agent surface. Each answer is built field by field from named
// columns, so an internal column (processor ids, operator notes, MAC, user id) cannot slip in.

const TERMINAL = new Set(['CANCELLED']);

function serviceLocation(s: repo.SubscriptionRow) {
  return {
    building_id: s.building_id,
    address: formatAddress(s),
    street: s.street,
    house_number: s.house_number,
    postal_code: s.postal_code,
    city: s.city,
    country: s.country?.trim() ?? null,
    unit_label: s.unit_label,
  };
}

export interface SubscriberReadDeps {
  db: Db;
  clock: Clock;
}

export function createSubscriberReadService({ db, clock }: SubscriberReadDeps) {
  async function owned(providerId: string, customerId: string) {
    const c = await repo.findOwnedSubscriber(db, providerId, customerId);
    if (!c) throw subscriberNotFound();
    return c;
  }

  /** One statement: the customer, its subscriptions with plan and place, and its portal login. */
  async function profile(providerId: string, customerId: string) {
    const c = await repo.findProfile(db, providerId, customerId);
    if (!c) throw subscriberNotFound();
    return formatProfile(c);
  }

  /** The profile answer from its row (the /agent route reads the row with its ownership check). */
  function formatProfile(c: repo.Profile) {
    const subs = c.subscriptions;
    const seen = new Set<string>();
    const service_locations = subs
      .map((s) => ({ subscription_id: s.id, ...serviceLocation(s) }))
      .filter((l) => {
        const k = `${l.building_id}|${l.unit_label}`;
        return l.building_id && !seen.has(k) ? (seen.add(k), true) : false;
      });
    return {
      customer_id: c.id,
      customer_number: c.customer_number,
      contacts: {
        contract: { first_name: c.first_name, last_name: c.last_name, email: c.email, phone: c.phone },
        invoice: { first_name: c.invoice_first_name, last_name: c.invoice_last_name, email: c.invoice_email, phone: c.invoice_phone },
      },
      invoice_address:
        c.invoice_street || c.invoice_city
          ? {
              street: c.invoice_street,
              house_number: c.invoice_house_number,
              postal_code: c.invoice_postal_code,
              city: c.invoice_city,
              country: c.invoice_country?.trim() ?? null,
              formatted: formatAddress({
                street: c.invoice_street,
                house_number: c.invoice_house_number,
                postal_code: c.invoice_postal_code,
                city: c.invoice_city,
              }),
            }
          : null,
      service_locations,
      subscriptions: subs.map((s) => ({
        subscription_id: s.id,
        status: s.status as 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED',
        suspended_reason: s.suspended_reason as 'provider' | 'non_payment' | null,
        plan: {
          plan_version_id: s.plan_version_id,
          name: s.plan_name,
          monthly_price: formatCents(s.monthly_price_cents),
          currency: s.currency.trim(),
          download_mbps: s.download_mbps,
          upload_mbps: s.upload_mbps,
        },
        service_location: serviceLocation(s),
        activated_at: iso(s.activated_at),
        ended_at: s.ended_at,
        billing_day: s.billing_day,
      })),
      portal_account: !c.portal_user_id ? ('none' as const) : c.portal_password_set ? ('active' as const) : ('not_activated' as const),
    };
  }

  /** The next date a monthly invoice goes out for any service-billed, running subscription. */
  async function nextInvoiceDate(subs: repo.SubscriptionRow[]): Promise<string | null> {
    const billed = subs.filter((s) => s.service_billed && (s.status === 'ACTIVE' || s.status === 'SUSPENDED'));
    if (billed.length === 0) return null;
    const today = isoDate(clock.now());
    const month = monthStart(clock.now());
    const invoiced = new Set(
      (
        await repo.invoicedSubscriptions(
          db,
          billed.map((s) => s.id),
          month,
        )
      ).map((r) => r.subscription_id),
    );
    let next: string | null = null;
    for (const s of billed) {
      const thisMonth = billingDateFor(month, s);
      // Not yet invoiced this month: its billing date (or, when that passed, the next billing run).
      const date = invoiced.has(s.id) ? billingDateFor(nextMonth(month), s) : thisMonth >= today ? thisMonth : today;
      // A subscription that ends before that date is not invoiced again.
      if (s.ended_at && s.ended_at <= date) continue;
      if (next === null || date < next) next = date;
    }
    return next;
  }

  async function billingSummary(providerId: string, customerId: string) {
    const c = await owned(providerId, customerId);
    const [provider, balance, open, paid, subs] = await Promise.all([
      getProvider(db, providerId),
      repo.openBalance(db, c.id),
      repo.listInvoices(db, c.id, { status: 'open', limit: 50 }),
      repo.listInvoices(db, c.id, { status: 'paid', limit: 1 }),
      repo.listSubscriptions(db, c.id),
    ]);
    const today = isoDate(clock.now());
    const last = paid[0];
    return {
      customer_id: c.id,
      currency: (open[0]?.currency ?? provider.currency).trim(),
      balance: formatCents(balance.totalCents),
      open_invoice_count: balance.count,
      open_invoices: open.map((i) => ({
        invoice_id: i.id,
        invoice_number: i.invoice_number,
        invoice_date: i.invoice_date,
        due_date: i.due_date,
        amount: formatCents(i.total_cents),
        currency: i.currency.trim(),
        overdue: i.due_date < today,
      })),
      next_invoice_date: await nextInvoiceDate(subs),
      last_payment: last
        ? {
            invoice_id: last.id,
            invoice_number: last.invoice_number,
            invoice_date: last.invoice_date,
            amount: formatCents(last.total_cents),
            currency: last.currency.trim(),
            paid_at: iso(last.paid_at),
            payment_method: last.payment_method as 'card' | 'payment_link' | 'bank_transfer' | null,
            payment_reference: last.payment_reference,
          }
        : null,
    };
  }

  async function payments(providerId: string, customerId: string, limit: number) {
    const c = await owned(providerId, customerId);
    const [rows, total] = await Promise.all([repo.listInvoices(db, c.id, { status: 'paid', limit }), repo.countPaidInvoices(db, c.id)]);
    return {
      customer_id: c.id,
      total_count: total,
      payments: rows.map((i) => ({
        invoice_id: i.id,
        invoice_number: i.invoice_number,
        invoice_date: i.invoice_date,
        amount: formatCents(i.total_cents),
        currency: i.currency.trim(),
        paid_at: iso(i.paid_at),
        payment_method: i.payment_method as 'card' | 'payment_link' | 'bank_transfer' | null,
        payment_reference: i.payment_reference,
      })),
    };
  }

  async function networkHealth(providerId: string, customerId: string) {
    const c = await owned(providerId, customerId);
    const subs = await repo.listSubscriptions(db, c.id);
    const ids = subs.map((s) => s.id);
    const now = clock.now();
    const [jobs, modems, installs, incidents] = await Promise.all([
      repo.latestProvisioningJobs(db, ids),
      repo.modemStatuses(db, ids),
      repo.installJobs(db, ids),
      repo.recentIncidents(db, c.id, new Date(now.getTime() - 7 * 86_400_000)),
    ]);
    return {
      customer_id: c.id,
      checked_at: now.toISOString(),
      subscriptions: subs.map((s) => {
        const job = jobs.find((j) => j.subscription_id === s.id);
        const modem = modems.find((m) => m.subscription_id === s.id);
        const install = installs.find((i) => i.subscription_id === s.id);
        return {
          subscription_id: s.id,
          status: s.status as 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED',
          suspended_reason: s.suspended_reason as 'provider' | 'non_payment' | null,
          plan_name: s.plan_name,
          service_location: serviceLocation(s),
          activation: {
            activated: s.activated_at !== null && !TERMINAL.has(s.status),
            activated_at: iso(s.activated_at),
            ended_at: s.ended_at,
          },
          provisioning: {
            state: provisioningState(s.status, job?.status),
            last_job: job
              ? {
                  kind: job.kind,
                  status: job.status as 'queued' | 'running' | 'succeeded' | 'failed',
                  attempts: job.attempts,
                  updated_at: iso(job.updated_at)!,
                }
              : null,
          },
          install: install
            ? {
                kind: install.kind as 'technician_visit' | 'cpe_shipment',
                status: install.status,
                move_in_date: install.move_in_date,
                booking_starts_at: iso(install.booking_starts_at),
                booking_ends_at: iso(install.booking_ends_at),
              }
            : null,
          modem: modem
            ? {
                state: modem.state as 'online' | 'offline' | 'degraded',
                last_seen_at: iso(modem.last_seen_at),
                signal_dbm: modem.signal_dbm === null ? null : Number(modem.signal_dbm),
                uptime_seconds: modem.uptime_seconds,
                reported_at: iso(modem.updated_at)!,
              }
            : null,
          incidents: incidents
            .filter((i) => i.subscription_id === s.id || i.subscription_id === null)
            .map((i) => ({
              kind: i.kind as 'outage' | 'degraded' | 'maintenance',
              description: i.description,
              started_at: iso(i.started_at)!,
              resolved_at: iso(i.resolved_at),
            })),
        };
      }),
    };
  }

  return { profile, formatProfile, billingSummary, payments, networkHealth };
}

/** One word for the agent: where the port set-up of this subscription stands. */
function provisioningState(
  status: string,
  jobStatus: string | undefined,
): 'provisioned' | 'in_progress' | 'failed' | 'not_started' | 'not_applicable' {
  if (status === 'CANCELLED') return 'not_applicable';
  if (jobStatus === 'failed') return 'failed';
  if (jobStatus === 'queued' || jobStatus === 'running') return 'in_progress';
  if (jobStatus === 'succeeded' || status === 'ACTIVE' || status === 'SUSPENDED') return 'provisioned';
  return 'not_started';
}

/** @public The type of what the container builds. */
export type SubscriberReadService = ReturnType<typeof createSubscriberReadService>;
