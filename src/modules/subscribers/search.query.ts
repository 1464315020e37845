// Classifying a free-text customer search, free of I/O. A plan is answered in up to three passes,
// each only when the one before found nothing: the probes (structuredProbes: the query read as a
// phone, email, customer number, name, address or name plus place), then every word against every
// field, then the same with one typo allowed in a name word and place words inside a street.
// The matching rules (docs/decisions.md "Safety"): phone, email and customer number only in full,
// name words whole, street, building, unit and city words by prefix.
import { parsePhoneNumber } from 'awesome-phonenumber';
import { foldWord } from './search.fold.js';
import { group, present } from '../../lib/present.js';

export type SearchToken =
  | { kind: 'email'; text: string }
  | { kind: 'customer_number'; text: string }
  | { kind: 'phone'; text: string; e164: string[] }
  | { kind: 'word'; text: string };

export type SearchPlan =
  | { kind: 'phone'; e164: string[] }
  | { kind: 'email'; address: string }
  | { kind: 'customer_number'; number: string }
  | { kind: 'tokens'; tokens: SearchToken[] };

const MAX_TOKENS = 6;

// Words a caller says around a unit or an address that match no field ("unit 4B", "Whg. 3").
export const STOP_WORDS = new Set([
  'unit',
  'apt',
  'apartment',
  'suite',
  'ste',
  'flat',
  'no',
  'nr',
  'number',
  'whg',
  'wohnung',
  'app',
  'appartement',
  'einheit',
  'etage',
  'floor',
  'und',
  'and',
  'in',
  'at',
  'the',
]);

const PHONE_CHARS = /^[+\d\s()./-]+$/;
const CUSTOMER_NUMBER = /^([A-Za-z]{4})-?(\d{4})$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const digitsOf = (s: string) => s.replace(/\D/g, '');

/**
 * The whole E.164 numbers a typed phone number may stand for: international input as is; national
 * input read in each of the provider's countries, or as international without "+". Only a number
 * of a possible length counts: a part of a number stands for none (it must match nothing).
 */
function phoneNumbers(input: string, regions: string[]): string[] {
  const out = new Set<string>();
  const trimmed = input.trim();
  const digits = digitsOf(trimmed);
  if (digits.length === 0) return [];
  const consider = (text: string, regionCode?: string) => {
    const p = parsePhoneNumber(text, regionCode ? { regionCode } : undefined);
    if (p.number?.e164 && (p.valid || p.possible)) out.add(p.number.e164);
  };
  if (trimmed.startsWith('+')) consider(`+${digits}`);
  else if (digits.startsWith('00')) consider(`+${digits.slice(2)}`);
  else {
    for (const r of regions) consider(trimmed, r);
    if (!digits.startsWith('0')) consider(`+${digits}`);
  }
  return [...out];
}

/** A name word as the name index holds it (agent_search_name_words): folded (search.fold.ts), without the index's typo marker. */
export const nameWord = (w: string) => foldWord(w).replace(/~/g, '');

function tokenOf(raw: string, regions: string[]): SearchToken | null {
  let t = raw.replace(/^#+/, '').replace(/[.,;:]+$/, '');
  if (t.length === 0) return null;
  if (STOP_WORDS.has(t.toLowerCase())) return null;
  if (t.includes('@')) return { kind: 'email', text: t.toLowerCase() };
  const cn = CUSTOMER_NUMBER.exec(t);
  if (cn) return { kind: 'customer_number', text: `${group(cn, 1).toUpperCase()}-${group(cn, 2)}` };
  if (PHONE_CHARS.test(t) && digitsOf(t).length >= 6) return { kind: 'phone', text: t, e164: phoneNumbers(t, regions) };
  t = t.replace(/^[("']+|[)"']+$/g, '');
  return t.length ? { kind: 'word', text: t } : null;
}

/** Decides how a query is matched. `regions`: ISO countries the provider serves (phone parsing). */
export function planSearch(q: string, regions: string[]): SearchPlan {
  const text = q.trim().replace(/\s+/g, ' ');
  if (PHONE_CHARS.test(text) && digitsOf(text).length >= 6) return { kind: 'phone', e164: phoneNumbers(text, regions) };
  // Spaces typed around "@", "." or "-" ("erika . a @ example.com", "ABCD - 1234") are no part of the value.
  const compact = text.replace(/\s*([@.-])\s*/g, '$1');
  if (EMAIL.test(compact)) return { kind: 'email', address: compact.toLowerCase() };
  const cn = CUSTOMER_NUMBER.exec(compact);
  if (cn) return { kind: 'customer_number', number: `${group(cn, 1).toUpperCase()}-${group(cn, 2)}` };
  const tokens: SearchToken[] = [];
  for (const raw of text.split(/[\s,;]+/)) {
    const tok = tokenOf(raw, regions);
    if (tok && !tokens.some((x) => x.kind === tok.kind && x.text.toLowerCase() === tok.text.toLowerCase())) tokens.push(tok);
  }
  // Only stop words ("unit 4"): search the text as one word rather than nothing.
  if (tokens.length === 0) tokens.push({ kind: 'word', text });
  return { kind: 'tokens', tokens: tokens.slice(0, MAX_TOKENS) };
}

/** Whether word `w` is the letter of house number `prev` ("12 a": 12a). */
const houseLetter = (prev: string, w: string) => /^\d+$/.test(prev) && /^\p{L}$/u.test(w);

/**
 * Words that name a street's kind after its name ("Main Street", "Queen St", "Berliner Str."). Alone
 * such a word starts no field (no street starts with "Street"), and inside streets it is every street
 * of its kind.
 */
const STREET_KINDS = new Set(
  (
    'street st avenue ave av road rd drive dr lane ln boulevard blvd way court ct place pl crescent cres terrace ' +
    'parkway pkwy highway hwy square sq straße strasse str weg allee platz gasse ring damm ufer chaussee'
  ).split(' '),
);

/**
 * The words as the word passes read them, as the first pass does: a house number and the one letter
 * after it are one word ("7 a": 7a), and a street's kind with the word before it ("Main Street",
 * "Queen St"): a run of words the street field starts with, which must name the street whole on the
 * invoice address (agent_search_word_whole reads a run of words as one). Apart, "7 a Berlin" was a
 * field starting with 7 and another with a, and "Main Street" any field starting with main (the city
 * "Frankfurt am Main" too) and, in the third pass, any street with "Street" in it.
 */
export function wordPassPlan(plan: SearchPlan): SearchPlan {
  if (plan.kind !== 'tokens') return plan;
  const out: SearchToken[] = [];
  for (const tok of plan.tokens) {
    const prev = out[out.length - 1];
    if (prev?.kind === 'word' && tok.kind === 'word' && !prev.text.includes(' ')) {
      const house = houseLetter(prev.text, tok.text);
      if (house || STREET_KINDS.has(tok.text.toLowerCase())) {
        out[out.length - 1] = { kind: 'word', text: house ? `${prev.text}${tok.text}` : `${prev.text} ${tok.text}` };
        continue;
      }
    }
    out.push(tok);
  }
  return { kind: 'tokens', tokens: out };
}

/** Escapes LIKE wildcards so user text is matched literally (the default escape is backslash). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One index-backed reading of the query (the first pass); see migrations/functions/agent_customer_search.sql. */
export type Probe =
  | { kind: 'phone' | 'email' | 'number'; key: string }
  | { kind: 'name'; names: string[] }
  | { kind: 'address'; key: string; house: string; names?: string[]; tokens: string[] }
  | { kind: 'name_location'; names: string[]; tokens: string[] };

/** Most words a name may have in a probe (longer word lists are not read as a name). */
const MAX_NAME_WORDS = 4;
/** Most leading words read as a name in front of a street ("Erika Mustermann Sonnenweg 7"). */
const MAX_NAME_BEFORE_STREET = 2;
/** Most place words (unit, postal code, city) a probe carries (agent_customer_search takes four). */
const MAX_PLACE_WORDS = 4;

const startsWithDigit = (w: string) => /^\d/.test(w);
/** The name words of a query's words, as the name index splits them ("Meyer-Schulz": two). */
const nameWords = (words: string[]) => [...new Set(words.flatMap((w) => nameWord(w).split(/[\s,./-]+/)).filter(Boolean))];

/** "12 a" is one house number ("12a"). */
function mergeHouseLetters(words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    if (prev !== undefined && houseLetter(prev, w)) out[out.length - 1] = `${prev}${w}`;
    else out.push(w);
  }
  return out;
}

/**
 * The first pass: the readings of q that index lookups answer.
 * - phone / email / customer number: the whole value.
 * - words without digits: a name (every word a whole word of the contact's or invoice contact's
 *   names, in any order).
 * - words with a house number: "[name] street house [unit, postal code, city]" on the service
 *   building or the invoice address (the street may have several words), the North American
 *   "house street [...]", and "name [house, unit, postal code, city ...]" (a name narrowed by its
 *   place: "Erika Mustermann 4B").
 * An empty list means the query has no such reading (the second pass answers it).
 */
export function structuredProbes(plan: SearchPlan): Probe[] {
  switch (plan.kind) {
    case 'phone':
      return plan.e164.map((key) => ({ kind: 'phone' as const, key }));
    case 'email':
      return [{ kind: 'email', key: plan.address }];
    case 'customer_number':
      return [{ kind: 'number', key: plan.number }];
    case 'tokens':
      break;
  }
  if (plan.tokens.some((t) => t.kind !== 'word')) return [];
  const words = mergeHouseLetters(plan.tokens.map((t) => t.text));
  const h = words.findIndex(startsWithDigit);
  if (h === -1) {
    if (words.length > MAX_NAME_WORDS) return [];
    const names = nameWords(words);
    return names.length ? [{ kind: 'name', names }] : [];
  }
  const probes: Probe[] = [];
  const house = present(words[h], 'the house number word');
  const houseDigits = /^\d+/.exec(house)![0];
  const before = words.slice(0, h);
  const after = words.slice(h + 1);
  // [name] street house [place words]
  for (let k = 0; k <= Math.min(MAX_NAME_BEFORE_STREET, before.length - 1); k++) {
    probes.push({
      kind: 'address',
      key: `${before.slice(k).join(' ')} ${houseDigits}`,
      house,
      tokens: after,
      ...(k > 0 ? { names: nameWords(before.slice(0, k)) } : {}),
    });
  }
  // house street [place words]
  if (h === 0) {
    // The words before the first one that starts with a digit (all of them when none does).
    const digitAt = after.findIndex(startsWithDigit);
    const run = digitAt === -1 ? after.length : digitAt;
    for (let j = 1; j <= run; j++) {
      probes.push({ kind: 'address', key: `${after.slice(0, j).join(' ')} ${houseDigits}`, house, tokens: after.slice(j) });
    }
  }
  // name, then its place
  if (before.length >= 1 && before.length <= MAX_NAME_WORDS && nameWords(before).length) {
    probes.push({ kind: 'name_location', names: nameWords(before), tokens: words.slice(h) });
  }
  return probes.filter((p) => !('tokens' in p) || p.tokens.length <= MAX_PLACE_WORDS);
}

/**
 * The name-index keys that can meet a name word within one typo of `w` (see
 * migrations/functions/agent_search_name_keys.sql): the word, the word as a deleted form ('~' + w: a
 * letter missing from w), w less one letter (an extra letter in w), and those marked '~' (a
 * substituted or swapped letter). Words under 5 letters get no typo.
 */
export function typoKeys(w: string): string[] {
  const word = nameWord(w);
  if ([...word].length < 5) return [word];
  const chars = [...word];
  const dels = chars.map((_, i) => [...chars.slice(0, i), ...chars.slice(i + 1)].join(''));
  return [...new Set([word, `~${word}`, ...dels, ...dels.map((d) => `~${d}`)])];
}
