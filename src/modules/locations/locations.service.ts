import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { isoDate } from '../../lib/dates.js';
import { findOccupant } from '../subscriptions/index.js';
import type { UserPrincipal } from '../auth/index.js';
import { notFound, unprocessable } from '../../lib/errors.js';
import * as repo from './locations.repository.js';

export interface LocationLookupInput {
  location_hash?: string | null;
  location_identifier?: string | null;
}

/** location_hash wins when both are sent; neither is 422 with the documented text. */
function keyOf(input: LocationLookupInput): repo.LocationKey {
  if (input.location_hash) return { location_hash: input.location_hash };
  if (input.location_identifier) return { location_identifier: input.location_identifier };
  throw unprocessable('Provide location_hash or location_identifier');
}

export interface LocationsDeps {
  db: Db;
  clock: Clock;
}

type LocationRow = NonNullable<Awaited<ReturnType<typeof repo.findLocation>>>;

/** The building's postal address, as both answers spell it. */
const postalAddress = (l: LocationRow) => ({
  street: l.street,
  house_number: l.house_number,
  postal_code: l.postal_code,
  city: l.city,
  province: l.province,
  country: l.country,
});

export function createLocationsService(deps: LocationsDeps) {
  const { db, clock } = deps;

  /**
   * Public lookup (no auth): the address row plus three identifying fields (location_identifier,
   * building_id, unit_id). Never the switch, port, VLAN or the hash of another location.
   */
  async function lookup(input: LocationLookupInput) {
    const l = await repo.findLocation(db, keyOf(input));
    if (!l) throw notFound('Location not found');
    return {
      ...postalAddress(l),
      unit_label: l.unit_label,
      location_identifier: l.location_identifier,
      building_id: l.building_id,
      unit_id: l.unit_id,
    };
  }

  /** Dashboard: the full record; provider staff see only their own provider's locations (others are 404). */
  async function details(user: UserPrincipal, input: LocationLookupInput) {
    const l = await repo.findLocation(db, keyOf(input));
    if (!l || (user.role !== 'platform_admin' && l.provider_id !== user.providerId)) throw notFound('Location not found');
    const occupant = await findOccupant(db, { locationId: l.id, today: isoDate(clock.now()) });
    return {
      location_id: l.id,
      provider_id: l.provider_id,
      location_hash: l.location_hash,
      location_identifier: l.location_identifier,
      switch_id: l.switch_id,
      switch_port: l.switch_port,
      vlan_id: l.vlan_id,
      created_at: l.created_at.toISOString(),
      building: {
        building_id: l.building_id,
        name: l.building_name,
        ...postalAddress(l),
        region: l.region,
        line_type: l.line_type as 'first_line' | 'second_line' | 'third_line' | null,
        in_coverage: l.in_coverage,
      },
      unit: l.unit_id ? { unit_id: l.unit_id, label: l.unit_label!, floor: l.unit_floor } : null,
      occupied: Boolean(occupant),
      subscription_id: occupant?.id ?? null,
      subscription_status: occupant?.status ?? null,
    };
  }

  return { lookup, details };
}

/** @public The type of what the container builds. */
export type LocationsService = ReturnType<typeof createLocationsService>;
