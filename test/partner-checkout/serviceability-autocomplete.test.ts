// Autocomplete at scale: prefix ranges that stop early (no DISTINCT over the whole range), one
// suggestion per display picked in the service, the street-first spelling of CA/US addresses as a
// second prefix range, and the trigram similarity only when no prefix matches.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coverageColumns, searchKey } from '../../src/modules/serviceability/address-normalize.js';
import { autocompletePrefix, prefixUpperBound, type PrefixRow } from '../../src/modules/serviceability/serviceability.repository.js';
import { pickPrefixSuggestions } from '../../src/modules/serviceability/serviceability.service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createCoverageAddress, createProvider } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

type Provider = Awaited<ReturnType<typeof createProvider>>;
interface Suggestion {
  display: string;
  building_id: string | null;
  orderable: boolean;
  house_number: string;
  country: string;
}

async function suggest(p: Provider, q: string, extra = ''): Promise<Suggestion[]> {
  const r = await t.app.inject({
    method: 'GET',
    url: `/serviceability/autocomplete?q=${encodeURIComponent(q)}${extra}`,
    headers: { 'x-api-key': p.apiKey },
  });
  expect(r.statusCode, q).toBe(200);
  return r.json().suggestions;
}

describe('autocomplete: one suggestion per display, picked after an early-stopping range', () => {
  let p: Provider;
  let building: string;
  beforeAll(async () => {
    p = await createProvider(t.db);
    building = (await createBuilding(t.db, p.id, { street: 'Ulmenweg', houseNumber: '7' })).id;
    // 20 addresses written three times each in the feed (a bare row, a "7 A"-style duplicate, a third):
    // 60 rows, so a first page of 30 rows holds only 10 displays and must be asked again.
    for (let i = 1; i <= 20; i++) {
      for (let copy = 0; copy < 3; copy++) {
        await createCoverageAddress(t.db, p.id, {
          street: 'Ulmenweg',
          houseNumber: copy === 1 ? `${i} ` : String(i),
          postalCode: '20095',
          city: 'Hamburg',
          buildingId: null,
          orderable: false,
        });
      }
    }
    // Address 7: one of its rows (inserted last, in no privileged position) is orderable with a building.
    await createCoverageAddress(t.db, p.id, {
      street: 'Ulmenweg',
      houseNumber: '7',
      postalCode: '20095',
      city: 'Hamburg',
      buildingId: building,
      orderable: true,
    });
  });

  it('15 unique displays even when duplicates fill the first page, in key order', async () => {
    const s = await suggest(p, 'Ulmenweg');
    expect(s).toHaveLength(15);
    expect(new Set(s.map((x) => x.display)).size).toBe(15);
    const keys = s.map((x) => searchKey(x.display));
    expect(keys).toEqual([...keys].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
    expect(s[0]!.display).toBe('Ulmenweg 1, 20095 Hamburg');
  });

  it('the orderable row with a building represents its display, wherever it sits among the duplicates', async () => {
    const s = await suggest(p, 'Ulmenweg 7');
    expect(s).toHaveLength(1);
    expect(s[0]).toMatchObject({ display: 'Ulmenweg 7, 20095 Hamburg', building_id: building, orderable: true });
    const all = await suggest(p, 'Ulmenweg');
    expect(all.every((x) => !x.orderable && x.building_id === null)).toBe(true); // 7 is not among the first 15 (1, 10…19, 2, 20, 3, 4)
    const sevens = await suggest(p, 'Ulmenweg 7 20095');
    expect(sevens).toEqual([expect.objectContaining({ display: 'Ulmenweg 7, 20095 Hamburg', building_id: building, orderable: true })]);
  });

  it('displays that share a search key stay apart (dedupe is by display, not by key)', async () => {
    const q = await createProvider(t.db);
    await createCoverageAddress(t.db, q.id, {
      street: 'Am Markt',
      houseNumber: '3',
      postalCode: '10115',
      city: 'Berlin',
      display: 'Am Markt 3, 10115 Berlin',
    });
    await createCoverageAddress(t.db, q.id, {
      street: 'Am Markt',
      houseNumber: '3',
      postalCode: '10115',
      city: 'Berlin',
      display: 'Am Markt 3. 10115 Berlin',
    });
    const s = await suggest(q, 'Am Markt 3');
    expect(s.map((x) => x.display).sort()).toEqual(['Am Markt 3, 10115 Berlin', 'Am Markt 3. 10115 Berlin']);
  });

  it('`limit` smaller than 15 is honoured on the refetch path too', async () => {
    expect(await suggest(p, 'Ulmenweg', '&limit=12')).toHaveLength(12);
  });
});

describe('autocomplete: house-number-first addresses (CA, US) also match street first', () => {
  let p: Provider;
  let toronto: string;
  beforeAll(async () => {
    p = await createProvider(t.db);
    toronto = (
      await createBuilding(t.db, p.id, {
        street: 'King Street West',
        houseNumber: '12A',
        postalCode: 'M5V 2T6',
        city: 'Toronto',
        country: 'CA',
      })
    ).id;
    await createCoverageAddress(t.db, p.id, {
      buildingId: toronto,
      street: 'King Street West',
      houseNumber: '12 A',
      postalCode: 'M5V2T6',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: null,
      street: 'King Street West',
      houseNumber: '120',
      postalCode: 'M5V 2T6',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
      orderable: false,
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: null,
      street: 'Queen St. E.',
      houseNumber: '5',
      postalCode: 'M5C 1S1',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
    });
    await createCoverageAddress(t.db, p.id, {
      buildingId: null,
      street: 'Kingsway',
      houseNumber: '9',
      postalCode: '10115',
      city: 'Berlin',
      country: 'DE',
    });
  });

  it('"12A King…" (as displayed) and "King Street West 12 a" (street first) find the same address', async () => {
    const want = { display: '12A King Street West, Toronto, ON M5V 2T6', building_id: toronto, orderable: true, country: 'CA' };
    for (const q of ['12A King', '12 a King Street W', 'King Street West 12A', 'king street west 12 a', 'KING STREET WEST 12-a, Toronto']) {
      const s = await suggest(p, q);
      expect(s, q).toHaveLength(1);
      expect(s[0], q).toMatchObject(want);
    }
  });

  it('the street alone lists its addresses (in street-first key order); displays that start with the text come first', async () => {
    expect((await suggest(p, 'King Street')).map((x) => x.display)).toEqual([
      '120 King Street West, Toronto, ON M5V 2T6',
      '12A King Street West, Toronto, ON M5V 2T6',
    ]);
    // "Kingsway 9, 10115 Berlin" starts with "king"; the Toronto street-first matches follow.
    expect((await suggest(p, 'King')).map((x) => x.display)).toEqual([
      'Kingsway 9, 10115 Berlin',
      '120 King Street West, Toronto, ON M5V 2T6',
      '12A King Street West, Toronto, ON M5V 2T6',
    ]);
  });

  it('punctuation in the street is spelled as the search key spells it ("Queen St. E." → "queen st e 5")', async () => {
    expect((await suggest(p, 'Queen St E 5')).map((x) => x.display)).toEqual(['5 Queen St. E., Toronto, ON M5C 1S1']);
    expect((await suggest(p, 'queen st. e.')).map((x) => x.display)).toEqual(['5 Queen St. E., Toronto, ON M5C 1S1']);
  });

  it('the SQL street-first key equals the search key of the address written street first', async () => {
    const cases = [
      { street: 'King Street West', houseNumber: '12 A', postalCode: 'M5V 2T6', city: 'Toronto', province: 'ON', country: 'CA' },
      { street: 'Rue Sainte-Catherine O.', houseNumber: '1500', postalCode: 'H3G 1P1', city: 'Montréal', province: 'QC', country: 'CA' },
      { street: '  Avenue   Road ', houseNumber: '7-b', postalCode: null, city: 'Toronto', province: 'ON', country: 'CA' },
      { street: 'Main St', houseNumber: '12-14', postalCode: '10001', city: 'New York', province: 'NY', country: 'US' },
      { street: 'Elm (North) Street', houseNumber: '3', postalCode: null, city: null, province: null, country: 'US' },
    ];
    for (const a of cases) {
      const c = coverageColumns(a);
      const streetFirst = searchKey(
        [`${a.street.replace(/\s+/g, ' ').trim()} ${c.house_number_norm}`, a.city, [a.province, c.postal_code].filter(Boolean).join(' ')]
          .filter(Boolean)
          .join(', '),
      );
      const r = await sql<{
        k: string | null;
      }>`SELECT coverage_street_first_key(${c.search_key}::text, ${c.house_number_norm}::text, ${a.street}::text) AS k`.execute(t.db);
      expect(r.rows[0]!.k, a.street).toBe(streetFirst);
    }
    // A key that does not start with "<number> <street>" has no street-first spelling (left to the fallback).
    const odd = await sql<{
      k: string | null;
    }>`SELECT coverage_street_first_key('12 other street toronto', '12', 'King Street') AS k`.execute(t.db);
    expect(odd.rows[0]!.k).toBeNull();
  });
});

describe('autocomplete: the trigram fallback fires only when no prefix matches', () => {
  let p: Provider;
  beforeAll(async () => {
    p = await createProvider(t.db);
    for (let i = 1; i <= 5; i++)
      await createCoverageAddress(t.db, p.id, {
        street: 'Eichendorffstraße',
        houseNumber: String(i),
        postalCode: '04103',
        city: 'Leipzig',
      });
    await createCoverageAddress(t.db, p.id, { street: 'Leipziger Straße', houseNumber: '1', postalCode: '10117', city: 'Berlin' });
  });

  it('a prefix match answers prefix matches only (no similar-but-not-prefix address mixed in)', async () => {
    expect((await suggest(p, 'Leipzig')).map((x) => x.display)).toEqual(['Leipziger Straße 1, 10117 Berlin']);
  });

  it('text inside the address (no prefix) and a typo answer from the similarity fallback, unique by display', async () => {
    const inner = await suggest(p, '04103 leipzig');
    expect(inner.map((x) => x.display).sort()).toEqual([1, 2, 3, 4, 5].map((i) => `Eichendorffstraße ${i}, 04103 Leipzig`));
    const typo = await suggest(p, 'Eichendorfstrasse 3');
    expect(typo[0]?.display).toBe('Eichendorffstraße 3, 04103 Leipzig');
    expect(new Set(typo.map((x) => x.display)).size).toBe(typo.length);
  });

  it('characters without a successor code point are bounded by a shorter prefix (no prefix match here: the fallback answers, 200)', async () => {
    expect(prefixUpperBound('abc')).toBe('abd');
    expect(prefixUpperBound('ab\u{10FFFF}')).toBe('ac');
    expect(prefixUpperBound('ab\uD7FF')).toBe('ac');
    expect(prefixUpperBound('\u{10FFFF}')).toBeNull();
    // Bounded by "eichendorffstraße 2", exact through starts_with(): "…straße 1\uD7FF" matches nothing, "…straße 1" still does.
    expect(await autocompletePrefix(t.db, p.id, 'eichendorffstraße 1', 30)).toHaveLength(1);
    const rows = await autocompletePrefix(t.db, p.id, 'eichendorffstraße\u{10FFFF}', 30);
    expect(rows).toEqual([]);
    expect(await autocompletePrefix(t.db, p.id, 'eichendorffstraße 1\uD7FF', 30)).toEqual([]);
    const edge = await suggest(p, 'Eichendorffstraße \u{10FFFF}');
    expect(edge.every((x) => x.display.startsWith('Eichendorffstraße'))).toBe(true);
    await suggest(p, 'Eichendorffstraße\uD7FF');
  });
});

describe('autocomplete: pages that stop early are never trusted past a possible cut', () => {
  it('a display whose duplicates fill the first page is still represented by its orderable row (the page is read again, larger)', async () => {
    const p = await createProvider(t.db);
    const building = (await createBuilding(t.db, p.id, { street: 'Zedernweg', houseNumber: '1' })).id;
    // 14 rows of one display (the first page for limit=1 holds 11): the orderable one is written last.
    for (let i = 0; i < 13; i++)
      await createCoverageAddress(t.db, p.id, { street: 'Zedernweg', houseNumber: i % 2 ? '1' : '1 ', buildingId: null, orderable: false });
    await createCoverageAddress(t.db, p.id, { street: 'Zedernweg', houseNumber: '1', buildingId: building });
    await createCoverageAddress(t.db, p.id, { street: 'Zedernweg', houseNumber: '2', buildingId: null, orderable: false });
    expect(await suggest(p, 'Zedernweg', '&limit=1')).toEqual([
      expect.objectContaining({ display: 'Zedernweg 1, 10115 Berlin', building_id: building, orderable: true }),
    ]);
    expect((await suggest(p, 'Zedernweg', '&limit=2')).map((x) => [x.display, x.orderable])).toEqual([
      ['Zedernweg 1, 10115 Berlin', true],
      ['Zedernweg 2, 10115 Berlin', false],
    ]);
  });

  it('while the display-order range has more rows, street-first matches do not jump ahead of them', async () => {
    const p = await createProvider(t.db);
    for (let i = 1; i <= 30; i++)
      await createCoverageAddress(t.db, p.id, { street: 'Mainzer Straße', houseNumber: String(i), postalCode: '55116', city: 'Mainz' });
    await createCoverageAddress(t.db, p.id, {
      street: 'Main Street',
      houseNumber: '5',
      postalCode: 'M4M 1A1',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
    });
    const s = await suggest(p, 'Main');
    expect(s).toHaveLength(15);
    expect(s.every((x) => x.display.startsWith('Mainzer Straße'))).toBe(true);
    // Fewer display-order matches than asked for: the street-first ones follow them.
    const q = await createProvider(t.db);
    for (let i = 1; i <= 3; i++)
      await createCoverageAddress(t.db, q.id, { street: 'Mainzer Straße', houseNumber: String(i), postalCode: '55116', city: 'Mainz' });
    await createCoverageAddress(t.db, q.id, {
      street: 'Main Street',
      houseNumber: '5',
      postalCode: 'M4M 1A1',
      city: 'Toronto',
      province: 'ON',
      country: 'CA',
    });
    expect((await suggest(q, 'Main')).map((x) => x.display)).toEqual([
      'Mainzer Straße 1, 55116 Mainz',
      'Mainzer Straße 2, 55116 Mainz',
      'Mainzer Straße 3, 55116 Mainz',
      '5 Main Street, Toronto, ON M4M 1A1',
    ]);
  });
});

describe('pickPrefixSuggestions (the page logic, pure)', () => {
  let seq = 0;
  const row = (src: number, k: string, display: string, o: Partial<PrefixRow> = {}): PrefixRow => ({
    id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
    building_id: null,
    street: 's',
    house_number: '1',
    postal_code: null,
    city: null,
    province: null,
    country: 'DE',
    display,
    orderable: false,
    building_in_coverage: null,
    src,
    k,
    ...o,
  });

  it('a full page drops its last key (it may be cut) and reports `cut`; a page that is not full is complete', () => {
    const rows = [row(0, 'a', 'A'), row(0, 'b', 'B'), row(0, 'c', 'C1'), row(0, 'c', 'C2')];
    expect(pickPrefixSuggestions(rows, 4, 15, false)).toMatchObject({ cut: true, picked: [{ display: 'A' }, { display: 'B' }] });
    expect(pickPrefixSuggestions(rows, 5, 15, false).cut).toBe(false);
    expect(pickPrefixSuggestions(rows, 5, 15, false).picked.map((r) => r.display)).toEqual(['A', 'B', 'C1', 'C2']);
    // On the last (largest) page nothing is dropped.
    expect(pickPrefixSuggestions(rows, 4, 15, true).picked.map((r) => r.display)).toEqual(['A', 'B', 'C1', 'C2']);
  });

  it('rows of a cut first source are never followed by the second source', () => {
    const rows = [row(0, 'a', 'A'), row(0, 'b', 'B'), row(1, 'a', 'X')];
    expect(pickPrefixSuggestions(rows, 2, 15, false).picked.map((r) => r.display)).toEqual(['A']);
    expect(pickPrefixSuggestions(rows, 3, 15, false).picked.map((r) => r.display)).toEqual(['A', 'B', 'X']);
  });

  it('within one key: by display, the orderable row with a building represents it, then the lowest id', () => {
    const rows = [
      row(0, 'k', 'Same', { id: '00000000-0000-4000-8000-000000000001' }),
      row(0, 'k', 'Same', { id: '00000000-0000-4000-8000-000000000009', orderable: true, building_id: 'b' }),
      row(0, 'k', 'Other', { id: '00000000-0000-4000-8000-000000000003' }),
      row(0, 'k', 'Other', { id: '00000000-0000-4000-8000-000000000002' }),
    ];
    const { picked } = pickPrefixSuggestions(rows, 30, 15, false);
    expect(picked.map((r) => [r.display, r.id.slice(-1)])).toEqual([
      ['Other', '2'],
      ['Same', '9'],
    ]);
  });

  it('stops at n displays', () => {
    const rows = ['a', 'b', 'c', 'd'].map((k) => row(0, k, k.toUpperCase()));
    expect(pickPrefixSuggestions(rows, 10, 2, false).picked.map((r) => r.display)).toEqual(['A', 'B']);
  });
});

describe('autocomplete plans (EXPLAIN, a few thousand addresses)', () => {
  let p: Provider;
  beforeAll(async () => {
    p = await createProvider(t.db);
    const other = await createProvider(t.db);
    // 4,000 addresses of two providers, DE street first and CA number first.
    await sql`
      INSERT INTO coverage_addresses (id, provider_id, street, house_number, house_number_norm, postal_code, city, province, country, display, search_key)
      SELECT gen_random_uuid(), CASE WHEN i % 5 = 0 THEN ${other.id}::uuid ELSE ${p.id}::uuid END, s.street, (i % 300)::text, (i % 300)::text,
             s.postal, s.city, s.province, s.country,
             CASE WHEN s.country = 'CA' THEN (i % 300)::text || ' ' || s.street || ', ' || s.city || ', ' || s.province || ' ' || s.postal
                  ELSE s.street || ' ' || (i % 300)::text || ', ' || s.postal || ' ' || s.city END,
             lower(CASE WHEN s.country = 'CA' THEN (i % 300)::text || ' ' || s.street || ' ' || s.city || ' ' || s.province || ' ' || s.postal
                  ELSE s.street || ' ' || (i % 300)::text || ' ' || s.postal || ' ' || s.city END)
      FROM generate_series(1, 4000) i
      CROSS JOIN LATERAL (SELECT * FROM (VALUES
        ('Hauptstraße', '10115', 'Berlin', NULL, 'DE'), ('Gartenweg', '20095', 'Hamburg', NULL, 'DE'),
        ('Yonge Street', 'M5V 2T6', 'Toronto', 'ON', 'CA'), ('Bank Street', 'K1P 1J1', 'Ottawa', 'ON', 'CA')) v(street, postal, city, province, country)
        OFFSET i % 4 LIMIT 1) s`.execute(t.db);
    await sql`VACUUM ANALYZE coverage_addresses`.execute(t.db);
  });

  /**
   * The plan of the statement inside coverage_autocomplete_candidates, read from the catalog and
   * prepared with the function's parameters, as PL/pgSQL runs it (a generic plan).
   */
  async function plan(key: string): Promise<string> {
    const src = await sql<{ body: string }>`SELECT prosrc AS body FROM pg_proc WHERE proname = 'coverage_autocomplete_candidates'`.execute(
      t.db,
    );
    const ranges = /(SELECT json_agg[\s\S]*?);\s*RETURN/
      .exec(src.rows[0]!.body)![1]!
      .replace(/INTO v_rows/, '')
      .replace(/\bp_provider\b/g, '$1')
      .replace(/\bp_key\b/g, '$2')
      .replace(/\bp_upper\b/g, '$3')
      .replace(/\bp_fetch\b/g, '$4');
    return t.db.connection().execute(async (conn) => {
      await sql`SET plan_cache_mode = force_generic_plan`.execute(conn);
      try {
        await sql.raw(`PREPARE ac_plan(uuid, text, text, integer) AS ${ranges}`).execute(conn);
        const r = await sql<{
          'QUERY PLAN': string;
        }>`EXPLAIN EXECUTE ac_plan(${sql.lit(p.id)}, ${sql.lit(key)}, ${sql.lit(prefixUpperBound(key))}, 25)`.execute(conn);
        return r.rows.map((row) => row['QUERY PLAN']).join('\n');
      } finally {
        await sql`DEALLOCATE ac_plan`.execute(conn).catch(() => undefined);
        await sql`RESET plan_cache_mode`.execute(conn);
      }
    });
  }

  it.each([
    ['a street prefix', 'hauptstr'],
    ['street and house number', 'hauptstraße 12'],
    ['a CA street typed first', 'yonge street 1'],
  ])('%s (%s): both ranges are index(-only) scans right under their LIMIT: no sequential scan, no sort of a range', async (_label, key) => {
    const text = await plan(key);
    if (process.env.SHOW_PLAN) console.log(text);
    expect(text).toContain('coverage_prefix_idx');
    expect(text).toContain('coverage_street_first_idx');
    expect(text).not.toMatch(/Seq Scan on coverage_addresses/);
    // A sort may only order the (at most 2 × p_fetch) rows above the two ranges, never a range itself.
    const lines = text.split('\n');
    const append = lines.findIndex((l) => /Append/.test(l));
    expect(lines.slice(append).some((l) => /Sort/.test(l))).toBe(false);
    expect(text).toMatch(/Limit[^\n]*\n\s*->\s*Index (Only )?Scan using coverage_prefix_idx/);
    expect(text).toMatch(/Limit[^\n]*\n\s*->\s*Index (Only )?Scan using coverage_street_first_idx/);
  });
});
