// Classifying a free-text customer search, free of I/O. A plan is answered in up to three passes,
// each only when the one before found nothing: the probes (structuredProbes: the query read as a
// phone, email, customer number, name, address or name plus place, each one or two index ranges),
// then every word against every field (prefix ranges intersected), then trigrams (typos,
// substrings). bench/search/README.md has the design and its numbers.
import { parsePhoneNumber } from 'awesome-phonenumber';

export type SearchToken =
  | { kind: 'email'; text: string }
  | { kind: 'customer_number'; text: string }
  | { kind: 'phone'; text: string; e164Prefixes: string[] }
  | { kind: 'word'; text: string };

export type SearchPlan =
  | { kind: 'phone'; e164Prefixes: string[] }
  | { kind: 'email'; prefix: string }
  | { kind: 'customer_number'; prefix: string }
  | { kind: 'tokens'; tokens: SearchToken[] };

export const MAX_TOKENS = 6;

// Words a caller says around a unit or an address that match no field ("unit 4B", "Whg. 3").
const STOP_WORDS = new Set([
  'unit', 'apt', 'apartment', 'suite', 'ste', 'flat', 'no', 'nr', 'number', 'whg', 'wohnung', 'app', 'appartement',
  'einheit', 'etage', 'floor', 'und', 'and', 'in', 'at', 'the',
]);

const PHONE_CHARS = /^[+\d\s().\/-]+$/;
const CUSTOMER_NUMBER = /^([A-Za-z]{4})-?(\d{0,4})$/;
const FULL_CUSTOMER_NUMBER = /^[A-Za-z]{4}-?\d{4}$/;

const digitsOf = (s: string) => s.replace(/\D/g, '');

/**
 * E.164 prefixes a typed phone number may stand for: international input as is; national input
 * read in each of the provider's countries (a partial number stays a prefix).
 */
export function phonePrefixes(input: string, regions: string[]): string[] {
  const out = new Set<string>();
  const trimmed = input.trim();
  const digits = digitsOf(trimmed);
  if (digits.length === 0) return [];
  const consider = (text: string, regionCode?: string) => {
    const p = parsePhoneNumber(text, regionCode ? { regionCode } : undefined);
    const e164 = p.number?.e164;
    if (e164 && p.possibility !== 'too-long' && p.possibility !== 'invalid-country-code') out.add(e164);
  };
  if (trimmed.startsWith('+')) {
    consider(trimmed);
    out.add(`+${digits}`);
  } else if (digits.startsWith('00')) {
    consider(`+${digits.slice(2)}`);
    out.add(`+${digits.slice(2)}`);
  } else {
    for (const r of regions) consider(trimmed, r);
    // Typed with the country code but without "+".
    if (!digits.startsWith('0')) out.add(`+${digits}`);
  }
  return [...out];
}

function tokenOf(raw: string, regions: string[]): SearchToken | null {
  let t = raw.replace(/^#+/, '').replace(/[.,;:]+$/, '');
  if (t.length === 0) return null;
  if (STOP_WORDS.has(t.toLowerCase())) return null;
  if (t.includes('@')) return { kind: 'email', text: t };
  if (FULL_CUSTOMER_NUMBER.test(t)) {
    const m = CUSTOMER_NUMBER.exec(t)!;
    return { kind: 'customer_number', text: `${m[1].toUpperCase()}-${m[2]}` };
  }
  if (PHONE_CHARS.test(t) && digitsOf(t).length >= 6) return { kind: 'phone', text: t, e164Prefixes: phonePrefixes(t, regions) };
  t = t.replace(/^[("']+|[)"']+$/g, '');
  return t.length ? { kind: 'word', text: t } : null;
}

/** Decides how a query is matched. `regions`: ISO countries the provider serves (phone parsing). */
export function planSearch(q: string, regions: string[]): SearchPlan {
  const text = q.trim().replace(/\s+/g, ' ');
  if (PHONE_CHARS.test(text) && digitsOf(text).length >= 6) return { kind: 'phone', e164Prefixes: phonePrefixes(text, regions) };
  if (!text.includes(' ') && text.includes('@')) return { kind: 'email', prefix: text };
  const cn = CUSTOMER_NUMBER.exec(text);
  if (cn && (text.includes('-') || cn[2].length > 0)) {
    return { kind: 'customer_number', prefix: `${cn[1].toUpperCase()}-${cn[2]}` };
  }
  const tokens: SearchToken[] = [];
  for (const raw of text.split(/[\s,;]+/)) {
    const tok = tokenOf(raw, regions);
    if (tok && !tokens.some((x) => x.kind === tok.kind && x.text.toLowerCase() === tok.text.toLowerCase())) tokens.push(tok);
  }
  // Only stop words ("unit 4"): search the text as one word rather than nothing.
  if (tokens.length === 0) tokens.push({ kind: 'word', text });
  return { kind: 'tokens', tokens: tokens.slice(0, MAX_TOKENS) };
}

/** Escapes LIKE wildcards so user text is matched literally (the default escape is backslash). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One index-backed reading of the query (the first pass); see agent_customer_search in migration 1100. */
export type Probe =
  | { kind: 'phone' | 'email' | 'number' | 'name' | 'name_word'; key: string }
  | { kind: 'address'; key: string; house: string; name?: NameFilter; tokens: string[] }
  | { kind: 'name_location'; name: NameFilter; tokens: string[] };

/** The customer's name as said: a full-name prefix in either order, or one word (first or last name). */
export interface NameFilter { mode: 'full' | 'word'; key: string }

/** Most words a name may have in a probe (longer word lists are not read as a name). */
const MAX_NAME_WORDS = 4;
/** Most leading words read as a name in front of a street ("Erika Mustermann Sonnenweg 7"). */
const MAX_NAME_BEFORE_STREET = 2;
/** Most place words (unit, postal code, city) a probe carries (agent_customer_search takes four). */
const MAX_PLACE_WORDS = 4;

const startsWithDigit = (w: string) => /^\d/.test(w);
const nameFilter = (words: string[]): NameFilter =>
  words.length === 1 ? { mode: 'word', key: words[0] } : { mode: 'full', key: words.join(' ') };

/** "12 a" is one house number ("12a"). */
function mergeHouseLetters(words: string[]): string[] {
  const out: string[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    if (prev !== undefined && /^\d+$/.test(prev) && /^\p{L}$/u.test(w)) out[out.length - 1] = `${prev}${w}`;
    else out.push(w);
  }
  return out;
}

/**
 * The first pass: the readings of q that one or two index ranges answer.
 * - phone / email / customer number: their prefix ranges.
 * - words without digits: a name, a full-name prefix in either order ("Erika Mustermann",
 *   "Mustermann Erika"), or a first- or last-name prefix for one word.
 * - words with a house number: "[name] street house [unit, postal code, city]" on the service
 *   building or the invoice address (the street may have several words), the North American
 *   "house street [...]", and "name [house, unit, postal code, city ...]" (a name narrowed by its
 *   place: "Erika Mustermann 4B").
 * An empty list means the query has no such reading (the second pass answers it).
 */
export function structuredProbes(plan: SearchPlan): Probe[] {
  switch (plan.kind) {
    case 'phone':
      return plan.e164Prefixes.map((key) => ({ kind: 'phone' as const, key }));
    case 'email':
      return [{ kind: 'email', key: plan.prefix }];
    case 'customer_number':
      return [{ kind: 'number', key: plan.prefix }];
    case 'tokens':
      break;
  }
  if (plan.tokens.some((t) => t.kind !== 'word')) return [];
  const words = mergeHouseLetters(plan.tokens.map((t) => t.text));
  const h = words.findIndex(startsWithDigit);
  if (h === -1) {
    if (words.length > MAX_NAME_WORDS) return [];
    return [words.length === 1 ? { kind: 'name_word', key: words[0] } : { kind: 'name', key: words.join(' ') }];
  }
  const probes: Probe[] = [];
  const house = words[h];
  const houseDigits = /^\d+/.exec(house)![0];
  const before = words.slice(0, h);
  const after = words.slice(h + 1);
  // [name] street house [place words]
  for (let k = 0; k <= Math.min(MAX_NAME_BEFORE_STREET, before.length - 1); k++) {
    probes.push({
      kind: 'address', key: `${before.slice(k).join(' ')} ${houseDigits}`, house, tokens: after,
      ...(k > 0 ? { name: nameFilter(before.slice(0, k)) } : {}),
    });
  }
  // house street [place words]
  if (h === 0) {
    let run = 0;
    while (run < after.length && !startsWithDigit(after[run])) run++;
    for (let j = 1; j <= run; j++) {
      probes.push({ kind: 'address', key: `${after.slice(0, j).join(' ')} ${houseDigits}`, house, tokens: after.slice(j) });
    }
  }
  // name, then its place
  if (before.length >= 1 && before.length <= MAX_NAME_WORDS) {
    probes.push({ kind: 'name_location', name: nameFilter(before), tokens: words.slice(h) });
  }
  return probes.filter((p) => !('tokens' in p) || p.tokens.length <= MAX_PLACE_WORDS);
}
