import type { Insertable, Transaction } from 'kysely';
import type { CheckoutSessions, DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { BUILDING_ADDRESS_COLUMNS, PLAN_PRICE_COLUMNS } from '../../db/columns.js';

export type SessionStatus = 'pending' | 'redirected' | 'completed' | 'expired' | 'cancelled';

const SESSION_COLUMNS = [
  'id',
  'provider_id',
  'plan_version_id',
  'building_id',
  'unit_id',
  'location_id',
  'mac_address',
  'status',
  'user_id',
  'partner_reference',
  'subscription_id',
  'created_at',
  'redirected_at',
  'completed_at',
  'updated_at',
] as const;

export interface SessionRow {
  id: string;
  provider_id: string;
  plan_version_id: string;
  building_id: string | null;
  unit_id: string | null;
  location_id: string | null;
  mac_address: string | null;
  status: SessionStatus;
  user_id: string | null;
  partner_reference: string | null;
  subscription_id: string | null;
  created_at: Date;
  redirected_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

export const findSessionById = (db: Executor, id: string) =>
  db.selectFrom('checkout_sessions').select(SESSION_COLUMNS).where('id', '=', id).executeTakeFirst() as Promise<SessionRow | undefined>;

/** The session row, locked until the transaction ends (completion and patch serialise on it). */
export const lockSessionById = (trx: Transaction<DB>, id: string) =>
  trx.selectFrom('checkout_sessions').select(SESSION_COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst() as Promise<
    SessionRow | undefined
  >;

export const insertSession = (db: Executor, row: Insertable<CheckoutSessions>) => db.insertInto('checkout_sessions').values(row).execute();

/** pending → expired; a no-op for any other status (a read or completion got there first). */
export const markSessionExpired = (db: Executor, id: string, now: Date) =>
  db
    .updateTable('checkout_sessions')
    .set({ status: 'expired', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();

/** pending → redirected when created after `createdAfter` (inside its TTL); returns whether it moved. */
export async function markSessionRedirected(db: Executor, id: string, now: Date, createdAfter: Date): Promise<boolean> {
  const r = await db
    .updateTable('checkout_sessions')
    .set({ status: 'redirected', redirected_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('created_at', '>', createdAfter)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** pending/redirected → completed with the subscription; returns whether it moved. */
export async function markSessionCompleted(db: Executor, id: string, subscriptionId: string, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('checkout_sessions')
    .set({ status: 'completed', subscription_id: subscriptionId, completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'redirected'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** redirected → cancelled (the state table's only way in); returns whether it moved. */
export async function markSessionCancelled(db: Executor, id: string, now: Date): Promise<boolean> {
  const r = await db
    .updateTable('checkout_sessions')
    .set({ status: 'cancelled', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'redirected')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export const updateSessionFields = (
  db: Executor,
  id: string,
  fields: { plan_version_id?: string; partner_reference?: string | null },
  now: Date,
) =>
  db
    .updateTable('checkout_sessions')
    .set({ ...fields, updated_at: now })
    .where('id', '=', id)
    .execute();

/** The session with everything its partner read embeds. */
export const findSessionView = (db: Executor, id: string) =>
  db
    .selectFrom('checkout_sessions as s')
    .innerJoin('plan_versions as pv', 'pv.id', 's.plan_version_id')
    .innerJoin('providers as p', 'p.id', 's.provider_id')
    .leftJoin('units as u', 'u.id', 's.unit_id')
    .leftJoin('buildings as b', 'b.id', 's.building_id')
    .leftJoin('subscriptions as sub', 'sub.id', 's.subscription_id')
    .selectAll('s')
    .select([
      ...PLAN_PRICE_COLUMNS,
      'pv.store_product_id',
      'pv.download_mbps',
      'pv.upload_mbps',
      'p.name as provider_name',
      'p.branding',
      'u.label as unit_label',
      'u.floor as unit_floor',
      ...BUILDING_ADDRESS_COLUMNS,
      'sub.status as subscription_status',
    ])
    .where('s.id', '=', id)
    .executeTakeFirst();

export type SessionViewRow = NonNullable<Awaited<ReturnType<typeof findSessionView>>>;

export const findPlanVersion = (db: Executor, id: string) =>
  db.selectFrom('plan_versions').select(['id', 'provider_id', 'active']).where('id', '=', id).executeTakeFirst();

export const findLocationByHash = (db: Executor, hash: string) =>
  db.selectFrom('locations').select(['id', 'provider_id', 'building_id', 'unit_id']).where('location_hash', '=', hash).executeTakeFirst();

export const findUnitWithBuilding = (db: Executor, unitId: string) =>
  db
    .selectFrom('units as u')
    .innerJoin('buildings as b', 'b.id', 'u.building_id')
    .select(['u.id', 'u.building_id', 'b.provider_id'])
    .where('u.id', '=', unitId)
    .executeTakeFirst();

export const findBuilding = (db: Executor, id: string) =>
  db.selectFrom('buildings').select(['id', 'provider_id', 'in_coverage']).where('id', '=', id).executeTakeFirst();

export const userExists = async (db: Executor, id: string) =>
  Boolean(await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst());
