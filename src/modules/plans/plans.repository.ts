import type { Insertable, Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';

export const findPlan = (ex: Executor, id: string) =>
  ex.selectFrom('plans').select(['id', 'provider_id', 'name', 'description']).where('id', '=', id).executeTakeFirst();

export const listPlans = (ex: Executor, providerId: string) =>
  ex
    .selectFrom('plans')
    .select(['id', 'provider_id', 'name', 'description'])
    .where('provider_id', '=', providerId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

const VERSION_COLUMNS = [
  'id',
  'plan_id',
  'version',
  'name',
  'download_mbps',
  'upload_mbps',
  'monthly_price_cents',
  'currency',
  'store_product_id',
  'active',
  'created_at',
] as const;

export const listVersions = (ex: Executor, planIds: string[]) =>
  planIds.length === 0
    ? Promise.resolve([])
    : ex
        .selectFrom('plan_versions')
        .select(VERSION_COLUMNS)
        .where('plan_id', 'in', planIds)
        .orderBy('plan_id')
        .orderBy('version')
        .execute();

export type VersionRow = Awaited<ReturnType<typeof listVersions>>[number];

export const findVersion = (ex: Executor, id: string) =>
  ex
    .selectFrom('plan_versions')
    .select([...VERSION_COLUMNS, 'provider_id'])
    .where('id', '=', id)
    .executeTakeFirst();

/** The plan's row locked, so two new versions of one plan take numbers one after the other. */
export const lockPlan = (trx: Transaction<DB>, id: string) =>
  trx.selectFrom('plans').select(['id', 'provider_id']).where('id', '=', id).forUpdate().executeTakeFirst();

export const latestVersion = (ex: Executor, planId: string) =>
  ex
    .selectFrom('plan_versions')
    .select(VERSION_COLUMNS)
    .where('plan_id', '=', planId)
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();

export async function insertPlan(ex: Executor, row: Insertable<DB['plans']>) {
  await ex.insertInto('plans').values(row).execute();
}

export async function insertVersion(ex: Executor, row: Insertable<DB['plan_versions']>) {
  await ex.insertInto('plan_versions').values(row).execute();
}

export async function deactivateOthers(ex: Executor, planId: string, keepId: string) {
  await ex.updateTable('plan_versions').set({ active: false }).where('plan_id', '=', planId).where('id', '!=', keepId).execute();
}

export async function setVersionActive(ex: Executor, id: string, active: boolean) {
  await ex.updateTable('plan_versions').set({ active }).where('id', '=', id).execute();
}
