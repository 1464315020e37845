import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { occupies } from '../subscriptions/index.js';
import { firstRow } from '../../lib/present.js';

export interface CoverageRow {
  id: string;
  building_id: string | null;
  street: string;
  house_number: string;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string;
  display: string;
  orderable: boolean;
  building_in_coverage: boolean | null;
}

/**
 * The smallest string greater than every string starting with `prefix` (bytewise, as COLLATE "C"
 * compares). When the last character has no successor PostgreSQL can hold (U+10FFFF, or right before
 * the surrogate block) the bound of a shorter prefix is taken (the query's starts_with() keeps the
 * answer exact); null when no character has one.
 */
export function prefixUpperBound(prefix: string): string | null {
  const cps = [...prefix];
  while (cps.length > 0) {
    const next = cps.pop()!.codePointAt(0)! + 1;
    if (next <= 0x10ffff && (next < 0xd800 || next > 0xdfff)) return cps.join('') + String.fromCodePoint(next);
  }
  return null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export interface PrefixRow extends CoverageRow {
  /** 0: the display starts with what was typed; 1: the street-first spelling of a house-number-first address does. */
  src: number;
  /** The key the range ran on (search_key, or the street-first key). */
  k: string;
}

/**
 * Candidates whose key starts with `key`: the first `fetch` entries of each of two btree ranges, in
 * plain index order, each an index-only scan that stops after its page:
 *  - src 0: `search_key` on coverage_prefix_idx (provider_id, search_key COLLATE "C");
 *  - src 1: the street-first key of CA/US rows on coverage_street_first_idx ("king street west 12"
 *    for "12 King Street West, Toronto ...").
 * One call of coverage_autocomplete_candidates (migrations/functions/): the statement is planned once per
 * connection and the page comes back as one JSON value. Nothing is deduplicated here (a DISTINCT ON
 * (display) reads and sorts the whole range, 15,000 rows for "hau" at 1M addresses): rows of one
 * display share one key, so the caller groups rows of equal key, drops a key the LIMIT may have cut,
 * and picks one row per display.
 */
export async function autocompletePrefix(db: Executor, providerId: string, key: string, fetch: number): Promise<PrefixRow[]> {
  const upper = prefixUpperBound(key);
  if (upper === null) return [];
  const r = await sql<{ rows: string }>`SELECT coverage_autocomplete_candidates(${providerId}, ${key}, ${upper}, ${fetch}) AS rows`.execute(
    db,
  );
  return JSON.parse(firstRow(r.rows).rows) as PrefixRow[];
}

/** Columns of one suggestion candidate (the fallback). */
const CANDIDATE_COLS = sql.raw(`c.id, c.building_id, c.street, c.house_number, c.postal_code,
  c.city, c.province, c.country, c.display, c.orderable`);

/**
 * The fallback when no key starts with what was typed: substring or word similarity on the
 * trigram GIN index, best match first, at most `fetch` rows, not deduplicated (as autocompletePrefix:
 * rows with one display share one search key and therefore one score, so they are adjacent and the
 * representative comes first). The buildings join runs on the `fetch` rows only.
 */
export async function autocompleteFuzzy(db: Executor, providerId: string, key: string, fetch: number): Promise<CoverageRow[]> {
  return (await autocompleteFuzzySql(providerId, key, fetch).execute(db)).rows;
}

/** The statement of autocompleteFuzzy (for EXPLAIN in bench/serviceability). */
export function autocompleteFuzzySql(providerId: string, key: string, fetch: number) {
  return sql<CoverageRow>`
    SELECT d.id, d.building_id, d.street, d.house_number, d.postal_code, d.city, d.province,
      d.country, d.display, d.orderable, b.in_coverage AS building_in_coverage
    FROM (
      SELECT ${CANDIDATE_COLS}, word_similarity(${key}::text, c.search_key) AS score
      FROM coverage_addresses c
      WHERE c.provider_id = ${providerId}
        AND (c.search_key LIKE ${`%${likeEscape(key)}%`}::text OR ${key}::text <% c.search_key)
      ORDER BY score DESC, c.display, c.orderable DESC, (c.building_id IS NULL), c.id
      LIMIT ${fetch}
    ) d
    LEFT JOIN buildings b ON b.id = d.building_id
    ORDER BY d.score DESC, d.display, d.orderable DESC, (d.building_id IS NULL), d.id`;
}

/** Coverage rows of the provider with one of the street spellings and exactly this normalised house number. */
export async function findCoverageMatches(db: Executor, providerId: string, streets: string[], houseNumberNorm: string) {
  if (streets.length === 0) return [];
  return db
    .selectFrom('coverage_addresses as c')
    .leftJoin('buildings as b', 'b.id', 'c.building_id')
    .select([
      'c.id',
      'c.building_id',
      'c.street',
      'c.house_number',
      'c.house_number_norm',
      'c.postal_code',
      'c.city',
      'c.province',
      'c.country',
      'c.display',
      'c.orderable',
      'b.in_coverage as building_in_coverage',
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

/** Units of a building with their occupancy on `today` (a subscription occupying the unit references it). */
export const unitsWithAvailability = (db: Executor, buildingId: string, today: string) =>
  db
    .selectFrom('units as u')
    .select((eb) => [
      'u.id',
      'u.label',
      'u.floor',
      eb
        .not(
          eb.exists(
            eb
              .selectFrom('subscriptions as s')
              .select(sql`1`.as('one'))
              .whereRef('s.unit_id', '=', 'u.id')
              .where(occupies('s', today)),
          ),
        )
        .as('available'),
    ])
    .where('u.building_id', '=', buildingId)
    .orderBy(sql`u.floor NULLS LAST`)
    .orderBy('u.label')
    .execute();
