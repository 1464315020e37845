import { sql } from 'kysely';
import type { Executor } from '../../jobs/types.js';

/** Statuses that occupy a unit: exactly the predicate of the unique index subscriptions_unit_occupied_key. */
export const OCCUPYING_STATUSES = ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'] as const;

export interface CoverageRow {
  id: string;
  building_id: string | null;
  street: string;
  house_number: string;
  house_number_norm: string;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string;
  display: string;
  orderable: boolean;
  building_in_coverage: boolean | null;
}

/** The smallest string greater than every string starting with `prefix` (bytewise, as COLLATE "C" compares). */
function prefixUpperBound(prefix: string): string {
  const cps = [...prefix];
  const last = cps.pop()!;
  return cps.join('') + String.fromCodePoint(last.codePointAt(0)! + 1);
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Suggestions whose search key starts with `key`: a range on the COLLATE "C" btree
 * (provider_id, search_key), one row per display string (an orderable row with a building preferred).
 */
export async function autocompletePrefix(db: Executor, providerId: string, key: string, limit: number) {
  const r = await sql<CoverageRow>`
    SELECT * FROM (
      SELECT DISTINCT ON (c.display) c.id, c.building_id, c.street, c.house_number, c.house_number_norm, c.postal_code,
        c.city, c.province, c.country, c.display, c.orderable, c.search_key, b.in_coverage AS building_in_coverage
      FROM coverage_addresses c LEFT JOIN buildings b ON b.id = c.building_id
      WHERE c.provider_id = ${providerId}
        AND c.search_key COLLATE "C" >= ${key} AND c.search_key COLLATE "C" < ${prefixUpperBound(key)}
      ORDER BY c.display, c.orderable DESC, (c.building_id IS NULL), c.id
    ) d
    ORDER BY d.search_key COLLATE "C", d.display
    LIMIT ${limit}`.execute(db);
  return r.rows;
}

/**
 * The fallback when no key starts with what was typed: substring or word similarity on the
 * trigram GIN index, best match first.
 */
export async function autocompleteFuzzy(db: Executor, providerId: string, key: string, limit: number) {
  const r = await sql<CoverageRow>`
    SELECT * FROM (
      SELECT DISTINCT ON (c.display) c.id, c.building_id, c.street, c.house_number, c.house_number_norm, c.postal_code,
        c.city, c.province, c.country, c.display, c.orderable, b.in_coverage AS building_in_coverage,
        word_similarity(${key}, c.search_key) AS score
      FROM coverage_addresses c LEFT JOIN buildings b ON b.id = c.building_id
      WHERE c.provider_id = ${providerId}
        AND (c.search_key LIKE ${`%${likeEscape(key)}%`} OR ${key} <% c.search_key)
      ORDER BY c.display, c.orderable DESC, (c.building_id IS NULL), c.id
    ) d
    ORDER BY d.score DESC, d.display
    LIMIT ${limit}`.execute(db);
  return r.rows;
}

/** Coverage rows of the provider with one of the street spellings and exactly this normalised house number. */
export async function findCoverageMatches(db: Executor, providerId: string, streets: string[], houseNumberNorm: string) {
  if (streets.length === 0) return [];
  return db
    .selectFrom('coverage_addresses as c')
    .leftJoin('buildings as b', 'b.id', 'c.building_id')
    .select([
      'c.id', 'c.building_id', 'c.street', 'c.house_number', 'c.house_number_norm', 'c.postal_code', 'c.city',
      'c.province', 'c.country', 'c.display', 'c.orderable', 'b.in_coverage as building_in_coverage',
    ])
    .where('c.provider_id', '=', providerId)
    .where((eb) => eb(eb.fn('lower', ['c.street']), 'in', streets))
    .where('c.house_number_norm', '=', houseNumberNorm)
    .orderBy('c.id')
    .limit(50)
    .execute() as Promise<CoverageRow[]>;
}

/** Active plan versions of the provider, cheapest first. */
export const activePlanVersions = (db: Executor, providerId: string) =>
  db
    .selectFrom('plan_versions')
    .select(['id', 'name', 'monthly_price_cents', 'currency', 'download_mbps', 'upload_mbps', 'store_product_id'])
    .where('provider_id', '=', providerId)
    .where('active', '=', true)
    .orderBy('monthly_price_cents')
    .orderBy('name')
    .execute();

/** A building of the provider that is in coverage, or undefined. */
export const findCoveredBuilding = (db: Executor, providerId: string, buildingId: string) =>
  db
    .selectFrom('buildings')
    .select(['id'])
    .where('id', '=', buildingId)
    .where('provider_id', '=', providerId)
    .where('in_coverage', '=', true)
    .executeTakeFirst();

/** Units of a building with their occupancy (a subscription in an occupying status references the unit). */
export const unitsWithAvailability = (db: Executor, buildingId: string) =>
  db
    .selectFrom('units as u')
    .select((eb) => [
      'u.id',
      'u.label',
      'u.floor',
      eb
        .not(
          eb.exists(
            eb.selectFrom('subscriptions as s').select(sql`1`.as('one'))
              .whereRef('s.unit_id', '=', 'u.id')
              .where('s.status', 'in', [...OCCUPYING_STATUSES]),
          ),
        )
        .as('available'),
    ])
    .where('u.building_id', '=', buildingId)
    .orderBy(sql`u.floor NULLS LAST`)
    .orderBy('u.label')
    .execute();
