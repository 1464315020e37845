import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/executor.js';
import { escapeLike, nameWord, typoKeys, type SearchPlan, type SearchToken } from './search.query.js';
import { foldStreet, streetStem } from './search.fold.js';
import { firstRow, present } from '../../lib/present.js';

// The second and third passes of the customer search: every word of q must match some field of the
// customer, its invoice address or a service location, under the rules of docs/decisions.md
// ("Safety"): an email, phone or customer number in full; a name word whole (a word of the
// contact's or the invoice contact's names, through the baseline's GIN index); a street,
// city, postal code, house number, building name or unit label by prefix (COLLATE "C" btree
// expression indexes of the baseline). The third pass allows one typo in a name word of 5+
// letters and a place word inside a service building's street, name or city ("Weinberg" in "Am
// Weinberg", trigram candidates checked word by word; the invoice address matches by the prefix of
// its street or city: a trigram read over a million invoice streets cannot be bounded, a GIN scan
// is not interrupted by statement_timeout). The expressions must stay byte-identical to the index
// definitions.
//
// Sets are read as UNION ALL, never UNION: a UNION hashes its whole input before the first row
// ("Berlin": 100,000 customers, 0.8 s), while UNION ALL under a LIMIT stops reading at the cap.
//
// Several words: the search document (search_documents, docCandidates) gives the customers that
// have every word of two or more characters, in one GIN scan; each is then checked for the words
// whose document term is wider than the rules (exactTerm), against its own document where that
// says the rule exactly (docCheck), else word by word. Where no word narrows the document, or a
// word is a phone, email or customer number, the most selective word drives. Its set is read (up to
// the match cap); every other word is checked on each of its customers (their row and their
// service locations), instead of reading every word's set in full and intersecting them ("Hans
// Hamburg": the customers called Hans, each checked for Hamburg, not the 100,000 customers in
// Hamburg). Which word is most selective is measured first, each set read only up to ESTIMATE_CAP
// rows.

/** The name index's keys, led by the provider's key (subscribers_search_name_keys_keyed_idx): asked through `keyed`. */
const NAME_KEYS = sql`agent_search_name_keys_keyed(provider_id, first_name, last_name, invoice_first_name, invoice_last_name)`;
const keyed = (providerId: string, keys: RawBuilder<unknown>) => sql`agent_search_keyed(${providerId}, ${keys})`;
const NAME_WORDS_X = sql`agent_search_name_words(x.first_name, x.last_name, x.invoice_first_name, x.invoice_last_name)`;
const BUILDING_TRGM = sql`lower(coalesce(name, '') || ' ' || coalesce(street, '') || ' ' || coalesce(house_number, '') || ' ' || coalesce(postal_code, '') || ' ' || coalesce(city, ''))`;

/**
 * Rows of a word's set read to compare words (the driver is the word with the fewest; words past it
 * tie and the first drives). The match cap: up to 10,000, a common name with a typo cost 190 ms to
 * measure alone (bench/README.md, round 10).
 */
const ESTIMATE_CAP = 1_000;

/** A word as the LIKE prefix of a field (a street form cut to "str": search.fold.ts streetStem). */
const prefix = (t: string) => `${escapeLike(streetStem(t))}%`;
const contains = (t: string) => `%${escapeLike(t)}%`;
/**
 * Whether the third pass looks for the word inside streets and cities: pg_trgm needs three letters
 * or digits to use its index (without them, punctuation or emoji, it reads every entry of the
 * index, uninterruptibly: 0.6 s at 1M customers).
 */
const insideWords = (tok: SearchToken, fuzzy: boolean) => fuzzy && tok.kind === 'word' && /^[\p{L}\p{N}]{3,}$/u.test(tok.text);
const textArray = (xs: string[]) => sql`ARRAY[${sql.join(xs.map((x) => sql`${x}::text`))}]`;

/** Subscriber ids whose subscriptions sit in the matched buildings / units (directly or via the location). */
function viaBuildings(providerId: string, buildingIds: RawBuilder<unknown>) {
  return sql`SELECT subscriber_id AS id FROM subscriptions WHERE provider_id = ${providerId} AND building_id IN (${buildingIds})
    UNION ALL SELECT s.subscriber_id FROM subscriptions s JOIN locations l ON l.id = s.location_id
      WHERE s.provider_id = ${providerId} AND l.building_id IN (${buildingIds})`;
}
function viaUnits(providerId: string, unitIds: RawBuilder<unknown>) {
  return sql`SELECT subscriber_id AS id FROM subscriptions WHERE provider_id = ${providerId} AND unit_id IN (${unitIds})
    UNION ALL SELECT s.subscriber_id FROM subscriptions s JOIN locations l ON l.id = s.location_id
      WHERE s.provider_id = ${providerId} AND l.unit_id IN (${unitIds})`;
}

function phoneBranch(providerId: string, numbers: string[]) {
  if (numbers.length === 0) return sql`SELECT id FROM subscribers WHERE false`;
  return sql.join(
    numbers.flatMap((n) => [
      sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND phone_e164 COLLATE "C" = ${n}`,
      sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND invoice_phone_e164 = ${n} AND invoice_phone_e164 IS NOT NULL`,
    ]),
    sql` UNION ALL `,
  );
}

const emailBranch = (providerId: string, address: string) =>
  sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(email) = ${address}
    UNION ALL SELECT id FROM subscribers WHERE provider_id = ${providerId} AND lower(invoice_email) = ${address} AND invoice_email IS NOT NULL`;

const numberBranch = (providerId: string, number: string) =>
  sql`SELECT id FROM subscribers WHERE provider_id = ${providerId} AND customer_number = ${number}`;

/** The invoice-address fields a place word may name (each has a `COLLATE "C"` expression index). */
const PLACE_COLUMNS = ['invoice_street', 'invoice_city', 'invoice_postal_code', 'invoice_house_number'];

/**
 * Whether word `w` names customer `x`'s invoice address whole (agent_search_word_names_invoice):
 * the address is not shown in a masked match, so a prefix must not find it (decisions.md, Safety).
 * The prefix LIKE before it keeps the read on each field's index.
 */
const invoiceWhole = (x: string, w: string) =>
  sql`agent_search_word_names_invoice(${w}, ${sql.ref(`${x}.invoice_house_number`)}, ${sql.ref(`${x}.invoice_postal_code`)}, ${sql.ref(`${x}.invoice_city`)}, ${sql.ref(`${x}.invoice_street`)}, NULL)`;

/** Whether a word (`lp`: its lower-cased LIKE prefix) prefixes a field of building `b`. */
const buildingWord = (lp: RawBuilder<unknown>) => sql`(lower(b.street) COLLATE "C" LIKE ${lp} OR lower(b.city) COLLATE "C" LIKE ${lp}
  OR lower(b.postal_code) COLLATE "C" LIKE ${lp} OR lower(b.name) COLLATE "C" LIKE ${lp} OR lower(b.house_number) COLLATE "C" LIKE ${lp})`;
/** Whether a word (lower case) starts a word inside building `b`'s street, name or city. */
const buildingInside = (w: string) =>
  sql`(agent_search_word_prefix(b.street, ${w}) OR agent_search_word_prefix(b.name, ${w}) OR agent_search_word_prefix(b.city, ${w}))`;

/** The name words of a query word ("Meyer-Schulz": meyer, schulz). */
const wordNames = (text: string) =>
  nameWord(text)
    .split(/[\s,./-]+/)
    .filter(Boolean);

/**
 * The customers whose names hold the word: every name word whole, or (fuzzy, one name word) within
 * one typo (candidates from the index keys, kept by agent_search_name_word_matches).
 */
function nameBranch(providerId: string, text: string, fuzzy: boolean) {
  const names = wordNames(text);
  const [name] = names;
  if (name === undefined) return sql`SELECT id FROM subscribers WHERE false`;
  if (!fuzzy || names.length > 1)
    return sql`SELECT id FROM subscribers WHERE (${NAME_KEYS} @> ${keyed(providerId, sql`agent_search_name_query(${textArray(names)})`)}
      OR ${NAME_KEYS} @> ${keyed(providerId, sql`agent_search_name_query_wide(${textArray(names)})`)}) AND provider_id = ${providerId}`;
  return sql`SELECT x.id FROM subscribers x WHERE ${NAME_KEYS} && ${keyed(providerId, textArray(typoKeys(name)))}
    AND x.provider_id = ${providerId} AND EXISTS (SELECT 1 FROM unnest(${NAME_WORDS_X}) n WHERE agent_search_name_word_matches(${name}, n, true))`;
}

/** Whether customer `x` has the word among its names (the same rule as nameBranch, on one row). */
function nameCheck(text: string, fuzzy: boolean) {
  const names = wordNames(text);
  if (names.length === 0) return sql`false`;
  if (!fuzzy || names.length > 1) return sql`${NAME_WORDS_X} @> ${textArray(names)}`;
  return sql`EXISTS (SELECT 1 FROM unnest(${NAME_WORDS_X}) n WHERE agent_search_name_word_matches(${names[0]}, n, true))`;
}

/** What a word matches: the customer's names and invoice address (ids), and the buildings and units of service locations. */
function wordParts(providerId: string, tok: SearchToken, fuzzy: boolean) {
  const lp = sql`lower(${prefix(tok.text)})`;
  const w = tok.text.toLowerCase();
  const own = [
    nameBranch(providerId, tok.text, fuzzy),
    ...PLACE_COLUMNS.map(
      (c) =>
        sql`SELECT id FROM subscribers i WHERE provider_id = ${providerId} AND lower(${sql.ref(c)}) COLLATE "C" LIKE ${lp} AND ${invoiceWhole('i', w)}`,
    ),
  ];
  let buildingIds = sql`SELECT b.id FROM buildings b WHERE b.provider_id = ${providerId} AND ${buildingWord(lp)}`;
  if (insideWords(tok, fuzzy)) {
    const c = sql`lower(${contains(tok.text)})`;
    buildingIds = sql`${buildingIds} UNION SELECT b.id FROM buildings b WHERE ${BUILDING_TRGM} LIKE ${c} AND b.provider_id = ${providerId} AND ${buildingInside(w)}`;
  }
  return {
    own,
    buildingIds,
    unitIds: sql`SELECT u.id FROM units u JOIN buildings b ON b.id = u.building_id
      WHERE b.provider_id = ${providerId} AND lower(u.label) COLLATE "C" LIKE ${lp}`,
  };
}

/** The ids one token matches. */
function tokenSet(providerId: string, tok: SearchToken, fuzzy: boolean): RawBuilder<unknown> {
  switch (tok.kind) {
    case 'email':
      return emailBranch(providerId, tok.text);
    case 'customer_number':
      return numberBranch(providerId, tok.text);
    case 'phone':
      return phoneBranch(providerId, tok.e164);
    case 'word': {
      const w = wordParts(providerId, tok, fuzzy);
      return sql.join([...w.own, viaBuildings(providerId, w.buildingIds), viaUnits(providerId, w.unitIds)], sql` UNION ALL `);
    }
  }
}

/**
 * A token's size as tokenSizes reads it, at most `cap` + 1. A word's own fields count each customer
 * once: their rows are read up to twice the cap and counted distinct; more rows than that count as
 * past the cap. Its buildings' and units' subscriptions and locations are one constant row each,
 * read from the indexes alone, and only while the own fields leave room below the cap.
 */
function countedSize(providerId: string, tok: SearchToken, cap: number, fuzzy: boolean): RawBuilder<unknown> {
  const upTo = (set: RawBuilder<unknown>, n: number) => sql`SELECT count(*) FROM (SELECT 1 FROM (${set}) x LIMIT ${n}) y`;
  if (tok.kind !== 'word') return sql`(${upTo(tokenSet(providerId, tok, false), cap + 1)})`;
  const w = wordParts(providerId, tok, fuzzy);
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
  // OFFSET 0 keeps every EXISTS a per-customer probe: without it the planner may turn it into a
  // hashed subplan that reads the word's whole set (every customer in Hamburg) once.
  const own = (cond: RawBuilder<unknown>) => sql`EXISTS (SELECT 1 FROM subscribers x WHERE x.id = d.id AND (${cond}) OFFSET 0)`;
  switch (tok.kind) {
    case 'email':
      return own(sql`lower(x.email) = ${tok.text} OR lower(x.invoice_email) = ${tok.text}`);
    case 'customer_number':
      return own(sql`x.customer_number = ${tok.text}`);
    case 'phone':
      return tok.e164.length
        ? own(
            sql.join(
              tok.e164.map((e) => sql`x.phone_e164 = ${e} OR x.invoice_phone_e164 = ${e}`),
              sql` OR `,
            ),
          )
        : sql`false`;
    case 'word': {
      const lp = sql`lower(${prefix(tok.text)})`;
      const w = tok.text.toLowerCase();
      const inside = insideWords(tok, fuzzy);
      const building = inside ? sql`(${buildingWord(lp)} OR ${buildingInside(w)})` : buildingWord(lp);
      const ownWord = sql.join(
        [
          nameCheck(tok.text, fuzzy),
          sql`(${sql.join(
            PLACE_COLUMNS.map((col) => sql`lower(${sql.ref(`x.${col}`)}) COLLATE "C" LIKE ${lp}`),
            sql` OR `,
          )}) AND ${invoiceWhole('x', w)}`,
        ],
        sql` OR `,
      );
      const unit = sql`lower(u.label) COLLATE "C" LIKE ${lp}`;
      return sql`(${own(ownWord)} OR ${placeOf(providerId, building, unit)})`;
    }
  }
}

/**
 * Whether one of customer `d.id`'s service places has a building (`b`) or unit (`u`) that meets the
 * condition. Per customer: one read of its subscriptions (with their locations), then a key lookup
 * of each one's building and unit (a unit is scoped by its subscription's provider). Not the word's
 * buildings or units read once and hashed: a label prefix can name a fifth of a million units
 * (bench/search/README.md).
 */
function placeOf(providerId: string, building: RawBuilder<unknown>, unit: RawBuilder<unknown>) {
  return sql`EXISTS (SELECT 1 FROM subscriptions s LEFT JOIN locations l ON l.id = s.location_id
                   WHERE s.subscriber_id = d.id AND s.provider_id = ${providerId}
                     AND (EXISTS (SELECT 1 FROM buildings b
                                  WHERE b.id IN (s.building_id, l.building_id) AND b.provider_id = ${providerId} AND ${building})
                       OR EXISTS (SELECT 1 FROM units u WHERE u.id IN (s.unit_id, l.unit_id) AND ${unit}))
                   OFFSET 0)`;
}

/** A search-document word as tsquery text (agent_search_doc_lexeme); `prefix`: every word it starts. */
const docLexeme = (lexeme: RawBuilder<unknown> | string, prefix: boolean) =>
  sql`agent_search_doc_lexeme(${lexeme}, ${sql.raw(prefix ? 'true' : 'false')})`;

/**
 * Where a document term is read: from the documents' index for a provider (`index`: a prefix as the
 * words of that provider's documents it starts, agent_search_doc_prefix, which the index reads without
 * gathering them all first) or tested on a document in hand (a prefix as it is).
 */
type TermUse = { index: string } | 'check';
const docPrefix = (lexeme: RawBuilder<unknown>, use: TermUse) =>
  use === 'check' ? docLexeme(lexeme, true) : sql`agent_search_doc_prefix(${use.index}::uuid, ${lexeme})`;

/**
 * Whether a word narrows the search document's index: a word of one character starts too many of its
 * words ("1": every house number, postal code and unit label that starts with 1) and is only checked
 * on the candidates the others find.
 */
const narrows = (tok: SearchToken) => tok.kind === 'word' && [...tok.text].length >= 2;

/**
 * The one folded word a query word is, as the invoice address's whole words are kept ('iw:'); null
 * when it folds to several or none ("Karl-Marx": a run of words, which only a check can tell).
 */
const oneFoldedWord = (tok: SearchToken) => {
  const folded = foldStreet(tok.text.toLowerCase());
  return /^[^ ]+$/.test(folded) ? folded : null;
};

/**
 * Whether a word's document term says exactly what tokenMatches says of it, so the candidates need no
 * check of that word: in the exact pass, a word that narrows and folds to one word (its names whole,
 * its places by prefix, its invoice address by prefix and whole word: agent_search_invoice_lexemes).
 */
const exactTerm = (tok: SearchToken, fuzzy: boolean) => !fuzzy && narrows(tok) && oneFoldedWord(tok) !== null;

/** A word's first folded word, as the start of a word inside a street, building name or city ('w:'). */
const insideTerm = (tok: SearchToken & { kind: 'word' }, use: TermUse) =>
  docPrefix(sql`'w:' || split_part(agent_search_fold_street(${tok.text.toLowerCase()}), ' ', 1)`, use);

/**
 * A word's service-place and name terms of docTerm ('f:', fuzzy 'w:', 'n:'). In the exact pass they
 * say exactly what tokenMatches says of the service places and names: a field the word prefixes, as
 * `lower(field) LIKE 'word%'` (the document holds only the customer's provider's places, as the
 * check reads them), and every name word whole.
 */
function placeAndNameTerms(tok: SearchToken & { kind: 'word' }, fuzzy: boolean, use: TermUse): RawBuilder<unknown>[] {
  const terms = [docPrefix(sql`'f:' || lower(${streetStem(tok.text)})`, use)];
  if (insideWords(tok, fuzzy)) terms.push(insideTerm(tok, use));
  const names = wordNames(tok.text);
  const [name] = names;
  if (name !== undefined) {
    const keys = fuzzy && names.length === 1 ? typoKeys(name) : names;
    const joined = sql.join(
      keys.map((k) => docLexeme(`n:${k}`, false)),
      sql` || ${fuzzy && names.length === 1 ? ' | ' : ' & '} || `,
    );
    terms.push(sql`'(' || ${joined} || ')'`);
  }
  return terms;
}

/**
 * What a word can match in the search document (search_documents, agent_search_doc), as tsquery text:
 * - every service-place field it prefixes ('f:', as `lower(field) LIKE 'word%'`);
 * - its name words whole ('n:'; fuzzy, one name word: any of its typo keys);
 * - an invoice-address field it prefixes ('i:') that it also names whole: the house number, or its
 *   digits, the postal code, or a word ('ih:', 'ihd:', 'ip:', 'iw:', as agent_search_word_names_invoice;
 *   the same in both passes);
 * - (fuzzy) a word inside a street, building name or city that it starts ('w:').
 * Every customer tokenMatches keeps has these words, so the index finds a superset of the matches,
 * and for an exactTerm word exactly its matches.
 */
function docTerm(tok: SearchToken & { kind: 'word' }, fuzzy: boolean, use: TermUse): RawBuilder<unknown> {
  const stem = sql`lower(${streetStem(tok.text)})`;
  const terms = placeAndNameTerms(tok, fuzzy, use);
  // The invoice address: the word as agent_search_word_names_invoice reads it (lower-cased here). A
  // word that folds to several is whole where each of its words is a whole word of the address, so
  // its first one stands for it; one that folds to none is left to the check.
  const w = tok.text.toLowerCase();
  const whole = foldStreet(w).split(' ').find(Boolean);
  const invoicePrefix = docPrefix(sql`'i:' || ${stem}`, use);
  if (whole === undefined) terms.push(invoicePrefix);
  else {
    const named = [`ih:${w}`, ...(/^[0-9]+$/.test(w) ? [`ihd:${w}`] : []), `ip:${w}`, `iw:${whole}`];
    terms.push(
      sql`'(' || ${invoicePrefix} || ' & (' || ${sql.join(
        named.map((l) => docLexeme(l, false)),
        sql` || ' | ' || `,
      )} || '))'`,
    );
  }
  return sql`'(' || ${sql.join(terms, sql` || ' | ' || `)} || ')'`;
}

/**
 * Whether several words read their candidates from the search document: each a word (a phone, email
 * or customer number drives by its own index), and one at least that narrows it.
 */
const readsDocument = (plan: SearchPlan, via: Candidates): boolean =>
  via === 'document' &&
  plan.kind === 'tokens' &&
  plan.tokens.length > 1 &&
  plan.tokens.every((t) => t.kind === 'word') &&
  plan.tokens.some(narrows);

/**
 * The customers whose search document holds the terms (docTerm) of the words that narrow, read
 * through search_documents_keyed_idx (each word led by the provider's key, agent_search_doc_keyed:
 * the scan reads this provider's entries only), each then checked as `check` says of each token. The
 * terms are computed once, before the scan (a materialized CTE: they read search_doc_words). A term
 * that stays a prefix (more than 32 words start it, agent_search_doc_prefix: "12") is left out of the
 * index's query where another term is whole words: the GIN scan gathers a prefix's every entry
 * before it ANDs them, and does not stop for the time bound meanwhile ("Hauptstrase 12"),
 * while the other terms narrow the candidates enough to test it on each document in hand. `kept(k)`
 * says whether the k-th narrowing word's term was in the index's query (SQL, for the checks).
 */
function docCandidates(
  providerId: string,
  tokens: SearchToken[],
  fuzzy: boolean,
  checks: (kept: (k: number) => RawBuilder<unknown>) => RawBuilder<unknown>[],
): RawBuilder<unknown> {
  const kept = (k: number) => sql`${k + 1}::bigint IN (SELECT ord FROM kept)`;
  // OFFSET 0: the checks test each candidate's document in hand. Without it the planner takes them
  // into the index scan as well (a BitmapOr of the candidates' query with each check's), and a word
  // of one character, which does not narrow the index, is read through it: every house number
  // starting with 1, 0.6 s for "1 Main Street" at 10M.
  return sql`WITH ${docTerms(providerId, tokens, fuzzy)}
    SELECT d.id FROM (
      SELECT subscriber_id AS id, doc FROM search_documents
      WHERE agent_search_doc_keyed(provider_id, doc) @@ agent_search_doc_keyed_query(${providerId}, (${KEPT_QUERY}))
        AND provider_id = ${providerId}
      OFFSET 0) d
    WHERE ${sql.join(checks(kept), sql` AND `)}`;
}

/** The narrowing words' terms (`terms`: q, ord, gathers) and those the index's query keeps (`kept`), as CTEs. */
function docTerms(providerId: string, tokens: SearchToken[], fuzzy: boolean) {
  const words = tokens.filter(narrows) as (SearchToken & { kind: 'word' })[];
  const terms = sql.join(words.map((t) => sql`(${docTerm(t, fuzzy, { index: providerId })})::text`));
  return sql`terms AS MATERIALIZED (
      SELECT q, ord, position(':*' IN q) > 0 AS gathers FROM unnest(ARRAY[${terms}]) WITH ORDINALITY u(q, ord)),
    kept AS MATERIALIZED (SELECT q, ord FROM terms WHERE NOT gathers OR NOT EXISTS (SELECT 1 FROM terms WHERE NOT gathers))`;
}
const KEPT_QUERY = sql`SELECT string_agg(q, ' & ' ORDER BY ord) FROM kept`;

/** The documents' index query of a plan's word pass (tests): the kept terms, ANDed. */
export const docIndexQuery = (providerId: string, plan: SearchPlan & { kind: 'tokens' }, fuzzy: boolean) =>
  sql<{ q: string }>`WITH ${docTerms(providerId, plan.tokens, fuzzy)} SELECT (${KEPT_QUERY}) AS q`;

/** Whether candidate `d`'s search document holds a word's term (docTerm): a test of the row in hand, no read. */
const docHolds = (tok: SearchToken & { kind: 'word' }, fuzzy: boolean) => sql`d.doc @@ (${docTerm(tok, fuzzy, 'check')})::tsquery`;

/**
 * Whether candidate `d` (a row of docCandidates) has the word, as tokenMatches says, read from its
 * search document where the document says it exactly:
 * - a word that folds to one word: its exact term (exactTerm's reasoning holds for a word of one
 *   character too: the document's prefixes start with it as the fields' LIKE does). In the third pass
 *   also one typo in its name word, against the document's name words ('n:' without the typo keys
 *   '~'), and a word inside a street, building name or city, checked on the customer's places where
 *   the document has a word it starts ('w:' holds more words than that check reads);
 * - any other word (a run of words, "Karl-Marx", "Main Street"): in the exact pass, a service place
 *   or the names its document says it names (placeAndNameTerms); else tokenMatches, on the candidates
 *   whose document has its (wider) term: the invoice address must hold it whole.
 */
function docCheck(providerId: string, tok: SearchToken, fuzzy: boolean): RawBuilder<unknown> {
  if (tok.kind !== 'word') return tokenMatches(providerId, tok, fuzzy);
  if (oneFoldedWord(tok) === null) {
    const checked = sql`(${docHolds(tok, fuzzy)} AND ${tokenMatches(providerId, tok, fuzzy)})`;
    if (fuzzy) return checked;
    // Only an invoice-address match needs the check ("Main Street": most candidates live there).
    const placeOrName = sql`'(' || ${sql.join(placeAndNameTerms(tok, false, 'check'), sql` || ' | ' || `)} || ')'`;
    return sql`(d.doc @@ (${placeOrName})::tsquery OR ${checked})`;
  }
  if (!fuzzy) return docHolds(tok, false);
  const either = [docHolds(tok, false)];
  const names = wordNames(tok.text);
  const [name] = names;
  if (names.length === 1 && name !== undefined && [...name].length >= 5)
    either.push(sql`EXISTS (SELECT 1 FROM unnest(d.doc) n
      WHERE n.lexeme LIKE 'n:%' AND n.lexeme NOT LIKE 'n:~%' AND agent_search_name_word_matches(${name}, substr(n.lexeme, 3), true))`);
  if (insideWords(tok, fuzzy))
    either.push(sql`(d.doc @@ (${insideTerm(tok, 'check')})::tsquery
      AND ${placeOf(providerId, buildingInside(tok.text.toLowerCase()), sql`false`)})`);
  return sql`(${sql.join(either, sql` OR `)})`;
}

/**
 * How several words find their candidates: 'document' through the search document's index where a
 * word narrows it (docCandidates), else 'driver' (the smallest word's set); tests compare the two.
 */
export type Candidates = 'document' | 'driver';

function matchedIds(providerId: string, plan: SearchPlan, fuzzy: boolean, driver: number, via: Candidates): RawBuilder<unknown> {
  switch (plan.kind) {
    case 'phone':
      return phoneBranch(providerId, plan.e164);
    case 'email':
      return emailBranch(providerId, plan.address);
    case 'customer_number':
      return numberBranch(providerId, plan.number);
    case 'tokens': {
      // Every token must match some field: the customers the search document finds with all of
      // them, each checked for every token; else the driver's set, each checked for the others.
      if (readsDocument(plan, via)) {
        // A word whose term says exactly what its check says is checked only where its term was
        // left out of the index's query.
        const narrowing = plan.tokens.filter(narrows);
        return docCandidates(providerId, plan.tokens, fuzzy, (kept) =>
          plan.tokens.map((t) =>
            exactTerm(t, fuzzy) && t.kind === 'word'
              ? sql`(${kept(narrowing.indexOf(t))} OR ${docHolds(t, false)})`
              : docCheck(providerId, t, fuzzy),
          ),
        );
      }
      const others = plan.tokens.filter((_, i) => i !== driver);
      const driving = present(plan.tokens[driver], 'the driving token');
      if (others.length === 0) return tokenSet(providerId, driving, fuzzy);
      return sql`SELECT d.id FROM (${tokenSet(providerId, driving, fuzzy)}) d
        WHERE ${sql.join(
          others.map((t) => tokenMatches(providerId, t, fuzzy)),
          sql` AND `,
        )}`;
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
  rows_read: string | number;
}

/** Rows of a match set read per possible match: a customer can be found through several fields. */
const READ_PER_MATCH = 4;

/**
 * How many rows of the match set a pass reads at most: (`cap` + 1) × READ_PER_MATCH, or `cap` + 1
 * where the candidates are search documents (one a customer: a match set of distinct ids).
 */
const readBound = (plan: SearchPlan, via: Candidates, cap: number) => (cap + 1) * (readsDocument(plan, via) ? 1 : READ_PER_MATCH);

/**
 * The SQL the search runs (also used by EXPLAIN in tests); `driver`: the token whose set is read in
 * full. At most readBound rows of the match set are read (UNION ALL: a customer found through
 * several fields comes once per field), then made distinct; a read that reaches that bound counts as
 * more than `cap` matches.
 */
export function searchSql(
  providerId: string,
  plan: SearchPlan,
  limit: number,
  fuzzy: boolean,
  driver = 0,
  cap = 1000,
  via: Candidates = 'document',
) {
  const bound = readBound(plan, via, cap);
  const tok = plan.kind === 'tokens' && plan.tokens.length === 1 ? plan.tokens[0] : undefined;
  // One word: its names are read first, up to `cap` + 1 (one row per customer). Past the cap the
  // count is settled and its places are not read: the name rows are the expensive ones (a heap
  // page and, with a typo, a word check per row), and (cap + 1) × READ_PER_MATCH of them cost a
  // fuzzy "Schmdt" 100 ms (bench/README.md, round 10).
  const r =
    tok?.kind === 'word'
      ? (() => {
          const w = wordParts(providerId, tok, fuzzy);
          const places = sql.join(
            [...w.own.slice(1), viaBuildings(providerId, w.buildingIds), viaUnits(providerId, w.unitIds)],
            sql` UNION ALL `,
          );
          return sql`n AS MATERIALIZED (SELECT id FROM (${w.own[0]}) n0 LIMIT ${cap + 1}),
          r AS MATERIALIZED (SELECT id FROM (SELECT id FROM n UNION ALL
            SELECT id FROM (${places}) p0 WHERE (SELECT count(*) FROM n) <= ${cap}) m0 LIMIT ${bound}),
          rn AS (SELECT CASE WHEN (SELECT count(*) FROM n) > ${cap} THEN ${bound} ELSE (SELECT count(*) FROM r) END AS n)`;
        })()
      : sql`r AS MATERIALIZED (SELECT id FROM (${matchedIds(providerId, plan, fuzzy, driver, via)}) m0 LIMIT ${bound}),
          rn AS (SELECT count(*) AS n FROM r)`;
  return sql<SearchRow>`
    WITH ${r},
    m AS (SELECT DISTINCT id FROM r)
    SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number, count(*) OVER () AS total,
      (SELECT n FROM rn) AS rows_read
    FROM m CROSS JOIN LATERAL (
      -- LIMIT 1 keeps this a per-id primary-key lookup (the matched set is small; a hash join
      -- would read the whole table instead)
      SELECT id, first_name, last_name, email, phone, customer_number FROM subscribers
      WHERE id = m.id AND provider_id = ${providerId} LIMIT 1) s
    ORDER BY lower(s.last_name), lower(s.first_name), s.id
    LIMIT ${limit}`;
}

/**
 * Each token's size (countedSize), read up to `cap` + 1. Sets past the cap tie, and the first of
 * them drives. 0: the token matches nothing.
 */
async function tokenSizes(db: Executor, providerId: string, tokens: SearchToken[], cap: number, fuzzy: boolean): Promise<number[]> {
  const cols = tokens.map((t, i) => sql`${countedSize(providerId, t, cap, fuzzy)} AS ${sql.ref(`n${i}`)}`);
  const r = await sql<Record<string, string | number>>`SELECT ${sql.join(cols)}`.execute(db);
  const row = firstRow(r.rows);
  return tokens.map((_, i) => Number(row[`n${i}`]));
}

/** The index of the token with the smallest set (the first of equals). */
export function pickDriver(sizes: number[]): number {
  return sizes.reduce((best, n, i) => (n < present(sizes[best], 'the smallest size so far') ? i : best), 0);
}

/**
 * The token whose set is read in full: the one with the fewest rows (sets measured up to
 * `cap` rows, ESTIMATE_CAP unless a test asks for less); null when some token matches nothing
 * (then nothing matches).
 */
export async function chooseDriver(
  db: Executor,
  providerId: string,
  plan: SearchPlan,
  fuzzy: boolean,
  cap = ESTIMATE_CAP,
  via: Candidates = 'document',
): Promise<number | null> {
  if (plan.kind !== 'tokens' || plan.tokens.length < 2 || readsDocument(plan, via)) return 0;
  const sizes = await tokenSizes(db, providerId, plan.tokens, cap, fuzzy);
  if (sizes.some((n) => n === 0)) return null;
  return pickDriver(sizes);
}

/** A word pass (exact, or `fuzzy`: one typo in a name word, place words inside streets). */
export async function searchSubscribers(
  db: Executor,
  providerId: string,
  plan: SearchPlan,
  limit: number,
  fuzzy: boolean,
  cap: number,
  beforeStatement: () => Promise<void>,
  via: Candidates = 'document',
) {
  // Only several tokens the search document cannot narrow are measured (one statement); one token,
  // or the document's candidates, need no measuring.
  if (plan.kind === 'tokens' && plan.tokens.length >= 2 && !readsDocument(plan, via)) await beforeStatement();
  const driver = await chooseDriver(db, providerId, plan, fuzzy, ESTIMATE_CAP, via);
  if (driver === null) return { rows: [] as SearchRow[], total: 0 };
  await beforeStatement();
  const r = await searchSql(providerId, plan, limit, fuzzy, driver, cap, via).execute(db);
  const [top] = r.rows;
  if (!top) return { rows: r.rows, total: 0 };
  const readAll = Number(top.rows_read) < readBound(plan, via, cap);
  return { rows: r.rows, total: readAll ? Number(top.total) : Math.max(cap + 1, Number(top.total)) };
}

/**
 * Runs a whole search in one read transaction with JIT off (its statements are planned for
 * thousands of rows, far above jit_above_cost: JIT compiled "Anna Hamburg" for 0.77 s to run it in
 * 0.2 s). `fn` gets a setter for the statement_timeout of the statements that follow (local to the
 * transaction: the pooled connection keeps its own). `embedded`: no transaction and no setting (the
 * embedded database has no JIT and never fires statement_timeout): each statement holds its one
 * connection alone, so other requests run between them.
 */
export function inSearchTransaction<T>(
  db: Executor,
  embedded: boolean,
  fn: (ex: Executor, setTimeout: (ms: number) => Promise<void>) => Promise<T>,
): Promise<T> {
  if (embedded) return fn(db, async () => undefined);
  // JIT and parallel workers are switched off with each timeout (one statement): a cancelled
  // parallel plan ("1A": a parallel scan of the subscriptions) answered 20-40 ms past its timeout.
  // work_mem as agent_customer_search's: a common name's bitmap stays exact (a lossy one checks
  // every row of its pages through the name function again, and a GIN scan is not interrupted).
  // Custom plans always: every statement is prepared by its text (db/prepared.ts), and after five
  // runs of one text PostgreSQL may keep a generic plan, which cannot read a word's LIKE prefix as an
  // index range: "Karl-Marx" after four "Main Street" read a provider's every invoice street, 1.1 s
  // at 10M customers, instead of 95 ms (bench/README.md).
  const setTimeoutMs = (ex: Executor) => async (ms: number) => {
    await sql`SELECT set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true),
      set_config('work_mem', '16MB', true), set_config('plan_cache_mode', 'force_custom_plan', true),
      set_config('statement_timeout', ${String(Math.max(1, Math.floor(ms)))}, true)`.execute(ex);
  };
  return db.isTransaction ? fn(db, setTimeoutMs(db)) : db.transaction().execute((trx) => fn(trx, setTimeoutMs(trx)));
}
