// "Masked until verified" against a prefix walk (docs/decisions.md, Safety): adding one character
// at a time to a search must never tell whether a masked field goes on that way. Phone, email and
// customer number match only in full, name words only whole (one typo allowed, never a shortened
// name). The walk runs over random customers of the demo dataset.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePhoneNumber } from 'awesome-phonenumber';
import { loadDemo } from '../../src/demo/seed.js';
import { STOP_WORDS } from '../../src/modules/subscribers/search.query.js';
import { foldWord } from '../../src/modules/subscribers/search.fold.js';
import type { DemoDocument } from '../../src/demo/document.js';
import { expectNoLeaks, setupAgent, verify, type AgentKit } from './helpers.js';

// Each walk is a few dozen searches: on the embedded database of a busy machine, more than 30 s.
vi.setConfig({ testTimeout: 180_000 });

let kit: AgentKit;
let doc: DemoDocument;

interface Target {
  id: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string;
  phone_e164: string;
  customer_number: string;
  /** Lower-case words of its places (service buildings and units, invoice address): prefixes of these may find it. */
  places: string[];
  /** The words of its service buildings and units alone (a prefix of one finds it by the rules). */
  servicePlaces: string[];
}

const search = async (q: string) => {
  const r = await kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}&limit=100`, { key: doc.providers.main.api_key });
  expect(r.status).toBe(200);
  return r.body as { match_count: number; match_count_capped: boolean; incomplete: boolean; matches: { customer_id: string }[] };
};
const finds = async (q: string, id: string) => (await search(q)).matches.some((m) => m.customer_id === id);

// As the search reads name words: folded (search.fold.ts: "maximilian.weiss" names Maximilian Weiß,
// "juergen" names Jürgen).
const words = (s: string | null | undefined) =>
  foldWord(s ?? '')
    .split(/[\s,./-]+/)
    .filter(Boolean);

/**
 * Whether another rule than the walked field lets q find the target: every name word of q is a
 * whole word of its names (the mask shows the first name; a last name is confirmed only whole), or
 * q starts a word of one of its places (the match shows its service locations anyway), or q is a
 * word the search drops ("No", "Unit": then the query is the rest of it).
 */
function explained(t: Target, q: string) {
  // As the search reads a word: without a leading "#", "(" or quote, a trailing ")" or quote, or trailing
  // punctuation ("(4", a prefix of "(416) 555-0199", is the word "4", which may start a unit "4B").
  const lq = q
    .toLowerCase()
    .replace(/^#+/, '')
    .replace(/[.,;:]+$/, '')
    .replace(/^[("']+|[)"']+$/g, '');
  if (lq.includes('@')) return false;
  if (STOP_WORDS.has(lq)) return true;
  const names = new Set(words(`${t.first_name} ${t.last_name}`));
  const qw = words(lq);
  return (qw.length > 0 && qw.every((w) => names.has(w))) || t.places.some((p) => p.startsWith(lq) || p.startsWith(foldWord(lq)));
}

/** The name in capitals ("Weiß": "WEISS", which names the same word: ß is matched as ss). */
const upperCase = (s: string) => s.toUpperCase();

const prefixes = (s: string) => Array.from({ length: s.length - 2 }, (_, i) => s.slice(0, i + 2));

async function pickTargets(n: number): Promise<Target[]> {
  const rows = await kit.t.db
    .selectFrom('subscribers')
    .select([
      'id',
      'first_name',
      'last_name',
      'email',
      'phone',
      'phone_e164',
      'customer_number',
      'invoice_street',
      'invoice_house_number',
      'invoice_postal_code',
      'invoice_city',
    ])
    .where('provider_id', '=', doc.providers.main.id)
    .where('phone_e164', 'is not', null)
    .where('customer_number', 'is not', null)
    .execute();
  const picked = [...rows].sort(() => Math.random() - 0.5).slice(0, n);
  const out: Target[] = [];
  for (const r of picked) {
    const locs = await kit.t.db
      .selectFrom('subscriptions as s')
      .leftJoin('locations as l', 'l.id', 's.location_id')
      .leftJoin('buildings as b', (j) => j.on((eb) => eb('b.id', '=', eb.fn.coalesce('s.building_id', 'l.building_id'))))
      .leftJoin('units as u', (j) => j.on((eb) => eb('u.id', '=', eb.fn.coalesce('s.unit_id', 'l.unit_id'))))
      .select(['b.street', 'b.house_number', 'b.postal_code', 'b.city', 'b.name', 'u.label'])
      .where('s.subscriber_id', '=', r.id)
      .execute();
    const servicePlaces = locs.flatMap((l) => [l.street, l.house_number, l.postal_code, l.city, l.name, l.label].flatMap(words));
    const places = [...servicePlaces, ...[r.invoice_street, r.invoice_house_number, r.invoice_postal_code, r.invoice_city].flatMap(words)];
    out.push({ ...r, phone: r.phone!, phone_e164: r.phone_e164!, customer_number: r.customer_number!, places, servicePlaces });
  }
  return out;
}

let targets: Target[];

beforeAll(async () => {
  kit = await setupAgent();
  const load = await loadDemo({ db: kit.t.db, clock: kit.t.clock, config: kit.t.config });
  doc = load.document;
  targets = await pickTargets(2);
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe('search privacy: a prefix walk reveals no character of a masked field', () => {
  it("no prefix of a customer's phone (E.164 or as stored) finds them; the whole number in another format does", async () => {
    for (const t of targets) {
      for (const q of [...prefixes(t.phone_e164), ...prefixes(t.phone.replace(/\s+/g, ''))]) {
        if (explained(t, q)) continue;
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: false });
      }
      const p = parsePhoneNumber(t.phone_e164);
      for (const q of [p.number!.international, p.number!.national, `00${t.phone_e164.slice(1)}`, t.phone_e164]) {
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: true });
      }
    }
  });

  it("no prefix of a customer's email finds them, the domain walked letter by letter included; the whole address in any case does", async () => {
    for (const t of targets) {
      const at = t.email.indexOf('@');
      for (const q of prefixes(t.email)) {
        if (explained(t, q)) continue;
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: false });
      }
      // The domain walk: the mailbox known, the domain guessed one letter more each time.
      for (let i = at + 2; i < t.email.length; i++) expect(await finds(t.email.slice(0, i), t.id)).toBe(false);
      for (const q of [t.email.toUpperCase(), ` ${t.email.slice(0, at)} @ ${t.email.slice(at + 1)} `]) {
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: true });
      }
    }
  });

  it('no shortened last name finds the customer behind its initial; the whole last name in any case does', async () => {
    for (const t of targets) {
      for (const q of prefixes(t.last_name)) {
        if (explained(t, q)) continue;
        expect({ customer: t.id, q, found: await finds(`${t.first_name} ${q}`, t.id) }).toEqual({ customer: t.id, q, found: false });
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: false });
      }
      expect(await finds(`${t.first_name} ${upperCase(t.last_name)}`, t.id)).toBe(true);
      expect(await finds(`${t.last_name.toLowerCase()}, ${t.first_name}`, t.id)).toBe(true);
    }
  });

  it('no part of a customer number finds the customer; the whole number with or without dash, in any case, does', async () => {
    for (const t of targets) {
      for (const q of prefixes(t.customer_number)) {
        if (explained(t, q)) continue;
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: false });
      }
      for (const q of [t.customer_number, t.customer_number.replace('-', '').toLowerCase(), t.customer_number.replace('-', ' - ')]) {
        expect({ customer: t.id, q, found: await finds(q, t.id) }).toEqual({ customer: t.id, q, found: true });
      }
    }
  });

  it('a typo in a long name word still finds the customer, a missing last letter never does', async () => {
    const t = targets.find((x) => x.last_name.length >= 6 && /^\p{L}+$/u.test(x.last_name)) ?? targets[0];
    const ln = t!.last_name;
    if (ln.length < 6 || !/^\p{L}+$/u.test(ln)) return;
    // The typos are made in the name as the search reads it (folded), and a swap that makes a pair the
    // search folds is not one typo: "Krüger" swapped as written is "Krgüer", folded "krgur", two edits
    // from "kruger" (so is "krguer", the folded name swapped).
    const f = foldWord(ln);
    if (f.length < 6) return;
    const swapped = `${f.slice(0, 2)}${f[3]}${f[2]}${f.slice(4)}`;
    if (swapped !== f && foldWord(swapped) === swapped) expect(await finds(`${t!.first_name} ${swapped}`, t!.id)).toBe(true);
    expect(await finds(`${t!.first_name} ${f.slice(0, 2)}${f.slice(3)}`, t!.id)).toBe(true); // a letter missing inside
    expect(await finds(`${t!.first_name} ${ln.slice(0, -1)}`, t!.id)).toBe(false); // the last letter missing: a prefix
  });
});

describe("search: the invoice contact's name, email and phone are matched under the same rules", () => {
  it('finds a customer by the invoice contact alone (whole name words, whole email, whole phone in another format), never by a part of them', async () => {
    const t = targets[0]!;
    const session = await verify(kit, { id: t.id, email: t.email }, doc.providers.main.api_key);
    const patch = await kit.call('PATCH', `/agent/customers/${t.id}/contact`, {
      key: doc.providers.main.api_key,
      session,
      payload: {
        contact_type: 'invoice',
        first_name: 'Quirin',
        last_name: 'Oberwaldner',
        email: 'buchhaltung@oberwaldner-steuer.example',
        phone: '+49 89 4567 8901',
      },
    });
    expect(patch.status).toBe(200);
    for (const q of [
      'Quirin Oberwaldner',
      'Oberwaldner',
      'BUCHHALTUNG@oberwaldner-steuer.example',
      '089 45678901',
      '+49 (89) 4567-8901',
      'Oberwaldnr',
    ]) {
      expect({ q, found: await finds(q, t.id) }).toEqual({ q, found: true });
    }
    for (const q of ['Oberwald', 'buchhaltung@', 'buchhaltung@oberwaldner', '+49 89 4567', '+4989456789']) {
      expect({ q, found: await finds(q, t.id) }).toEqual({ q, found: false });
    }
  });

  it('the invoice address (shown in no masked match) is found only by whole words: no prefix of its postal code, street or city finds the customer', async () => {
    const t = targets[1]!;
    // No route edits an invoice address; an operator's import would. Values no demo place starts with
    // (not even with two letters: "Qu" would find a customer of Queen Street West by that street).
    await kit.t.db
      .updateTable('subscribers')
      .set({ invoice_street: 'Zypressenweg', invoice_house_number: '77', invoice_postal_code: '98765', invoice_city: 'Xanten' })
      .where('id', '=', t.id)
      .execute();
    const last = t.last_name;
    for (const q of [`${last} 98765`, `${last} Zypressenweg 77`, `${last} 77 Xanten`, `${last} Xanten`, `${last} 98765 Xanten`]) {
      expect({ q, found: await finds(q, t.id) }).toEqual({ q, found: true });
    }
    // The target is picked at random: a word that starts a word of its service location ("9" of a
    // house number 9) finds it by that rule, so such a query says nothing about the invoice address.
    const byService = (w: string) => t.servicePlaces.some((p) => p.startsWith(w) || p.startsWith(foldWord(w)));
    for (const rest of ['9', '98', '987', '9876', 'Zypressen', '77 Xant', 'Xa', 'Zyp 77']) {
      if (words(rest).every(byService)) continue;
      const q = `${last} ${rest}`;
      expect({ q, found: await finds(q, t.id) }).toEqual({ q, found: false });
    }
  });
});
