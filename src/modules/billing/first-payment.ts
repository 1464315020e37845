// The first payment after an installation is confirmed (PENDING_INSTALL → ACTIVE).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import { isoDate, monthStart } from '../../lib/dates.js';
import { isUniqueViolation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { findSubscription } from '../subscriptions/index.js';
import {
  dayOf,
  dayRangeLabel,
  daysIn,
  externalDocumentId,
  findBillingDocument,
  insertBillingDocument,
  insertInvoice,
  invoiceNumber,
  lastDayOf,
  PAYMENT_TERM_DAYS,
  prorate,
} from '../invoices/index.js';
import * as repo from './billing.repository.js';
import { addDays } from '../../lib/dates.js';
import { activateInstalled } from './settlement.js';
import { collectInvoice, isTransient, type CollectionDeps } from './collection.js';

type FirstPaymentOutcome =
  /** the saved card was charged; the subscription is ACTIVE */
  | 'charged'
  /** a payment link was emailed; the subscription stays PENDING_INSTALL until the link is paid */
  | 'link_sent'
  /** collection runs in the `billing.collect` job (inside a caller's transaction, or the card processor was unreachable) */
  | 'queued'
  /** nothing to collect (provider-billed subscription, or nothing owed): the subscription is ACTIVE */
  | 'not_billed'
  /** the first invoice was paid before: nothing changed */
  | 'already_paid';

export interface FirstPaymentResult {
  subscriptionId: string;
  /** The first invoice (kind 'first'); null for a provider-billed subscription. */
  invoiceId: string | null;
  outcome: FirstPaymentOutcome;
  /** True when the subscription is ACTIVE after this call. */
  activated: boolean;
  /** The port job queued when nothing was owed and the subscription was activated at once; a paid activation queues its own (settlement.ts). */
  portJobId: string | null;
}

/**
 * Creates the first invoice (kind 'first') for the rest of the installation month, pro rata from
 * the confirmation day (a day counts in full), with its billing document. Idempotent: a second
 * call finds the invoice (unique per subscription). Runs inside `trx`.
 */
async function prepareFirstInvoice(
  trx: Transaction<DB>,
  deps: Pick<CollectionDeps, 'clock' | 'jobs'>,
  subscriptionId: string,
  queueCollection: boolean,
) {
  const sub = await repo.lockSubscriptionForBilling(trx, subscriptionId);
  if (!sub) throw new Error(`collectFirstPayment: subscription ${subscriptionId} not found`);
  if (!sub.service_billed) {
    // The provider bills this subscription: nothing is owed to this service.
    const activated = await activateInstalled(trx, deps, sub.id);
    return { invoiceId: null, outcome: 'not_billed' as const, portJobId: activated?.portJobId ?? null };
  }
  const existing = await repo.findFirstInvoice(trx, sub.id);
  if (existing) {
    if (existing.status === 'paid') {
      // Paid while still PENDING_INSTALL cannot normally happen (the payment activates); if it did, activate now.
      const activated = await activateInstalled(trx, deps, sub.id);
      return { invoiceId: existing.id, outcome: 'already_paid' as const, portJobId: activated?.portJobId ?? null };
    }
    if (queueCollection) await enqueueCollect(trx, deps, existing.id, sub.provider_id, sub.id);
    return { invoiceId: existing.id, outcome: 'open' as const };
  }
  const now = deps.clock.now();
  const today = isoDate(now);
  const month = monthStart(now);
  const dim = daysIn(month);
  const days = dim - dayOf(today) + 1;
  const amount = prorate(sub.monthly_price_cents, days, dim);
  const id = newId();
  const paid = amount === 0;
  await insertInvoice(
    trx,
    {
      id,
      provider_id: sub.provider_id,
      subscriber_id: sub.subscriber_id,
      subscription_id: sub.id,
      invoice_number: invoiceNumber(month),
      kind: 'first',
      period_start: month,
      invoice_date: today,
      due_date: addDays(today, PAYMENT_TERM_DAYS),
      currency: sub.currency.trim(),
      total_cents: amount,
      status: paid ? 'paid' : 'open',
      paid_at: paid ? now : null,
      created_at: now,
    },
    [
      {
        kind: 'subscription',
        description: `${sub.plan_name}, ${dayRangeLabel(today, lastDayOf(month))} (from installation, pro rata)`,
        amount_cents: amount,
      },
    ],
    newId,
  );
  if (!(await findBillingDocument(trx, sub.id, month))) {
    await insertBillingDocument(trx, {
      id: newId(),
      provider_id: sub.provider_id,
      subscription_id: sub.id,
      period_start: month,
      invoice_id: id,
      external_document_id: externalDocumentId(),
      created_at: now,
    });
  }
  if (paid) {
    const activated = await activateInstalled(trx, deps, sub.id);
    return { invoiceId: id, outcome: 'not_billed' as const, portJobId: activated?.portJobId ?? null };
  }
  if (queueCollection) await enqueueCollect(trx, deps, id, sub.provider_id, sub.id);
  return { invoiceId: id, outcome: 'open' as const };
}

export function enqueueCollect(
  trx: Transaction<DB>,
  deps: Pick<CollectionDeps, 'jobs'>,
  invoiceId: string,
  providerId: string,
  subscriptionId: string | null,
) {
  return deps.jobs.enqueue(trx, {
    kind: 'billing.collect',
    payload: { invoice_id: invoiceId },
    dedupeKey: `billing.collect:${invoiceId}`,
    providerId,
    subscriptionId,
  });
}

const portJobOf = (r: { portJobId?: string | null }) => r.portJobId ?? null;

async function isActive(ex: CollectionDeps['db'] | Transaction<DB>, subscriptionId: string) {
  const r = await findSubscription(ex, subscriptionId);
  return r?.status === 'ACTIVE';
}

/**
 * Collects the first payment of a subscription whose installation was just confirmed.
 *
 * - Provider-billed (service_billed false): nothing is invoiced; the subscription becomes ACTIVE.
 * - Service-billed: a first invoice (kind 'first', the installation month pro rata from today)
 *   is created; the saved card is charged (→ invoice paid, subscription ACTIVE), or without a
 *   card (or on a decline) the subscriber is emailed a payment link (purpose 'payment', served at
 *   GET /pay/{token}); the subscription becomes ACTIVE when the link is paid.
 *
 * Call it either
 * - with `{ trx }` (inside the confirm-install transaction): the invoice is written in `trx` and
 *   the charge or mail happens after commit in the durable `billing.collect` job (outcome 'queued',
 *   or 'not_billed' / 'already_paid'); never calls an external system inside the transaction; or
 * - without a transaction (after the caller committed): collects at once and reports the outcome;
 *   an unreachable card processor leaves it to the `billing.collect` job (outcome 'queued').
 *
 * Idempotent: a second call finds the first invoice and never bills twice.
 */
export async function collectFirstPayment(
  deps: CollectionDeps,
  subscriptionId: string,
  opts: { trx?: Transaction<DB> } = {},
): Promise<FirstPaymentResult> {
  if (opts.trx) {
    const r = await prepareFirstInvoice(opts.trx, deps, subscriptionId, true);
    const outcome: FirstPaymentOutcome = r.outcome === 'open' ? 'queued' : r.outcome;
    return {
      subscriptionId,
      invoiceId: r.invoiceId,
      outcome,
      activated: await isActive(opts.trx, subscriptionId),
      portJobId: portJobOf(r),
    };
  }
  let r: Awaited<ReturnType<typeof prepareFirstInvoice>>;
  try {
    r = await deps.db.transaction().execute((trx) => prepareFirstInvoice(trx, deps, subscriptionId, false));
  } catch (err) {
    // Two callers at once: the other one created the invoice; take it from there.
    if (!isUniqueViolation(err, 'invoices_subscription_first_key')) throw err;
    r = await deps.db.transaction().execute((trx) => prepareFirstInvoice(trx, deps, subscriptionId, false));
  }
  if (r.outcome !== 'open')
    return {
      subscriptionId,
      invoiceId: r.invoiceId,
      outcome: r.outcome,
      activated: await isActive(deps.db, subscriptionId),
      portJobId: portJobOf(r),
    };
  const invoiceId = r.invoiceId;
  try {
    const c = await collectInvoice(deps, invoiceId);
    const outcome: FirstPaymentOutcome = c.outcome === 'charged' ? 'charged' : c.outcome === 'link_sent' ? 'link_sent' : 'already_paid';
    return { subscriptionId, invoiceId, outcome, activated: await isActive(deps.db, subscriptionId), portJobId: null };
  } catch (err) {
    if (!isTransient(err)) throw err;
    deps.log.warn(
      { subscription_id: subscriptionId, err: (err as Error).message },
      'first payment: card processor unavailable, collection queued',
    );
    await deps.db.transaction().execute(async (trx) => {
      const inv = await repo.findInvoice(trx, invoiceId);
      await enqueueCollect(trx, deps, invoiceId, inv!.provider_id, subscriptionId);
    });
    return { subscriptionId, invoiceId, outcome: 'queued', activated: false, portJobId: null };
  }
}
