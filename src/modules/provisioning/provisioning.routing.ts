import { AppError } from '../../lib/errors.js';

type LineType = 'first_line' | 'second_line' | 'third_line' | null;
type InstallKind = 'technician_visit' | 'cpe_shipment';

/** What the request (or the session) resolved to; the building's line type decides the route. */
export interface ResolvedTarget {
  building: { id: string; line_type: LineType; in_coverage: boolean };
  unitId: string | null;
  location: { id: string; switch_port: string | null } | null;
}

export type RouteDecision = { route: 'provision' } | { route: 'install'; installKind: InstallKind; bookingLink: boolean };

/** The 422 texts of the routing table (integrators match on the status code, not the text). */
const NO_PORT_NO_UNIT =
  'Neither a provisionable port (location_hash) nor a unit_id is known: send unit_id (home_drop) for the install path';

/**
 * The 422 of an explicit-fields body without a port under delivery_mode direct (stated or the
 * default). A unit_id sent without delivery_mode names delivery_mode: guessing home_drop from the
 * fields would let a mistyped body take the install path silently.
 */
export function missingPortMessage(r: { delivery_mode?: string; unit_id?: string }): string {
  if (r.delivery_mode === undefined && r.unit_id) {
    return 'delivery_mode: required with unit_id; the default, direct, needs location_hash. Send delivery_mode home_drop with unit_id for the install path';
  }
  if (r.delivery_mode === undefined)
    return 'location_hash: required for delivery_mode direct (the default); or send delivery_mode home_drop with unit_id';
  return 'location_hash: required for delivery_mode direct';
}

/**
 * The routing table, failing closed: only an explicit first-line building with a resolvable port
 * (a location that has a switch port) is provisioned unattended. Everything else that names a
 * unit takes the install path; with neither a port nor a unit the request is refused.
 */
export function decideRoute(t: ResolvedTarget): RouteDecision {
  if (t.building.line_type === 'first_line' && t.location?.switch_port) return { route: 'provision' };
  if (t.unitId) {
    return {
      route: 'install',
      installKind: t.building.line_type === 'second_line' ? 'cpe_shipment' : 'technician_visit',
      bookingLink: t.building.line_type === 'third_line',
    };
  }
  throw new AppError(422, 'unprocessable', NO_PORT_NO_UNIT);
}

/**
 * Explicit-fields (legacy complete) and provider-initiated: the caller states a delivery mode and
 * the building's line type must agree with it.
 *  - direct: the caller holds a port (location_hash); only a first-line building whose location
 *    has a switch port qualifies, anything else is a mismatch (422).
 *  - home_drop: the caller holds a unit; every line type takes the install path (a first-line
 *    building ordered by suite included, per the 2026-09-17 change).
 */
export function decideExplicitRoute(mode: 'direct' | 'home_drop', t: ResolvedTarget): RouteDecision {
  if (mode === 'direct') {
    if (!t.location) throw new AppError(422, 'unprocessable', 'location_hash: required for delivery_mode direct');
    if (t.building.line_type !== 'first_line') {
      throw new AppError(
        422,
        'unprocessable',
        `delivery_mode direct needs a first-line building, this building is ${t.building.line_type ?? 'unclassified'}: order it with delivery_mode home_drop and unit_id`,
      );
    }
    if (!t.location.switch_port) {
      throw new AppError(
        422,
        'unprocessable',
        'The location has no provisionable switch port: order it with delivery_mode home_drop and unit_id',
      );
    }
    return { route: 'provision' };
  }
  if (!t.unitId) throw new AppError(422, 'unprocessable', 'unit_id: required for delivery_mode home_drop');
  return decideRoute({ ...t, location: null });
}
