// The operator's catalogue (npm run ops -- plan ..., /api/v1/admin/.../plans). A plan is a product
// line; a plan version is what is sold and billed (plan_version_id). A version never changes once
// made: a new price or speed is a new version, and the subscriptions on the old one keep it. A
// version's validity is whether it is on sale (`active`): only active versions are offered to new
// checkouts and plan changes (checkout, plan-change and provisioning read the flag).
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { isUuid, newId } from '../../lib/ids.js';
import { formatCents } from '../../lib/money.js';
import { parseOperatorInput } from '../../lib/operator-input.js';
import * as repo from './plans.repository.js';
import { PlanCreateInput, PlanVersionInput, type PlanView } from './plans.schemas.js';

export interface PlansDeps {
  db: Db;
  clock: Clock;
}

const cents = (price: string) => {
  const [whole, frac = ''] = price.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
};

const versionView = (v: repo.VersionRow) => ({
  id: v.id,
  version: v.version,
  name: v.name,
  download_mbps: v.download_mbps,
  upload_mbps: v.upload_mbps,
  monthly_price: formatCents(v.monthly_price_cents),
  currency: v.currency.trim(),
  store_product_id: v.store_product_id,
  active: v.active,
  created_at: v.created_at.toISOString(),
});

export function createPlansService({ db, clock }: PlansDeps) {
  async function show(planId: string): Promise<PlanView> {
    const p = isUuid(planId) ? await repo.findPlan(db, planId) : undefined;
    if (!p) throw notFound(`No plan ${planId}`);
    return { ...p, versions: (await repo.listVersions(db, [p.id])).map(versionView) };
  }

  async function list(providerId: string): Promise<PlanView[]> {
    const plans = await repo.listPlans(db, providerId);
    const versions = await repo.listVersions(
      db,
      plans.map((p) => p.id),
    );
    return plans.map((p) => ({ ...p, versions: versions.filter((v) => v.plan_id === p.id).map(versionView) }));
  }

  /** A plan of the provider with its first version, on sale. `currency` defaults to the provider's. */
  async function create(provider: { id: string; currency: string }, input: PlanCreateInput): Promise<PlanView> {
    const p = parseOperatorInput(PlanCreateInput, input);
    const planId = newId();
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      await repo.insertPlan(trx, {
        id: planId,
        provider_id: provider.id,
        name: p.name,
        description: p.description ?? null,
        created_at: now,
      });
      await repo.insertVersion(trx, {
        id: newId(),
        plan_id: planId,
        provider_id: provider.id,
        version: 1,
        name: p.name,
        download_mbps: p.download_mbps,
        upload_mbps: p.upload_mbps,
        monthly_price_cents: cents(p.monthly_price),
        currency: p.currency ?? provider.currency.trim(),
        store_product_id: p.store_product_id ?? null,
        active: true,
        created_at: now,
      });
    });
    return show(planId);
  }

  /**
   * The plan's next version from the latest one with the given fields changed, on sale; the earlier
   * versions stop being offered unless `keep_previous` (their subscriptions keep them either way).
   */
  async function addVersion(planId: string, input: PlanVersionInput): Promise<PlanView> {
    const v = parseOperatorInput(PlanVersionInput, input);
    if (!isUuid(planId)) throw notFound(`No plan ${planId}`);
    await db.transaction().execute(async (trx) => {
      const plan = await repo.lockPlan(trx, planId);
      if (!plan) throw notFound(`No plan ${planId}`);
      const last = (await repo.latestVersion(trx, planId))!;
      const id = newId();
      await repo.insertVersion(trx, {
        id,
        plan_id: planId,
        provider_id: plan.provider_id,
        version: last.version + 1,
        name: v.name ?? last.name,
        download_mbps: v.download_mbps ?? last.download_mbps,
        upload_mbps: v.upload_mbps ?? last.upload_mbps,
        monthly_price_cents: v.monthly_price !== undefined ? cents(v.monthly_price) : last.monthly_price_cents,
        currency: v.currency ?? last.currency.trim(),
        store_product_id: v.store_product_id !== undefined ? (v.store_product_id ?? null) : last.store_product_id,
        active: true,
        created_at: clock.now(),
      });
      if (!v.keep_previous) await repo.deactivateOthers(trx, planId, id);
    });
    return show(planId);
  }

  /** Puts a version on sale or takes it off (its subscriptions keep it); answers the plan. */
  async function setVersionActive(versionId: string, active: boolean): Promise<PlanView> {
    const v = isUuid(versionId) ? await repo.findVersion(db, versionId) : undefined;
    if (!v) throw notFound(`No plan version ${versionId}`);
    await repo.setVersionActive(db, v.id, active);
    return show(v.plan_id);
  }

  return { show, list, create, addVersion, setVersionActive };
}

export type PlansService = ReturnType<typeof createPlansService>;
