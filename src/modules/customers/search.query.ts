// Classifying a free-text customer search, free of I/O. The repository turns the plan into
// index-backed prefix ranges; only when those find nothing does it fall back to trigrams.
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
