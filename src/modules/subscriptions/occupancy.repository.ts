// Whether a subscription occupies its unit and port: the SQL function subscription_occupies
// (migrations/functions/subscription_occupies.sql) is the one definition; every occupancy check goes through it.
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';

/** `subscription_occupies(<alias>.status, <alias>.ended_at, today)` for a where clause. */
export function occupies(alias: string, today: string): RawBuilder<boolean> {
  return sql<boolean>`subscription_occupies(${sql.ref(`${alias}.status`)}, ${sql.ref(`${alias}.ended_at`)}, ${today}::date)`;
}

/**
 * A subscription occupying the unit or the port on `today` (UTC date), other than `exceptId`:
 * a pending, pending-install, active or suspended one, or a cancelled one before its ended_at.
 */
export function findOccupant(ex: Executor, o: { unitId?: string | null; locationId?: string | null; today: string; exceptId?: string }) {
  const { unitId, locationId } = o;
  if (!unitId && !locationId) return Promise.resolve(undefined);
  let q = ex
    .selectFrom('subscriptions as s')
    .select(['s.id', 's.status', 's.ended_at'])
    .where(occupies('s', o.today))
    .where((eb) =>
      eb.or([...(unitId ? [eb('s.unit_id', '=', unitId)] : []), ...(locationId ? [eb('s.location_id', '=', locationId)] : [])]),
    );
  if (o.exceptId) q = q.where('s.id', '<>', o.exceptId);
  return q.executeTakeFirst();
}
