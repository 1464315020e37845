import { sql, type Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { subscriptionsWithPlan } from '../../db/joins.js';
import { ownedWithSessionSql } from '../subscribers/index.js';
import { type SessionColumns, sessionOf } from '../verified-sessions/index.js';

const SUBSCRIPTION_COLUMNS = [
  'id',
  'provider_id',
  'subscriber_id',
  'plan_version_id',
  'location_id',
  'status',
  'service_billed',
  'billing_day',
  'billing_day_effective_from',
  'previous_billing_day',
] as const;

export type SubscriptionRow = Awaited<ReturnType<typeof lockSubscription>> & {};

/**
 * A subscription of the provider (null: of any provider, for a platform administrator only) and,
 * when given, of that subscriber, holding the row lock until the transaction ends; or undefined.
 */
export const lockSubscription = (trx: Transaction<DB>, providerId: string | null, subscriptionId: string, subscriberId?: string) => {
  let q = trx.selectFrom('subscriptions').select(SUBSCRIPTION_COLUMNS).where('id', '=', subscriptionId);
  if (providerId !== null) q = q.where('provider_id', '=', providerId);
  if (subscriberId) q = q.where('subscriber_id', '=', subscriberId);
  return q.forUpdate().executeTakeFirst();
};

export const findPlanVersion = (db: Executor, id: string) =>
  db.selectFrom('plan_versions').select(PLAN_VERSION_COLUMNS).where('id', '=', id).executeTakeFirst();

export type PlanVersionRow = NonNullable<Awaited<ReturnType<typeof findPlanVersion>>>;

/** What a daily limit counts: every change (any source) of one subscription, or of one subscriber. */
export type ChangesOf = { subscriptionId: string } | { subscriberId: string };

/** A rollback (migration 20261126070000) does not count: the change it undoes still does. */
export const findChangeOfDay = (db: Executor, of: ChangesOf, changeDate: string) => {
  const q = db
    .selectFrom('plan_changes')
    .select(['id', 'subscription_id'])
    .where('change_date', '=', changeDate)
    .where('source', '<>', 'rollback');
  return (
    'subscriptionId' in of ? q.where('subscription_id', '=', of.subscriptionId) : q.where('subscriber_id', '=', of.subscriberId)
  ).executeTakeFirst();
};

/** Whether the month's monthly invoice and billing document of the subscription exist. */
export async function monthBillingRecords(db: Executor, subscriptionId: string, month: string) {
  const invoice = await db
    .selectFrom('invoices')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'monthly')
    .where('period_start', '=', month)
    .executeTakeFirst();
  const document = await db
    .selectFrom('billing_documents')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', month)
    .executeTakeFirst();
  return { invoice: Boolean(invoice), document: Boolean(document) };
}

/**
 * Carried corrections of the subscription not yet settled. Inside the apply transaction they are
 * locked, so a billing run cannot settle the same rows on an invoice at the same time.
 */
export const pendingCarried = (db: Executor, subscriptionId: string, opts: { lock?: boolean } = {}) => {
  const q = db
    .selectFrom('pending_adjustments')
    .select(['id', 'amount_cents'])
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'carried_correction')
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .orderBy('id');
  return (opts.lock ? q.forUpdate() : q).execute();
};

const PLAN_VERSION_COLUMNS = [
  'id',
  'provider_id',
  'name',
  'monthly_price_cents',
  'currency',
  'active',
  'download_mbps',
  'upload_mbps',
] as const;

/**
 * What a preview reads, in one call of plan_change_preview_snapshot (migrations/functions/, a prepared
 * generic plan) instead of seven statements: the subscription (of the provider and, when given, of
 * that subscriber), the target and the current plan version, whether the subscription
 * (`perSubscription`) or else the subscriber already changed plan on `today`, whether the month's monthly invoice and billing document exist, and the pending
 * carried corrections. The same rows findSubscription, findPlanVersion, findChangeOfDay,
 * monthBillingRecords and pendingCarried read one by one (apply reads them that way, under its locks).
 */
export async function previewSnapshot(db: Executor, t: SnapshotTarget) {
  const r = await previewSnapshotSql(t).execute(db);
  return snapshotOf(r.rows[0]);
}

/** The statement of previewSnapshot (also run under EXPLAIN by bench/search/explain.ts). */
export const previewSnapshotSql = (t: SnapshotTarget) =>
  sql<SnapshotRow>`SELECT * FROM plan_change_preview_snapshot(${t.providerId}::uuid, ${t.subscriptionId}::uuid,
    ${t.subscriberId ?? null}::uuid, ${t.planVersionId}::uuid, ${t.today}::date, ${t.month}::date, ${t.perSubscription}::boolean)`;

/**
 * /agent's preview read in one statement: the ownership check of every /agent customer route
 * (ownedWithSessionSql: agent_owned_customer with the session row), the caller's verified session stored under `tokenHash`, and the snapshot,
 * taken only when that session is live (at `now`) and this customer's: a caller the route will refuse
 * costs no snapshot. Undefined when the customer is not the provider's; `snapshot` undefined when the
 * subscription is not theirs (or the session will be refused). One round trip instead of two is about
 * a quarter of the preview's CPU (bench/README.md).
 */
export async function ownedPreviewSnapshot(
  db: Executor,
  tokenHash: Buffer | null,
  now: Date,
  t: SnapshotTarget & { subscriberId: string },
) {
  const r = await sql<SessionColumns & { [K in keyof SnapshotRow]: SnapshotRow[K] | null }>`
    SELECT o.session_provider_id, o.session_subscriber_id, o.session_expires_at, p.*
    FROM (${ownedWithSessionSql(t.providerId, t.subscriberId, tokenHash)}) o
    LEFT JOIN LATERAL (${previewSnapshotSql(t)}
      WHERE o.session_provider_id = o.provider_id AND o.session_subscriber_id = o.id AND o.session_expires_at > ${now}) p ON true`.execute(
    db,
  );
  const row = r.rows[0];
  if (!row) return undefined;
  const { session_provider_id, session_subscriber_id, session_expires_at, ...snapshot } = row;
  return {
    session: sessionOf({ session_provider_id, session_subscriber_id, session_expires_at }),
    snapshot: snapshot.id === null ? undefined : snapshotOf(snapshot as SnapshotRow),
  };
}

export interface SnapshotTarget {
  providerId: string;
  subscriptionId: string;
  subscriberId?: string;
  planVersionId: string;
  today: string;
  month: string;
  perSubscription: boolean;
}

/** A row of plan_change_preview_snapshot, or undefined. */
function snapshotOf(row: SnapshotRow | undefined) {
  if (!row) return undefined;
  const json = <T>(v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  const { new_plan, current_plan, changed_today, invoice, document, carried, ...sub } = row;
  return {
    sub: sub,
    newPlan: json<PlanVersionRow | null>(new_plan),
    currentPlan: json<PlanVersionRow | null>(current_plan),
    changedToday: Boolean(changed_today),
    records: { invoice: Boolean(invoice), document: Boolean(document) },
    carried: json<{ id: string; amount_cents: number }[]>(carried),
  };
}

export type SnapshotRow = NonNullable<SubscriptionRow> & {
  new_plan: unknown;
  current_plan: unknown;
  changed_today: boolean;
  invoice: boolean;
  document: boolean;
  carried: unknown;
};

export interface NewPlanChange {
  id: string;
  provider_id: string;
  subscriber_id: string;
  subscription_id: string;
  from_plan_version_id: string;
  to_plan_version_id: string;
  change_date: string;
  source: 'agent' | 'partner' | 'admin' | 'rollback';
  /** Only on a platform administrator's override (source 'admin'); the database demands it there. */
  override_reason: string | null;
  /** Only on a rollback (source 'rollback'): the change it undoes. */
  rolls_back_plan_change_id: string | null;
  adjustment_type: 'next_invoice_line' | 'credit' | 'none' | null;
  adjustment_cents: number | null;
  bandwidth_status: 'pending' | 'no_port';
  actor: string;
  created_at: Date;
}

/** Raises a unique violation of a daily limit (baseline indexes) when a concurrent change of the day won. */
export const insertPlanChange = (trx: Transaction<DB>, row: NewPlanChange) => trx.insertInto('plan_changes').values(row).execute();

/** What the bandwidth job needs: the change, and the subscription's port and current plan speed. */
export const findBandwidthWork = (db: Executor, planChangeId: string) =>
  subscriptionsWithPlan(db)
    .innerJoin('plan_changes as pc', 'pc.subscription_id', 's.id')
    .select([
      'pc.id',
      'pc.to_plan_version_id',
      'pc.bandwidth_status',
      's.id as subscription_id',
      's.plan_version_id as current_plan_version_id',
      's.location_id',
      's.status as subscription_status',
      'pv.download_mbps',
      'pv.upload_mbps',
    ])
    .where('pc.id', '=', planChangeId)
    .executeTakeFirst();

export type BandwidthStatus = 'pending' | 'applied' | 'awaiting_operator' | 'no_port' | 'superseded' | 'failed';

/** Records the switch's answer; a final answer is never overwritten by a late duplicate. */
export const setBandwidthStatus = (db: Executor, planChangeId: string, status: BandwidthStatus, now: Date) =>
  db
    .updateTable('plan_changes')
    .set({ bandwidth_status: status, bandwidth_updated_at: now })
    .where('id', '=', planChangeId)
    .where('bandwidth_status', 'in', ['pending', 'failed'])
    .execute();

/** The time zone of the subscription's service building (its calendar), null when none is known. */
export const subscriptionTimeZone = (db: Executor, subscriptionId: string) =>
  db
    .selectFrom('subscriptions as s')
    .leftJoin('locations as l', 'l.id', 's.location_id')
    .leftJoin('building_calendars as bc', (j) => j.on((eb) => eb('bc.building_id', '=', eb.fn.coalesce('s.building_id', 'l.building_id'))))
    .select('bc.time_zone')
    .where('s.id', '=', subscriptionId)
    .executeTakeFirst();
