// Join paths that several modules' repositories start a read from, written once. Each uses the table
// aliases of columns.ts, so their column lists fit. Builders only: the repository that calls one runs it.
import type { Executor } from './executor.js';

/** Subscriptions (`s`) with the plan version each is on (`pv`). */
export const subscriptionsWithPlan = (ex: Executor) =>
  ex.selectFrom('subscriptions as s').innerJoin('plan_versions as pv', 'pv.id', 's.plan_version_id');

/** Locations (`l`, a switch port) with the building each is in (`b`). */
export const locationsWithBuilding = (ex: Executor) => ex.selectFrom('locations as l').innerJoin('buildings as b', 'b.id', 'l.building_id');
