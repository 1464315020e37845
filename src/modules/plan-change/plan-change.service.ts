import type { Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { DB } from '../../db/types.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import type { Webhooks } from '../../webhooks/types.js';
import type { Executor } from '../../db/executor.js';
import { AppError, isUniqueViolation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatCents } from '../../lib/money.js';
import { localDate, localTime, timeZoneOr } from '../../lib/zoned-time.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { confirmPlanChange } from '../rollback-links/index.js';
import { setSubscriptionPlan } from '../subscriptions/index.js';
import * as repo from './plan-change.repository.js';
import { calendarPosition, type CalendarPosition } from './plan-change.quote.js';
import { billingStateOf, quoteOf, reasonsFor, type Reason } from './plan-change.rules.js';
import { BANDWIDTH_JOB, BANDWIDTH_RETRY_DELAY_MS, bandwidthOperationKey } from './plan-change.jobs.js';
import { writeAdjustment } from './plan-change.adjustments.js';
import { createQuoteTokens, quoteChanged, quoteDifference, type QuoteClaims } from './plan-change.quote-token.js';
import type { Quote } from './plan-change.types.js';
import { planOptions } from './plan-options.js';

export type { Quote } from './plan-change.types.js';

/**
 * Who asks for the change: the /agent surface, a partner API key, a platform administrator's
 * override, or the customer's rollback link undoing an /agent change.
 */
type Source = 'agent' | 'partner' | 'admin' | 'rollback';

/**
 * The daily limit each surface enforces (decisions.md): a partner changes a subscription once per UTC
 * day, the /agent a customer once per UTC day; a platform administrator's override has none.
 */
export type DailyLimit = 'subscription' | 'customer';
const LIMIT_OF = { partner: 'subscription', agent: 'customer' } as const satisfies Record<
  Exclude<Source, 'admin' | 'rollback'>,
  DailyLimit
>;

/** The unique indexes (baseline; 20261126070000 redefines one) that settle a race on each limit; a violation is the same 409. */
const DAILY_LIMIT_INDEXES = ['plan_changes_subscription_day_key', 'plan_changes_agent_customer_day_key'] as const;

function reasonError(reason: Reason, status?: string, limit: DailyLimit = 'customer'): AppError {
  switch (reason) {
    case 'not_active':
      return new AppError(
        409,
        'subscription_not_active',
        `The subscription is ${status ?? 'not ACTIVE'}; only an ACTIVE subscription can change plan`,
      );
    case 'already_changed_today':
      return new AppError(
        409,
        'plan_change_limit',
        `This ${limit === 'customer' ? 'customer' : 'subscription'} already changed plan today (UTC calendar day); the next change is possible from tomorrow`,
      );
    case 'same_plan':
      return new AppError(409, 'same_plan', 'The subscription is already on this plan version');
    case 'plan_not_available':
      return new AppError(409, 'plan_not_available', 'This plan version cannot be chosen (it is inactive or priced in another currency)');
  }
}

export interface PlanChangeTarget {
  providerId: string;
  subscriptionId: string;
  planVersionId: string;
  /** /agent: the verified customer; the subscription must be theirs. */
  customerId?: string;
  /** Decides the daily limit checked (LIMIT_OF). */
  source: 'agent' | 'partner';
}

/** Binds an apply to its preview (/agent): apply exactly the quoted change or refuse it. */
interface QuoteBinding {
  quoteToken?: string;
  /**
   * /agent: apply in an operator-escalation billing state (no amount computed) all the same; without
   * it such an apply is refused with 409 billing_escalation.
   */
  acknowledgeEscalation?: boolean;
}

/** The billing states where nobody computed the cost: not numbers to quote (spec §4 rule 5). */
const ESCALATION_STATES = new Set<string>(['missing_billing_document', 'missing_invoice']);

/** Whether a quote is of an operator-escalation state (no quote token, no apply without acknowledgement). */
export const isEscalation = (q: Quote | null) => Boolean(q && ESCALATION_STATES.has(q.billingState));

const escalationRefusal = () =>
  new AppError(
    409,
    'billing_escalation',
    "This month's billing records are incomplete (an operator-escalation state): no amount was computed, so the change is not applied. " +
      'Send acknowledge_escalation: true only when an operator told you to apply it regardless',
  );

/** An apply: a surface's change, or a platform administrator's override of the daily limit (any provider, with a reason). */
export type ApplyTarget = Omit<PlanChangeTarget, 'providerId' | 'source'> &
  QuoteBinding & { actor: Actor; requestId: string | null } & (
    | { source: 'agent' | 'partner'; providerId: string }
    | { source: 'admin'; providerId: null; overrideReason: string }
    | { source: 'rollback'; providerId: string; rollback: RollbackOf }
  );

/**
 * A rollback link's undo of an /agent change: `guard` runs under the subscription's row lock, before
 * anything is written (it consumes the link and refuses when the state moved on).
 */
interface RollbackOf {
  planChangeId: string;
  guard: (trx: Transaction<DB>, sub: NonNullable<repo.SubscriptionRow>) => Promise<void>;
}

export interface PreviewResult {
  subscriptionId: string;
  subscriptionStatus: string;
  currentPlan: repo.PlanVersionRow;
  newPlan: repo.PlanVersionRow;
  effectiveDate: string;
  reasons: Reason[];
  /** The daily limit that was checked (null: an override, none). */
  limit: DailyLimit | null;
  /** null when a reason forbids the change. */
  quote: Quote | null;
  /** /agent only: the signed quote to hand back on apply (null: refused, or another surface). */
  quoteToken: string | null;
}

export interface ApplyResult extends PreviewResult {
  planChangeId: string;
  quote: Quote;
  /** The switch applied the new bandwidth before the answer; false: operator confirmation or a retry job. */
  bandwidthUpdated: boolean;
}

export interface PlanChangeDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  jobs: JobQueue;
  webhooks: Webhooks;
  adapters: Adapters;
  config: Config;
  mailer: Mailer;
}

/** What a quote token binds, from a quote and its change. */
function claimsOf(
  providerId: string,
  sub: NonNullable<repo.SubscriptionRow>,
  currentPlan: repo.PlanVersionRow,
  newPlan: repo.PlanVersionRow,
  q: Quote,
  day: string,
): QuoteClaims {
  return {
    providerId,
    customerId: sub.subscriber_id,
    subscriptionId: sub.id,
    fromPlanVersionId: currentPlan.id,
    toPlanVersionId: newPlan.id,
    fromPriceCents: currentPlan.monthly_price_cents,
    toPriceCents: newPlan.monthly_price_cents,
    currency: currentPlan.currency,
    billingState: q.billingState,
    adjustmentType: q.adjustment?.type ?? null,
    adjustmentCents: q.adjustment ? q.adjustment.amountCents : null,
    day,
  };
}

export function createPlanChangeService(deps: PlanChangeDeps, opts: { switchTimeoutMs?: number } = {}) {
  const { db, clock, log } = deps;
  const switchTimeoutMs = opts.switchTimeoutMs ?? 3000;
  const quoteTokens = createQuoteTokens({ clock, secret: deps.config.jwtSecret });

  const subscriptionNotFound = () => new AppError(404, 'not_found', 'Subscription not found');
  const planNotFound = () => new AppError(404, 'not_found', 'Plan version not found');

  async function loadPlans(ex: Executor, sub: NonNullable<repo.SubscriptionRow>, planVersionId: string) {
    const newPlan = await repo.findPlanVersion(ex, planVersionId);
    if (!newPlan || newPlan.provider_id !== sub.provider_id) throw planNotFound();
    const currentPlan = await repo.findPlanVersion(ex, sub.plan_version_id);
    if (!currentPlan) throw new Error(`subscription ${sub.id} references a missing plan version`);
    return { currentPlan, newPlan };
  }

  async function changedToday(ex: Executor, sub: NonNullable<repo.SubscriptionRow>, limit: DailyLimit | null, pos: CalendarPosition) {
    if (limit === null) return false;
    const of = limit === 'subscription' ? { subscriptionId: sub.id } : { subscriberId: sub.subscriber_id };
    return Boolean(await repo.findChangeOfDay(ex, of, pos.today));
  }

  async function quote(
    ex: Executor,
    sub: NonNullable<repo.SubscriptionRow>,
    currentPlan: repo.PlanVersionRow,
    newPlan: repo.PlanVersionRow,
    pos: CalendarPosition,
    lock = false,
  ): Promise<Quote> {
    const state = sub.service_billed ? billingStateOf(sub, await repo.monthBillingRecords(ex, sub.id, pos.month)) : 'provider_billed';
    return quoteOf(sub, currentPlan, newPlan, pos, state, state === 'invoiced' ? await repo.pendingCarried(ex, sub.id, { lock }) : []);
  }

  /**
   * Read-only: loads, checks eligibility and quotes; writes nothing. Everything it reads comes from
   * one statement (repo.previewSnapshot), decided by the same rules as apply.
   */
  const snapshotTarget = (t: PlanChangeTarget, pos: CalendarPosition): repo.SnapshotTarget => ({
    providerId: t.providerId,
    subscriptionId: t.subscriptionId,
    subscriberId: t.customerId,
    planVersionId: t.planVersionId,
    today: pos.today,
    month: pos.month,
    perSubscription: LIMIT_OF[t.source] === 'subscription',
  });

  async function preview(t: PlanChangeTarget): Promise<PreviewResult> {
    const pos = calendarPosition(clock.now());
    return decidePreview(t, pos, await repo.previewSnapshot(db, snapshotTarget(t, pos)));
  }

  /**
   * /agent: the preview of `t` read together with the ownership check of `t.customerId` and the
   * caller's verified session (one statement). Undefined when the customer is not the provider's;
   * otherwise the session row, for the route to judge, and the preview, decided when asked (after the
   * session passed, so a refused caller learns nothing of the subscription).
   */
  async function readOwnedPreview(t: PlanChangeTarget & { customerId: string }, tokenHash: Buffer | null) {
    const now = clock.now();
    const pos = calendarPosition(now);
    const found = await repo.ownedPreviewSnapshot(db, tokenHash, now, { ...snapshotTarget(t, pos), subscriberId: t.customerId });
    if (!found) return undefined;
    return { session: found.session, preview: () => decidePreview(t, pos, found.snapshot) };
  }

  function decidePreview(
    t: PlanChangeTarget,
    pos: CalendarPosition,
    snap: Awaited<ReturnType<typeof repo.previewSnapshot>>,
  ): PreviewResult {
    if (!snap) throw subscriptionNotFound();
    const { sub, newPlan, currentPlan } = snap;
    if (!newPlan || newPlan.provider_id !== sub.provider_id) throw planNotFound();
    if (!currentPlan) throw new Error(`subscription ${sub.id} references a missing plan version`);
    const reasons = reasonsFor(sub, currentPlan, newPlan, snap.changedToday);
    const q = reasons.length === 0 ? quoteOf(sub, currentPlan, newPlan, pos, billingStateOf(sub, snap.records), snap.carried) : null;
    // No token for an escalation state: there is no price to bind.
    const quoteToken =
      q && t.source === 'agent' && !isEscalation(q)
        ? quoteTokens.sign(claimsOf(t.providerId, sub, currentPlan, newPlan, q, pos.today))
        : null;
    return {
      subscriptionId: sub.id,
      subscriptionStatus: sub.status,
      currentPlan,
      newPlan,
      effectiveDate: pos.today,
      reasons,
      limit: LIMIT_OF[t.source],
      quote: q,
      quoteToken,
    };
  }

  /** The first refusal of a preview as the error apply would answer. */
  async function refusalOf(p: PreviewResult): Promise<AppError | null> {
    const [reason] = p.reasons;
    return reason ? withNextChange(reasonError(reason, p.subscriptionStatus, p.limit ?? undefined), p.subscriptionId) : null;
  }

  /**
   * plan_change_limit carries when the next change is possible: the next UTC day, as an instant and
   * in the customer's local time (the zone of the subscription's service building).
   */
  async function withNextChange(err: AppError, subscriptionId: string): Promise<AppError> {
    if (err.code !== 'plan_change_limit') return err;
    const now = clock.now();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    const zone = timeZoneOr((await repo.subscriptionTimeZone(db, subscriptionId))?.time_zone);
    const local = `${localDate(zone, next)} ${localTime(zone, next)} (${zone})`;
    return new AppError(err.status, err.code, `${err.message} (${next.toISOString()}, ${local} for the customer)`, {
      ...err.extra,
      fields: { next_change_at: next.toISOString(), next_change_local: local },
    });
  }

  /**
   * Applies the change in ONE transaction: the plan_changes row (the daily limit's unique index
   * settles a race between two requests), the subscription's plan, the adjustment (upgrade line,
   * credit note or carried correction), the audit entry, the webhook and the bandwidth retry job.
   * After the commit the switch is asked once, briefly, for the new bandwidth. An override (source
   * 'admin') skips only the daily limit; every other reason still refuses it. With a quote token
   * (/agent) it applies exactly the quoted change: 401 quote_invalid / quote_expired before anything
   * is read, 409 quote_changed (rolled back) when the price, the billing state or the day moved.
   */
  async function apply(t: ApplyTarget): Promise<ApplyResult> {
    const now = clock.now();
    const pos = calendarPosition(now);
    const limit = t.source === 'admin' || t.source === 'rollback' ? null : LIMIT_OF[t.source];
    const overrideReason = t.source === 'admin' ? t.overrideReason : null;
    const rollsBack = t.source === 'rollback' ? t.rollback.planChangeId : null;
    const quoted =
      t.quoteToken === undefined || t.providerId === null
        ? null
        : await quoteTokens.verify(t.quoteToken, {
            providerId: t.providerId,
            customerId: t.customerId ?? '',
            subscriptionId: t.subscriptionId,
            toPlanVersionId: t.planVersionId,
          });
    let done: Omit<ApplyResult, 'bandwidthUpdated'> & { locationId: string | null; speed: { down: number; up: number } };
    try {
      done = await db.transaction().execute(async (trx) => {
        const sub = await repo.lockSubscription(trx, t.providerId, t.subscriptionId, t.customerId);
        if (!sub) throw subscriptionNotFound();
        if (t.source === 'rollback') await t.rollback.guard(trx, sub);
        const { currentPlan, newPlan } = await loadPlans(trx, sub, t.planVersionId);
        let reasons = reasonsFor(sub, currentPlan, newPlan, await changedToday(trx, sub, limit, pos));
        // A rollback restores the plan the customer had, even if that version is no longer sold.
        if (rollsBack && newPlan.currency === currentPlan.currency) reasons = reasons.filter((r) => r !== 'plan_not_available');
        if (reasons[0]) throw reasonError(reasons[0], sub.status, limit ?? undefined);
        const q = await quote(trx, sub, currentPlan, newPlan, pos, true);
        const moved = quoted && quoteDifference(quoted, claimsOf(sub.provider_id, sub, currentPlan, newPlan, q, pos.today));
        if (moved) throw quoteChanged(moved);
        if (t.source === 'agent' && isEscalation(q) && !t.acknowledgeEscalation) throw escalationRefusal();
        const adj = q.adjustment;
        const planChangeId = newId();

        await repo.insertPlanChange(trx, {
          id: planChangeId,
          provider_id: sub.provider_id,
          subscriber_id: sub.subscriber_id,
          subscription_id: sub.id,
          from_plan_version_id: currentPlan.id,
          to_plan_version_id: newPlan.id,
          change_date: pos.today,
          source: t.source,
          override_reason: overrideReason,
          rolls_back_plan_change_id: rollsBack,
          adjustment_type: adj?.type ?? null,
          adjustment_cents: adj ? adj.amountCents : null,
          bandwidth_status: sub.location_id ? 'pending' : 'no_port',
          actor: t.actor.actor,
          created_at: now,
        });
        await setSubscriptionPlan(trx, sub.id, newPlan.id, now);

        await writeAdjustment(trx, { sub, currentPlan, newPlan, pos, quote: q, planChangeId, now });

        const adjustmentSummary = adj
          ? {
              type: adj.type,
              amount: formatCents(Math.abs(adj.amountCents)),
              currency: q.currency,
              days: adj.days,
              days_in_period: adj.daysInPeriod,
            }
          : null;
        await recordAudit(trx, {
          ...t.actor,
          providerId: sub.provider_id,
          action: rollsBack
            ? 'subscription.plan_change_rollback'
            : overrideReason === null
              ? 'subscription.plan_change'
              : 'subscription.plan_change_override',
          entityType: 'subscription',
          entityId: sub.id,
          before: {
            plan_version_id: currentPlan.id,
            plan_name: currentPlan.name,
            monthly_price: formatCents(currentPlan.monthly_price_cents),
            currency: currentPlan.currency,
          },
          after: {
            plan_version_id: newPlan.id,
            plan_name: newPlan.name,
            monthly_price: formatCents(newPlan.monthly_price_cents),
            currency: newPlan.currency,
            plan_change_id: planChangeId,
            source: t.source,
            effective_date: pos.today,
            billing_state: q.billingState,
            one_time_adjustment: adjustmentSummary,
            ...(overrideReason === null ? {} : { override_reason: overrideReason }),
            ...(rollsBack ? { rolls_back_plan_change_id: rollsBack } : {}),
          },
          requestId: t.requestId,
          at: now,
        });
        await deps.webhooks.emit(trx, {
          providerId: sub.provider_id,
          type: 'subscription.plan_changed',
          subscriptionId: sub.id,
          subscriberId: sub.subscriber_id,
          data: {
            plan_change_id: planChangeId,
            effective_date: pos.today,
            source: t.source,
            previous_plan_version_id: currentPlan.id,
            plan_version_id: newPlan.id,
            one_time_adjustment: adjustmentSummary,
          },
        });
        if (t.source === 'agent') {
          await confirmPlanChange(trx, deps, {
            providerId: sub.provider_id,
            subscriberId: sub.subscriber_id,
            planChangeId,
            now,
            effectiveDate: pos.today,
            currency: q.currency,
            from: currentPlan,
            to: newPlan,
            adjustment: adj && { type: adj.type, amountCents: adj.amountCents },
          });
        }
        if (sub.location_id) {
          // The safety net: runs only if the answer below did not settle the switch.
          await deps.jobs.enqueue(trx, {
            kind: BANDWIDTH_JOB,
            payload: { plan_change_id: planChangeId },
            runAt: new Date(now.getTime() + BANDWIDTH_RETRY_DELAY_MS),
            dedupeKey: `plan-change-bandwidth:${planChangeId}`,
            providerId: sub.provider_id,
            subscriptionId: sub.id,
            maxAttempts: 12,
          });
        }
        return {
          planChangeId,
          subscriptionId: sub.id,
          subscriptionStatus: sub.status,
          currentPlan,
          newPlan,
          effectiveDate: pos.today,
          reasons: [],
          limit,
          quote: q,
          quoteToken: null,
          locationId: sub.location_id,
          speed: { down: newPlan.download_mbps, up: newPlan.upload_mbps },
        };
      });
    } catch (err) {
      // /agent: the limit's 409 says when the next change is possible.
      const told = (e: AppError) => (t.source === 'agent' ? withNextChange(e, t.subscriptionId) : e);
      if (limit !== null && DAILY_LIMIT_INDEXES.some((name) => isUniqueViolation(err, name)))
        throw await told(reasonError('already_changed_today', undefined, limit));
      if (err instanceof AppError) throw await told(err);
      throw err;
    }
    const { locationId, speed, ...result } = done;
    const bandwidthUpdated = locationId ? await bandwidthNow(result.planChangeId, locationId, speed) : false;
    return { ...result, bandwidthUpdated };
  }

  /** One short synchronous attempt after the commit; the retry job covers a failure or timeout. */
  async function bandwidthNow(planChangeId: string, locationId: string, speed: { down: number; up: number }): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const call = deps.adapters.switchController.updateBandwidth({
        operationKey: bandwidthOperationKey(planChangeId),
        locationId,
        downloadMbps: speed.down,
        uploadMbps: speed.up,
      });
      call.catch(() => undefined); // a late failure after the timeout is the retry job's business
      const r = await Promise.race([
        call,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`switch did not answer within ${switchTimeoutMs} ms`)), switchTimeoutMs);
        }),
      ]);
      await repo.setBandwidthStatus(db, planChangeId, r.applied ? 'applied' : 'awaiting_operator', clock.now());
      return r.applied;
    } catch (err) {
      log.warn({ err, plan_change_id: planChangeId }, 'bandwidth update not confirmed; the retry job will try again');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The plans the customer's subscription can move to (plan-options.ts). */
  const options = (providerId: string, customerId: string, subscriptionId: string) =>
    planOptions(db, providerId, customerId, subscriptionId);

  return { preview, readOwnedPreview, apply, refusalOf, options };
}

/** @public The type of what the container builds. */
export type PlanChangeService = ReturnType<typeof createPlanChangeService>;
