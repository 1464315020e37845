import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../jobs/types.js';
import { escapeLike, type SearchPlan, type SearchToken } from './search.query.js';

// The second and third passes of the customer search: every word of q must prefix-match some field
// of the customer, its invoice address or a service location (or, in the fuzzy pass, contain it or
// resemble it by trigrams). Each word's set is a union of index ranges (COLLATE "C" btree
// expression indexes; trigram GIN indexes in the fuzzy pass); the expressions must stay
// byte-identical to the index definitions in migrations 000100 and 000500.
//
// Several words: the most selective word drives. Its set is read in full; every other word is
// checked on each of its customers (their row and their service locations), instead of reading
// every word's set in full and intersecting them ("Hans Hamburg": the customers called Hans, each
// checked for Hamburg, not the 100,000 customers in Hamburg). Which word is most selective is
// measured first, each set read only up to ESTIMATE_CAP rows (10,000: "Anna" with 7,700 customers
// is told apart from "4B" with 25,000, whichever comes first in q).

const SUBSCRIBER_TRGM = sql`lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(invoice_street, '') || ' ' || coalesce(invoice_city, ''))`;
const BUILDING_TRGM = sql`lower(coalesce(name, '') || ' ' || coalesce(street, '') || ' ' || coalesce(house_number, '') || ' ' || coalesce(postal_code, '') || ' ' || coalesce(city, ''))`;
const SUBSCRIBER_TRGM_X = sql`lower(x.first_name || ' ' || x.last_name || ' ' || x.email || ' ' || coalesce(x.invoice_street, '') || ' ' || coalesce(x.invoice_city, ''))`;
const BUILDING_TRGM_B = sql`lower(coalesce(b.name, '') || ' ' || coalesce(b.street, '') || ' ' || coalesce(b.house_number, '') || ' ' || coalesce(b.postal_code, '') || ' ' || coalesce(b.city, ''))`;

/** Rows of a word's set read to compare words (the driver is the word with the fewest). */
export const ESTIMATE_CAP = 10_000;

const prefix = (t: string) => `${escapeLike(t)}%`;
const contains = (t: string) => `%${escapeLike(t)}%`;
/** pg_trgm needs three characters to use its index; shorter words stay prefix-only. */
const fuzzyWord = (tok: SearchToken, fuzzy: boolean) => fuzzy && tok.kind === 'word' && tok.text.length >= 3;

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

/** The customer's own fields a word may prefix (each has a `COLLATE "C"` expression index). */
const OWN_COLUMNS = ['first_name', 'last_name', 'email', 'invoice_street', 'invoice_city', 'invoice_postal_code', 'invoice_house_number'];

/** Whether a word (`lp`: its lower-cased LIKE prefix) prefixes a field of building `b`. */
const buildingWord = (lp: RawBuilder<unknown>) => sql`(lower(b.street) COLLATE "C" LIKE ${lp} OR lower(b.city) COLLATE "C" LIKE ${lp}
  OR lower(b.postal_code) COLLATE "C" LIKE ${lp} OR lower(b.name) COLLATE "C" LIKE ${lp} OR lower(b.house_number) COLLATE "C" LIKE ${lp})`;

/** What a word prefix-matches: the customer's own fields (ids), and the buildings and units of service locations. */
function wordParts(providerId: string, text: string) {
  const lp = sql`lower(${prefix(text)})`;
  return {
    own: OWN_COLUMNS.map((c) => sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(${sql.ref(c)}) COLLATE "C" LIKE ${lp}`),
    buildingIds: sql`SELECT b.id FROM buildings b WHERE b.provider_id = ${providerId} AND ${buildingWord(lp)}`,
    unitIds: sql`SELECT u.id FROM units u JOIN buildings b ON b.id = u.building_id
      WHERE b.provider_id = ${providerId} AND lower(u.label) COLLATE "C" LIKE ${lp}`,
  };
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
      const w = wordParts(providerId, tok.text);
      const branches = [...w.own, viaBuildings(providerId, w.buildingIds), viaUnits(providerId, w.unitIds)];
      if (fuzzyWord(tok, fuzzy)) {
        const c = sql`lower(${contains(tok.text)})`;
        const lw = sql`lower(${tok.text})`;
        branches.push(
          sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND (${SUBSCRIBER_TRGM} LIKE ${c} OR ${lw} <% ${SUBSCRIBER_TRGM})`,
          viaBuildings(providerId, sql`SELECT id FROM buildings WHERE provider_id = ${providerId} AND ${BUILDING_TRGM} LIKE ${c}`),
        );
      }
      return sql.join(branches, sql` UNION `);
    }
  }
}

/**
 * A token's size as tokenSizes reads it, at most `cap` + 1. A word's own fields count each customer
 * once (first name and email both starting with "anna" are one customer): their rows are read up to
 * twice the cap and counted distinct; more rows than that count as past the cap. Its buildings'
 * and units' subscriptions and locations are one constant row each, read from the indexes alone
 * (the provider's buildings and units stand for its subscriptions there: their provider_id would
 * cost a heap page per row), and only while the own fields leave room below the cap.
 */
function countedSize(providerId: string, tok: SearchToken, cap: number): RawBuilder<unknown> {
  const upTo = (set: RawBuilder<unknown>, n: number) => sql`SELECT count(*) FROM (SELECT 1 FROM (${set}) x LIMIT ${n}) y`;
  if (tok.kind !== 'word') return sql`(${upTo(tokenSet(providerId, tok, false), cap + 1)})`;
  const w = wordParts(providerId, tok.text);
  const via = sql`SELECT 1 FROM subscriptions WHERE building_id IN (${w.buildingIds})
    UNION ALL SELECT 1 FROM locations WHERE building_id IN (${w.buildingIds})
    UNION ALL SELECT 1 FROM subscriptions WHERE unit_id IN (${w.unitIds})
    UNION ALL SELECT 1 FROM locations WHERE unit_id IN (${w.unitIds})`;
  return sql`(SELECT CASE WHEN o.n_rows > ${2 * cap} THEN ${cap + 1}
      ELSE LEAST(${cap + 1}, o.n_ids + (${upTo(via, cap + 1)})) END
    FROM (SELECT count(*) AS n_rows, count(DISTINCT id) AS n_ids
          FROM (SELECT id FROM (${sql.join(w.own, sql` UNION ALL `)}) a LIMIT ${2 * cap + 1}) r) o)`;
}

/**
 * Whether the customer `d.id` is in tokenSet(tok): the same fields and service locations, checked
 * on that one customer (its row, then its subscriptions' buildings and units).
 */
function tokenMatches(providerId: string, tok: SearchToken, fuzzy: boolean): RawBuilder<unknown> {
  const p = prefix(tok.text);
  // OFFSET 0 keeps every EXISTS a per-customer probe: without it the planner may turn it into a
  // hashed subplan that reads the word's whole set (every customer in Hamburg) once.
  const own = (cond: RawBuilder<unknown>) => sql`EXISTS (SELECT 1 FROM subscribers x WHERE x.id = d.id AND (${cond}) OFFSET 0)`;
  switch (tok.kind) {
    case 'email':
      return own(sql`lower(x.email) COLLATE "C" LIKE lower(${p})`);
    case 'customer_number':
      return own(sql`x.customer_number COLLATE "C" LIKE ${p}`);
    case 'phone':
      return tok.e164Prefixes.length
        ? own(sql.join(tok.e164Prefixes.map((e) => sql`x.phone_e164 COLLATE "C" LIKE ${prefix(e)}`), sql` OR `))
        : sql`false`;
    case 'word': {
      const lp = sql`lower(${p})`;
      const fz = fuzzyWord(tok, fuzzy);
      const c = sql`lower(${contains(tok.text)})`;
      const w = sql`lower(${tok.text})`;
      const building = fz ? sql`(${buildingWord(lp)} OR ${BUILDING_TRGM_B} LIKE ${c})` : buildingWord(lp);
      const ownWord = sql.join(OWN_COLUMNS.map((col) => sql`lower(${sql.ref(`x.${col}`)}) COLLATE "C" LIKE ${lp}`), sql` OR `);
      const unit = sql`lower(u.label) COLLATE "C" LIKE ${lp}`;
      // Per customer: one read of its subscriptions (with their locations), then a key lookup of
      // each one's building and unit (a unit is scoped by its subscription's provider). Four probes
      // that each read the subscriptions again cost "Anna Berlin 4B" 0.47 s over 7,700 Annas. Not
      // the word's buildings or units read once and hashed: a label prefix can name a fifth of a
      // million units, and a set PostgreSQL judges too large to hash is read again for every
      // subscription (115 s for "Anna 1" when that happened).
      return sql`(${own(sql`${ownWord} ${fz ? sql`OR ${SUBSCRIBER_TRGM_X} LIKE ${c} OR ${w} <% ${SUBSCRIBER_TRGM_X}` : sql``}`)}
        OR EXISTS (SELECT 1 FROM subscriptions s LEFT JOIN locations l ON l.id = s.location_id
                   WHERE s.subscriber_id = d.id AND s.provider_id = ${providerId}
                     AND (EXISTS (SELECT 1 FROM buildings b
                                  WHERE b.id IN (s.building_id, l.building_id) AND b.provider_id = ${providerId} AND ${building})
                       OR EXISTS (SELECT 1 FROM units u WHERE u.id IN (s.unit_id, l.unit_id) AND ${unit}))
                   OFFSET 0))`;
    }
  }
}

function matchedIds(providerId: string, plan: SearchPlan, fuzzy: boolean, driver: number): RawBuilder<unknown> {
  switch (plan.kind) {
    case 'phone':
      return phoneBranch(providerId, plan.e164Prefixes);
    case 'email':
      return tokenSet(providerId, { kind: 'email', text: plan.prefix }, false);
    case 'customer_number':
      return tokenSet(providerId, { kind: 'customer_number', text: plan.prefix }, false);
    case 'tokens': {
      // Every token must match some field: the driver's set, each customer in it checked for the others.
      const others = plan.tokens.filter((_, i) => i !== driver);
      if (others.length === 0) return tokenSet(providerId, plan.tokens[driver], fuzzy);
      return sql`SELECT d.id FROM (${tokenSet(providerId, plan.tokens[driver], fuzzy)}) d
        WHERE ${sql.join(others.map((t) => tokenMatches(providerId, t, fuzzy)), sql` AND `)}`;
    }
  }
}

/** A matched customer as every search pass reads it (masked by the service before it is answered). */
export interface MatchRow {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  customer_number: string | null;
}

export interface SearchRow extends MatchRow {
  total: string | number;
}

/** The SQL the search runs (also used by EXPLAIN in tests); `driver`: the token whose set is read in full. */
export function searchSql(providerId: string, plan: SearchPlan, limit: number, fuzzy: boolean, driver = 0) {
  return sql<SearchRow>`
    WITH m AS (${matchedIds(providerId, plan, fuzzy, driver)})
    SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number, count(*) OVER () AS total
    FROM m CROSS JOIN LATERAL (
      -- LIMIT 1 keeps this a per-id primary-key lookup (the matched set is small; a hash join
      -- would read the whole table instead)
      SELECT id, first_name, last_name, email, phone, customer_number FROM subscribers
      WHERE id = m.id AND provider_id = ${providerId} LIMIT 1) s
    ORDER BY lower(s.last_name), lower(s.first_name), s.id
    LIMIT ${limit}`;
}

/**
 * Each token's size (countedSize), read up to `cap` + 1: a name of 7,700 customers stays below the
 * cap, told apart from a unit label of 25,000 whichever comes first in q (when every field counted
 * a customer again, "anna" reached the cap through first names and emails). Sets past the cap tie,
 * and the first of them drives. 0: the token matches nothing. The fuzzy pass is driven by the same
 * measure: its trigram sets cannot be read partially, and a word with few prefix matches (often
 * none: the misspelt one) has few fuzzy matches too.
 */
async function tokenSizes(db: Executor, providerId: string, tokens: SearchToken[], cap: number): Promise<number[]> {
  const cols = tokens.map((t, i) => sql`${countedSize(providerId, t, cap)} AS ${sql.ref(`n${i}`)}`);
  const r = await sql<Record<string, string | number>>`SELECT ${sql.join(cols)}`.execute(db);
  return tokens.map((_, i) => Number(r.rows[0][`n${i}`]));
}

/** The index of the token with the smallest set (the first of equals). */
export function pickDriver(sizes: number[]): number {
  return sizes.reduce((best, n, i) => (n < sizes[best] ? i : best), 0);
}

/**
 * Runs `fn` with JIT off for its statements (set_config local to a read transaction of its own unless
 * the executor is one already) and, when `timeoutMs` is given, with that statement_timeout for each
 * of them. These statements are planned for thousands of rows per word, far above jit_above_cost:
 * JIT compiled "Anna Hamburg" for 0.77 s to run it in 0.2 s.
 */
async function withSettings<T>(db: Executor, timeoutMs: number | null, fn: (ex: Executor) => Promise<T>): Promise<T> {
  // Without a timeout the server's (or role's) statement_timeout stays as it is.
  const timeout = timeoutMs === null ? sql`` : sql`, set_config('statement_timeout', ${String(Math.max(1, Math.floor(timeoutMs)))}, true)`;
  const settings = (ex: Executor) => sql`SELECT set_config('jit', 'off', true)${timeout}`.execute(ex);
  if (db.isTransaction) {
    await settings(db);
    return fn(db);
  }
  return db.transaction().execute(async (trx) => {
    await settings(trx);
    return fn(trx);
  });
}

/**
 * The token whose set is read in full: the one with the fewest rows (sets measured up to
 * `cap` rows, ESTIMATE_CAP unless a test asks for less); null when some token matches nothing
 * (then nothing matches).
 */
export async function chooseDriver(db: Executor, providerId: string, plan: SearchPlan, fuzzy: boolean, cap = ESTIMATE_CAP): Promise<number | null> {
  if (plan.kind !== 'tokens' || plan.tokens.length < 2) return 0;
  const sizes = await tokenSizes(db, providerId, plan.tokens, cap);
  // A word with no prefix match empties the prefix pass; the fuzzy pass is driven by it.
  if (sizes.some((n) => n === 0)) return fuzzy ? pickDriver(sizes) : null;
  return pickDriver(sizes);
}

/**
 * The word passes. `timeoutMs` bounds each statement (the fuzzy pass on common short words can read
 * much of the table); a statement that runs past it fails with a statement-timeout error.
 */
export function searchCustomers(db: Executor, providerId: string, plan: SearchPlan, limit: number, fuzzy: boolean, timeoutMs: number | null = null) {
  return withSettings(db, timeoutMs, async (ex) => {
    const driver = await chooseDriver(ex, providerId, plan, fuzzy);
    if (driver === null) return { rows: [] as SearchRow[], total: 0 };
    const r = await searchSql(providerId, plan, limit, fuzzy, driver).execute(ex);
    return { rows: r.rows, total: r.rows.length ? Number(r.rows[0].total) : 0 };
  });
}
