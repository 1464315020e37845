import { group } from '../../lib/present.js';
// Address text rules shared by the coverage index (what is stored) and the queries (what is typed),
// so "12a", "12 A" and "12-a" are one house number everywhere.

/** "12a", "12 A", "12-a" → "12A"; ranges and other forms are kept upper-cased without spaces. */
export function normalizeHouseNumber(raw: string): string {
  return raw
    .normalize('NFC')
    .toUpperCase()
    .replace(/\s+/g, '')
    .replace(/^(\d+)-([A-Z])$/, '$1$2');
}

/**
 * The coverage search key: lower-case, punctuation to spaces, spaces collapsed, and a one-letter
 * house-number suffix fused to its number ("Hauptstraße 12 A, 10115 Berlin" → "hauptstraße 12a 10115 berlin").
 * Autocomplete applies the same function to what the user typed, then takes the prefix range.
 */
export function searchKey(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[,;:.()"']/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/(\d)[ -]([a-zà-ÿ])(?= |$)/g, '$1$2');
}

/** Postal code as compared: upper-case, no spaces or hyphens ("m5v 2t6" → "M5V2T6"). */
export const postalKey = (raw: string): string => raw.toUpperCase().replace(/[\s-]+/g, '');

/** Postal code as shown: German 5 digits as is, Canadian "A1A 1A1"; anything else trimmed. */
function formatPostalCode(raw: string): string {
  const k = postalKey(raw);
  if (CA_POSTCODE_EXACT.test(k)) return `${k.slice(0, 3)} ${k.slice(3)}`;
  return raw.trim();
}

// Canadian: letter-digit-letter digit-letter-digit; the letters D F I O Q U never occur, W and Z never lead.
const CA_LETTER = '[ABCEGHJ-NPRSTV-Z]';
const CA_FIRST = '[ABCEGHJ-NPRSTVXY]';
const CA_POSTCODE_EXACT = new RegExp(`^${CA_FIRST}\\d${CA_LETTER}\\d${CA_LETTER}\\d$`);
const CA_POSTCODE_IN_TEXT = new RegExp(`(?<![A-Za-z0-9])(${CA_FIRST}\\d${CA_LETTER})[ -]?(\\d${CA_LETTER}\\d)(?![A-Za-z0-9])`, 'i');
const DE_POSTCODE_IN_TEXT = /(?<![\dA-Za-z])(\d{5})(?![\dA-Za-z])/g;

interface RecognisedPostcode {
  postalCode: string;
  country: 'DE' | 'CA';
  /** The text with the postcode cut out. */
  rest: string;
}

/**
 * Finds a Canadian (A1A 1A1, space optional) or German (5 digits) postcode in free text. A Canadian
 * code settles the country, so a 5-digit Canadian house number is never taken for a German postcode;
 * of several 5-digit groups the last is the postcode (German addresses end "… 10115 Berlin").
 */
function recognisePostcode(text: string): RecognisedPostcode | null {
  const ca = CA_POSTCODE_IN_TEXT.exec(text);
  if (ca) {
    return {
      postalCode: `${group(ca, 1).toUpperCase()} ${group(ca, 2).toUpperCase()}`,
      country: 'CA',
      rest: `${text.slice(0, ca.index)} ${text.slice(ca.index + ca[0].length)}`,
    };
  }
  const de = [...text.matchAll(DE_POSTCODE_IN_TEXT)];
  const last = de.at(-1);
  if (!last) return null;
  const idx = last.index ?? 0;
  return { postalCode: group(last, 1), country: 'DE', rest: `${text.slice(0, idx)} ${text.slice(idx + last[0].length)}` };
}

// A house number as a word: digits, an optional range "12-14", an optional one-letter suffix that
// may stand apart ("12 A") but is not the first letter of a word ("12 Avenue Road").
const HOUSE_NUMBER_IN_TEXT = /(?<=^|[\s,])(\d+(?:\s*-\s*\d+)?(?:\s*-?\s*[A-Za-z](?![A-Za-zÀ-ÿ]))?)(?=[\s,]|$)/;

export interface ParsedFreeText {
  houseNumber: string | null; // normalised
  postalCode: string | null; // formatted
  country: 'DE' | 'CA' | null;
  /** Lower-cased street spellings to try: the words right before the number (German order) or right after it (North American order). */
  streetCandidates: string[];
  /** Lower-cased text of the part after the street (city, province), for tie-breaking. */
  locality: string;
}

const MAX_STREET_WORDS = 6;

/** Splits free text ("Hauptstraße 12 a, 10115 Berlin", "12A Main Street, Toronto ON M5V 2T6") into its parts. */
export function parseFreeTextAddress(input: string): ParsedFreeText {
  const text = input.normalize('NFC').replace(/\s+/g, ' ').trim();
  const pc = recognisePostcode(text);
  const rest = (pc ? pc.rest : text).replace(/\s+/g, ' ').trim();
  const hn = HOUSE_NUMBER_IN_TEXT.exec(rest);
  if (!hn) {
    return {
      houseNumber: null,
      postalCode: pc?.postalCode ?? null,
      country: pc?.country ?? null,
      streetCandidates: [],
      locality: rest.toLowerCase(),
    };
  }
  const start = hn.index;
  const end = start + hn[0].length;
  const before = rest.slice(0, start);
  const after = rest.slice(end);
  // Only the comma-separated segment holding the number can hold the street.
  const beforeSeg = before.slice(before.lastIndexOf(',') + 1);
  const commaAfter = after.indexOf(',');
  const afterSeg = commaAfter >= 0 ? after.slice(0, commaAfter) : after;
  const words = (s: string) =>
    s
      .split(' ')
      .map((w) => w.trim())
      .filter(Boolean);
  const candidates = new Set<string>();
  const bw = words(beforeSeg);
  for (let i = Math.max(0, bw.length - MAX_STREET_WORDS); i < bw.length; i++) candidates.add(bw.slice(i).join(' '));
  const aw = words(afterSeg);
  for (let i = 1; i <= Math.min(aw.length, MAX_STREET_WORDS); i++) candidates.add(aw.slice(0, i).join(' '));
  const streetCandidates = [...candidates].flatMap(streetVariants);
  const locality = (bw.length > 0 ? after : commaAfter >= 0 ? after.slice(commaAfter + 1) : '')
    .replace(/,/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return {
    houseNumber: normalizeHouseNumber(group(hn, 1)),
    postalCode: pc?.postalCode ?? null,
    country: pc?.country ?? null,
    streetCandidates: [...new Set(streetCandidates)],
    locality,
  };
}

/** Lower-cased spellings of one street: as written, without a trailing dot, German "str." spelled out. */
export function streetVariants(street: string): string[] {
  const s = street.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim();
  if (!s) return [];
  const out = new Set([s, s.replace(/\.$/, '')]);
  const m = /^(.*)(str\.?|strasse|straße)$/.exec(s);
  if (m) for (const v of ['straße', 'strasse', 'str.', 'str']) out.add(`${m[1]}${v}`);
  return [...out];
}

export interface CoverageAddressInput {
  street: string;
  houseNumber: string;
  postalCode?: string | null;
  city?: string | null;
  province?: string | null;
  country: string;
}

/**
 * The derived columns of a coverage_addresses row, for whoever loads coverage (operator import,
 * demo seed, tests): the display uses the normalised house number, so "12a" and "12 A" rows of one
 * building collapse into one suggestion.
 */
export function coverageColumns(a: CoverageAddressInput) {
  const country = a.country.toUpperCase();
  const houseNumberNorm = normalizeHouseNumber(a.houseNumber);
  const postal = a.postalCode ? formatPostalCode(a.postalCode) : null;
  const street = a.street.replace(/\s+/g, ' ').trim();
  const display =
    country === 'CA' || country === 'US'
      ? [`${houseNumberNorm} ${street}`, a.city, [a.province, postal].filter(Boolean).join(' ')].filter(Boolean).join(', ')
      : [`${street} ${houseNumberNorm}`, [postal, a.city].filter(Boolean).join(' ')].filter(Boolean).join(', ');
  return { house_number_norm: houseNumberNorm, postal_code: postal, country, display, search_key: searchKey(display) };
}
