import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../jobs/types.js';
import { escapeLike, type Probe, type SearchPlan, type SearchToken } from './search.query.js';

// Every branch below is a prefix range on a COLLATE "C" btree expression index (the LIKE 'x%'
// pattern is a constant at plan time, so the planner turns it into an index range), or, in the
// fallback, a pg_trgm GIN index. The expressions must stay byte-identical to the index
// definitions in migrations 000100 and 000500.

const SUBSCRIBER_TRGM = sql`lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(invoice_street, '') || ' ' || coalesce(invoice_city, ''))`;
const BUILDING_TRGM = sql`lower(coalesce(name, '') || ' ' || coalesce(street, '') || ' ' || coalesce(house_number, '') || ' ' || coalesce(postal_code, '') || ' ' || coalesce(city, ''))`;

const prefix = (t: string) => `${escapeLike(t)}%`;
const contains = (t: string) => `%${escapeLike(t)}%`;

/** Subscriber ids whose subscriptions sit in the matched buildings / units (directly or via the location). */
function viaBuildings(providerId: string, buildingIds: RawBuilder<unknown>) {
  return sql`SELECT subscriber_id AS id FROM subscriptions WHERE provider_id = ${providerId} AND building_id IN (${buildingIds})
    UNION SELECT s.subscriber_id FROM subscriptions s JOIN locations l ON l.id = s.location_id
      WHERE s.provider_id = ${providerId} AND l.building_id IN (${buildingIds})`;
}
function viaUnits(providerId: string, unitIds: RawBuilder<unknown>) {
  return sql`SELECT subscriber_id AS id FROM subscriptions WHERE provider_id = ${providerId} AND unit_id IN (${unitIds})
    UNION SELECT s.subscriber_id FROM subscriptions s JOIN locations l ON l.id = s.location_id
      WHERE s.provider_id = ${providerId} AND l.unit_id IN (${unitIds})`;
}

function phoneBranch(providerId: string, prefixes: string[]) {
  if (prefixes.length === 0) return sql`SELECT id FROM subscribers WHERE false`;
  return sql.join(
    prefixes.map((p) => sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND phone_e164 COLLATE "C" LIKE ${prefix(p)}`),
    sql` UNION `,
  );
}

/** The ids one token matches: any field, prefix ranges only (or with trigrams when `fuzzy`). */
function tokenSet(providerId: string, tok: SearchToken, fuzzy: boolean): RawBuilder<unknown> {
  const p = prefix(tok.text);
  switch (tok.kind) {
    case 'email':
      return sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(email) COLLATE "C" LIKE lower(${p})`;
    case 'customer_number':
      return sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND customer_number COLLATE "C" LIKE ${p}`;
    case 'phone':
      return phoneBranch(providerId, tok.e164Prefixes);
    case 'word': {
      const lp = sql`lower(${p})`;
      const branches: RawBuilder<unknown>[] = [
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(first_name) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(last_name) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(email) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(invoice_street) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(invoice_city) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(invoice_postal_code) COLLATE "C" LIKE ${lp}`,
        sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(invoice_house_number) COLLATE "C" LIKE ${lp}`,
        viaBuildings(
          providerId,
          sql`SELECT id FROM buildings WHERE provider_id = ${providerId} AND (
            lower(street) COLLATE "C" LIKE ${lp} OR lower(city) COLLATE "C" LIKE ${lp} OR lower(postal_code) COLLATE "C" LIKE ${lp}
            OR lower(name) COLLATE "C" LIKE ${lp} OR lower(house_number) COLLATE "C" LIKE ${lp})`,
        ),
        viaUnits(
          providerId,
          sql`SELECT u.id FROM units u JOIN buildings b ON b.id = u.building_id
            WHERE b.provider_id = ${providerId} AND lower(u.label) COLLATE "C" LIKE ${lp}`,
        ),
      ];
      // pg_trgm needs three characters to use its index; shorter words stay prefix-only.
      if (fuzzy && tok.text.length >= 3) {
        const c = sql`lower(${contains(tok.text)})`;
        const w = sql`lower(${tok.text})`;
        branches.push(
          sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND (${SUBSCRIBER_TRGM} LIKE ${c} OR ${w} <% ${SUBSCRIBER_TRGM})`,
          viaBuildings(providerId, sql`SELECT id FROM buildings WHERE provider_id = ${providerId} AND ${BUILDING_TRGM} LIKE ${c}`),
        );
      }
      return sql.join(branches, sql` UNION `);
    }
  }
}

function matchedIds(providerId: string, plan: SearchPlan, fuzzy: boolean): RawBuilder<unknown> {
  switch (plan.kind) {
    case 'phone':
      return phoneBranch(providerId, plan.e164Prefixes);
    case 'email':
      return tokenSet(providerId, { kind: 'email', text: plan.prefix }, false);
    case 'customer_number':
      return tokenSet(providerId, { kind: 'customer_number', text: plan.prefix }, false);
    case 'tokens':
      // Every token must match some field: the intersection of the per-token sets.
      return sql.join(plan.tokens.map((t) => sql`(${tokenSet(providerId, t, fuzzy)})`), sql` INTERSECT `);
  }
}

export interface SearchRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  customer_number: string | null;
  total: string | number;
}

/** The SQL the search runs (also used by EXPLAIN in tests). */
export function searchSql(providerId: string, plan: SearchPlan, limit: number, fuzzy: boolean) {
  return sql<SearchRow>`
    WITH m AS (${matchedIds(providerId, plan, fuzzy)})
    SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number, count(*) OVER () AS total
    FROM m CROSS JOIN LATERAL (
      -- LIMIT 1 keeps this a per-id primary-key lookup (the matched set is small; a hash join
      -- would read the whole table instead)
      SELECT id, first_name, last_name, email, phone, customer_number FROM subscribers
      WHERE id = m.id AND provider_id = ${providerId} LIMIT 1) s
    ORDER BY lower(s.last_name), lower(s.first_name), s.id
    LIMIT ${limit}`;
}

export async function searchCustomers(db: Executor, providerId: string, plan: SearchPlan, limit: number, fuzzy: boolean) {
  const r = await searchSql(providerId, plan, limit, fuzzy).execute(db);
  return { rows: r.rows, total: r.rows.length ? Number(r.rows[0].total) : 0 };
}

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
interface ProbeRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  customer_number: string | null;
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

export interface ProbeMatch {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  customer_number: string | null;
  service_locations: ServiceLocationRow[];
}

/** The probes as the parallel arrays agent_customer_search (migration 1100) takes. */
function probeArrays(probes: Probe[]) {
  return {
    kinds: probes.map((p) => p.kind),
    keys: probes.map((p) => ('key' in p ? p.key : null)),
    houses: probes.map((p) => (p.kind === 'address' ? p.house : null)),
    nameModes: probes.map((p) => ('name' in p && p.name ? p.name.mode : null)),
    nameKeys: probes.map((p) => ('name' in p && p.name ? p.name.key : null)),
    tokens: probes.map((p) => ('tokens' in p ? p.tokens.join(' ') : null)),
  };
}

/** The first pass in one statement (also used by EXPLAIN in tests and bench/search). */
export function probeSql(providerId: string, probes: Probe[], limit: number) {
  const a = probeArrays(probes);
  return sql<ProbeRow>`SELECT * FROM agent_customer_search(${providerId}::uuid, ${a.kinds}::text[], ${a.keys}::text[],
    ${a.houses}::text[], ${a.nameModes}::text[], ${a.nameKeys}::text[], ${a.tokens}::text[], ${limit}::integer)`;
}

/**
 * The first pass: every probe's matches, counted, the first `limit` of them (last name, first
 * name, id) with their service locations (subscription order), in one round trip.
 */
export async function probeCustomers(db: Executor, providerId: string, probes: Probe[], limit: number) {
  const r = await probeSql(providerId, probes, limit).execute(db);
  const rows: ProbeMatch[] = [];
  for (const row of r.rows) {
    let m = rows[rows.length - 1];
    if (!m || m.id !== row.id) {
      m = { id: row.id, first_name: row.first_name, last_name: row.last_name, email: row.email, phone: row.phone, customer_number: row.customer_number, service_locations: [] };
      rows.push(m);
    }
    if (row.subscription_status !== null) {
      m.service_locations.push({
        status: row.subscription_status, street: row.street, house_number: row.house_number, postal_code: row.postal_code, city: row.city, unit_label: row.unit_label,
      });
    }
  }
  return { rows, total: r.rows.length ? Number(r.rows[0].match_count) : 0 };
}

/** The service locations (building address + unit label) of the matched customers. */
export function serviceLocationsOf(db: Executor, customerIds: string[]) {
  if (customerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('subscriptions as s')
    .leftJoin('locations as l', 'l.id', 's.location_id')
    .leftJoin('buildings as b', (j) => j.on((eb) => eb('b.id', '=', eb.fn.coalesce('s.building_id', 'l.building_id'))))
    .leftJoin('units as u', (j) => j.on((eb) => eb('u.id', '=', eb.fn.coalesce('s.unit_id', 'l.unit_id'))))
    .select(['s.subscriber_id', 's.id as subscription_id', 's.status', 'b.id as building_id', 'b.name as building_name', 'b.street', 'b.house_number', 'b.postal_code', 'b.city', 'b.country', 'u.label as unit_label'])
    .where('s.subscriber_id', 'in', customerIds)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}
