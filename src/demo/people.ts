import { parsePhoneNumber } from 'awesome-phonenumber';
import { customerNumber } from '../lib/ids.js';
import type { Rng } from './random.js';
import { present } from '../lib/present.js';

// Names of the volume customers. The named demo customers use surnames that are NOT in these
// lists, so a search for a named customer finds exactly the customer the document names.
const FIRST_DE = [
  'Lukas',
  'Mia',
  'Leon',
  'Emma',
  'Paul',
  'Hannah',
  'Jonas',
  'Sofia',
  'Felix',
  'Lea',
  'Maximilian',
  'Marie',
  'Elias',
  'Lena',
  'Noah',
  'Clara',
  'Ben',
  'Johanna',
  'Finn',
  'Luisa',
  'Moritz',
  'Greta',
  'Tim',
  'Frieda',
  'Jan',
  'Ida',
  'Karl',
  'Ella',
  'Oskar',
  'Mila',
  'Theo',
  'Lina',
  'Anton',
  'Nele',
  'Emil',
  'Paula',
  'Henri',
  'Charlotte',
  'David',
  'Jana',
];
const LAST_DE = [
  'Müller',
  'Schneider',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Schulz',
  'Hoffmann',
  'Koch',
  'Richter',
  'Klein',
  'Wolf',
  'Schröder',
  'Neumann',
  'Schwarz',
  'Zimmermann',
  'Braun',
  'Krüger',
  'Hofmann',
  'Hartmann',
  'Lange',
  'Schmitt',
  'Werner',
  'Krause',
  'Meier',
  'Lehmann',
  'Köhler',
  'Herrmann',
  'König',
  'Walter',
  'Mayer',
  'Huber',
  'Kaiser',
  'Fuchs',
  'Peters',
  'Lang',
  'Scholz',
  'Möller',
  'Weiß',
  'Jung',
  'Hahn',
  'Schubert',
  'Vogel',
  'Friedrich',
];
const FIRST_CA = [
  'Liam',
  'Olivia',
  'Ethan',
  'Chloe',
  'Lucas',
  'Ava',
  'Nathan',
  'Emily',
  'Owen',
  'Zoe',
  'Jacob',
  'Maya',
  'Logan',
  'Abigail',
  'Samuel',
  'Aria',
  'Mason',
  'Nora',
  'Wyatt',
  'Leah',
];
const LAST_CA = [
  'Tremblay',
  'Gagnon',
  'Roy',
  'Côté',
  'Bouchard',
  'Gauthier',
  'Morin',
  'Lavoie',
  'Fortin',
  'Gagné',
  'Smith',
  'Brown',
  'Wilson',
  'MacDonald',
  'Campbell',
  'Anderson',
  'Taylor',
  'Martin',
  'Thompson',
  'White',
];

export type Country = 'DE' | 'CA';

export function personName(rng: Rng, country: Country): { first: string; last: string } {
  return country === 'CA' ? { first: rng.pick(FIRST_CA), last: rng.pick(LAST_CA) } : { first: rng.pick(FIRST_DE), last: rng.pick(LAST_DE) };
}

const FOLD: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', é: 'e', è: 'e', ô: 'o', ç: 'c' };
const emailLocal = (s: string) =>
  s
    .toLowerCase()
    .replace(/[äöüßéèôç]/g, (c) => present(FOLD[c], `the folding of ${c}`))
    .replace(/[^a-z0-9]+/g, '');

const DE_MOBILE = ['151', '152', '157', '160', '162', '170', '171', '172', '175', '176', '177', '178', '179'];
const CA_AREA = ['416', '647', '437'];

const digits = (rng: Rng, n: number, firstMin = 0) =>
  String(rng.int(firstMin, 9)) + Array.from({ length: n - 1 }, () => rng.int(0, 9)).join('');

/** A phone number as a person would write it, in one of many formats; always a valid number. */
function writtenPhone(rng: Rng, country: Country): string {
  if (country === 'CA') {
    const area = rng.pick(CA_AREA);
    const ex = digits(rng, 3, 2);
    const line = digits(rng, 4);
    return rng.pick([
      `(${area}) ${ex}-${line}`,
      `${area}-${ex}-${line}`,
      `+1 ${area} ${ex} ${line}`,
      `${area}.${ex}.${line}`,
      `1-${area}-${ex}-${line}`,
    ]);
  }
  if (rng.chance(0.6)) {
    const pre = rng.pick(DE_MOBILE);
    const sub = digits(rng, 8, 1);
    return rng.pick([
      `+49 ${pre} ${sub}`,
      `0${pre} ${sub}`,
      `0${pre}-${sub}`,
      `+49 (0)${pre} ${sub.slice(0, 4)} ${sub.slice(4)}`,
      `0049 ${pre} ${sub}`,
      `0${pre}/${sub.slice(0, 3)} ${sub.slice(3)}`,
    ]);
  }
  const sub = digits(rng, 8, 2);
  return rng.pick([`030 ${sub}`, `(030) ${sub}`, `+49 30 ${sub}`, `030/${sub.slice(0, 4)} ${sub.slice(4)}`, `+49-30-${sub}`]);
}

function toE164(phone: string, country: Country): string | null {
  const parsed = parsePhoneNumber(phone, { regionCode: country });
  return parsed.valid ? parsed.number.e164 : null;
}

/** Hands out unique phones, customer numbers and emails across the whole dataset. */
export function createUniques(rng: Rng) {
  const phones = new Set<string>();
  const numbers = new Set<string>();
  const emails = new Set<string>();
  return {
    phone(country: Country): { phone: string; phone_e164: string } {
      for (;;) {
        const phone = writtenPhone(rng, country);
        const e164 = toE164(phone, country);
        if (e164 && !phones.has(e164)) {
          phones.add(e164);
          return { phone, phone_e164: e164 };
        }
      }
    },
    /** A fixed phone (named customers); its E.164 form is reserved. */
    fixedPhone(phone: string, country: Country): { phone: string; phone_e164: string } {
      const e164 = toE164(phone, country);
      if (!e164 || phones.has(e164)) throw new Error(`demo phone not valid or not unique: ${phone}`);
      phones.add(e164);
      return { phone, phone_e164: e164 };
    },
    customerNumber(): string {
      for (;;) {
        const n = customerNumber();
        if (!numbers.has(n)) {
          numbers.add(n);
          return n;
        }
      }
    },
    email(first: string, last: string, domain = 'example.com'): string {
      const base = `${emailLocal(first)}.${emailLocal(last)}`;
      for (let i = 1; ; i++) {
        const e = `${base}${i === 1 ? '' : i}@${domain}`;
        if (!emails.has(e)) {
          emails.add(e);
          return e;
        }
      }
    },
  };
}
