import type { Executor } from '../../db/executor.js';
import { locationsWithBuilding } from '../../db/joins.js';
import { BUILDING_ADDRESS_COLUMNS } from '../../db/columns.js';

export type LocationKey = { location_hash: string } | { location_identifier: string };

/** A location with its building address and unit, by hash or by identifier. */
export const findLocation = (db: Executor, key: LocationKey) => {
  let q = locationsWithBuilding(db)
    .leftJoin('units as u', 'u.id', 'l.unit_id')
    .selectAll('l')
    .select([
      'b.name as building_name',
      ...BUILDING_ADDRESS_COLUMNS,
      'b.region',
      'b.line_type',
      'b.in_coverage',
      'u.label as unit_label',
      'u.floor as unit_floor',
    ]);
  q =
    'location_hash' in key
      ? q.where('l.location_hash', '=', key.location_hash)
      : q.where('l.location_identifier', '=', key.location_identifier);
  return q.executeTakeFirst();
};
