import { sql } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { SERVICE_BUILDING_COLUMNS } from '../../db/columns.js';
import type { Probe } from './search.query.js';

// The first pass (probes) and the service locations of a page; the second and third passes (every
// word against every field, then trigrams) are in search-words.repository.ts.
import type { MatchRow } from './search-words.repository.js';
export { docIndexQuery, inSearchTransaction, searchSubscribers, searchSql, type MatchRow } from './search-words.repository.js';

/**
 * Countries the provider serves (to read national phone numbers); DE when it has no buildings yet.
 * A skip scan over buildings_provider_country_idx: one index probe per country (at most 5), not a
 * read of every building.
 */
export async function providerRegions(db: Executor, providerId: string): Promise<string[]> {
  const r = await sql<{ country: string }>`
    WITH RECURSIVE c(country, n) AS (
      (SELECT country, 1 FROM buildings WHERE provider_id = ${providerId} AND country IS NOT NULL ORDER BY country LIMIT 1)
      UNION ALL
      SELECT (SELECT b.country FROM buildings b WHERE b.provider_id = ${providerId} AND b.country > c.country ORDER BY b.country LIMIT 1), c.n + 1
      FROM c WHERE c.country IS NOT NULL AND c.n < 5)
    SELECT country FROM c WHERE country IS NOT NULL`.execute(db);
  const regions = r.rows.map((row) => row.country.trim().toUpperCase()).filter((c) => /^[A-Z]{2}$/.test(c));
  return regions.length ? regions : ['DE'];
}

/** One row of agent_customer_search: a match and one of its service locations (NULLs: none). */
interface ProbeRow extends MatchRow {
  match_count: string | number;
  subscription_status: string | null;
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  unit_label: string | null;
}

export interface ServiceLocationRow {
  status: string;
  street: string | null;
  house_number: string | null;
  postal_code: string | null;
  city: string | null;
  unit_label: string | null;
}

export interface ProbeMatch extends MatchRow {
  service_locations: ServiceLocationRow[];
}

/** The probes as the parallel arrays agent_customer_search (migrations/functions/) takes. */
function probeArrays(probes: Probe[]) {
  return {
    kinds: probes.map((p) => p.kind),
    keys: probes.map((p) => ('key' in p ? p.key : null)),
    houses: probes.map((p) => (p.kind === 'address' ? p.house : null)),
    names: probes.map((p) => ('names' in p && p.names ? p.names.join(' ') : null)),
    tokens: probes.map((p) => ('tokens' in p ? p.tokens.join(' ') : null)),
  };
}

/** The first pass in one statement (also used by EXPLAIN in tests and bench/search). */
function probeSql(providerId: string, probes: Probe[], limit: number, cap: number) {
  const a = probeArrays(probes);
  return sql<ProbeRow>`SELECT * FROM agent_customer_search(${providerId}::uuid, ${a.kinds}::text[], ${a.keys}::text[],
    ${a.houses}::text[], ${a.names}::text[], ${a.tokens}::text[], ${limit}::integer, ${cap}::integer)`;
}

/**
 * A first-pass call that takes every branch of agent_customer_search and finds nothing (the nil
 * provider): PL/pgSQL compiles a function and plans each of its statements on a connection's first
 * call of it (13-15 ms at 1M customers, against 1.5 ms warm), which the first search of every new
 * connection otherwise pays. The database handle runs it on each connection it opens.
 */
export function searchWarmUp(db: Executor) {
  const probes: Probe[] = [
    { kind: 'phone', key: '+0' },
    { kind: 'email', key: 'warm@up.invalid' },
    { kind: 'number', key: 'WARM' },
    { kind: 'name', names: ['warm', 'up'] },
    { kind: 'address', key: 'warm 1', house: '1', names: ['warm'], tokens: ['up'] },
    { kind: 'name_location', names: ['warm'], tokens: ['up'] },
  ];
  return probeSql('00000000-0000-0000-0000-000000000000', probes, 1, 1).compile(db);
}

/**
 * The first pass: every probe's matches, counted up to `cap` + 1, the first `limit` of them (last name, first
 * name, id) with their service locations (subscription order), in one round trip.
 */
export async function probeSubscribers(db: Executor, providerId: string, probes: Probe[], limit: number, cap: number) {
  const r = await probeSql(providerId, probes, limit, cap).execute(db);
  const rows: ProbeMatch[] = [];
  for (const row of r.rows) {
    let m = rows[rows.length - 1];
    if (!m || m.id !== row.id) {
      m = {
        id: row.id,
        first_name: row.first_name,
        last_name: row.last_name,
        email: row.email,
        phone: row.phone,
        customer_number: row.customer_number,
        service_locations: [],
      };
      rows.push(m);
    }
    if (row.subscription_status !== null) {
      m.service_locations.push({
        status: row.subscription_status,
        street: row.street,
        house_number: row.house_number,
        postal_code: row.postal_code,
        city: row.city,
        unit_label: row.unit_label,
      });
    }
  }
  return { rows, total: r.rows[0] ? Number(r.rows[0].match_count) : 0 };
}

/** The service locations (building address + unit label) of the matched customers. */
export function serviceLocationsOf(db: Executor, customerIds: string[]) {
  if (customerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('subscriptions as s')
    .leftJoin('locations as l', 'l.id', 's.location_id')
    .leftJoin('buildings as b', (j) => j.on((eb) => eb('b.id', '=', eb.fn.coalesce('s.building_id', 'l.building_id'))))
    .leftJoin('units as u', (j) => j.on((eb) => eb('u.id', '=', eb.fn.coalesce('s.unit_id', 'l.unit_id'))))
    .select(['s.subscriber_id', 's.id as subscription_id', 's.status', ...SERVICE_BUILDING_COLUMNS, 'u.label as unit_label'])
    .where('s.subscriber_id', 'in', customerIds)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}
