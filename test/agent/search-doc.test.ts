// The search document (migrations/functions/agent_search_doc.sql): search_documents follows every
// change of a customer's names, invoice address and service places, and the word passes find through
// its index exactly the customers they find word by word (the same ids and counts, exact and with a
// typo).
import { readFileSync } from 'node:fs';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSearch } from '../../src/modules/subscribers/search.query.js';
import { docIndexQuery, searchSql, searchSubscribers } from '../../src/modules/subscribers/search.repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
} from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** The words of a customer's search document (search_documents.doc). */
const docOf = async (id: string) =>
  (await sql<{ w: string[] | null }>`SELECT tsvector_to_array(doc) AS w FROM search_documents WHERE subscriber_id = ${id}`.execute(t.db))
    .rows[0]?.w ?? null;
/** Customers whose stored document differs from what agent_search_doc computes now, or who have none (none, ever). */
const stale = async () =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM subscribers s LEFT JOIN search_documents d ON d.subscriber_id = s.id
      WHERE d.doc IS DISTINCT FROM agent_search_doc(s.id)`.execute(t.db)
  ).rows[0]!.n;

/**
 * Words of a stored document, but its names, that its provider's words in search_doc_words lack (none, ever: a prefix
 * read through them would miss them).
 */
const missingWords = async () =>
  (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_documents d CROSS JOIN LATERAL unnest(tsvector_to_array(d.doc)) w
      WHERE NOT starts_with(w, 'n:')
        AND NOT EXISTS (SELECT 1 FROM search_doc_words x WHERE x.provider_id = d.provider_id AND x.word = w)`.execute(t.db)
  ).rows[0]!.n;

describe('search documents follow the customer and its service places', () => {
  it('names, invoice address, a subscription, its building, unit and location, and moving or deleting it', async () => {
    const p = await createProvider(t.db);
    const plan = await createPlanVersion(t.db, p.id);
    const b = await createBuilding(t.db, p.id, {
      street: 'Karl-Marx-Straße',
      houseNumber: '12',
      postalCode: '10115',
      city: 'Berlin',
      units: ['3A', '4B'],
    });
    const other = await createBuilding(t.db, p.id, {
      street: 'Am Weinberg',
      houseNumber: '7',
      postalCode: '14467',
      city: 'Potsdam',
      units: ['1C'],
    });
    const a = await createSubscriber(t.db, p.id, { firstName: 'Jürgen', lastName: 'Ott' });
    const c = await createSubscriber(t.db, p.id);
    // A new customer: names (whole, and each with a letter deleted from 5 letters on) and invoice address.
    expect(await docOf(a.id)).toEqual(
      expect.arrayContaining([
        'n:jurgen',
        'n:~urgen',
        'n:~jrgen',
        'n:ott',
        'i:hauptstraße',
        'iw:hauptstr',
        'i:5',
        'ih:5',
        'ip:10115',
        'iw:berlin',
      ]),
    );
    expect(await docOf(a.id)).not.toContain('n:~tt');

    const sub = await createSubscription(t.db, {
      providerId: p.id,
      subscriberId: a.id,
      planVersionId: plan.id,
      buildingId: b.id,
      unitId: b.units[0]!.id,
    });
    expect(await docOf(a.id)).toEqual(
      expect.arrayContaining(['f:karl-marx-straße', 'w:karl', 'w:marx', 'w:str', 'f:12', 'h:12', 'f:3a', 'h:3a', 'f:10115']),
    );

    await sql`UPDATE buildings SET street = 'Lindenallee' WHERE id = ${b.id}`.execute(t.db);
    await sql`UPDATE units SET label = '5D' WHERE id = ${b.units[0]!.id}`.execute(t.db);
    await sql`UPDATE subscribers SET last_name = 'Kowalski', invoice_city = 'Köln', invoice_house_number = '12 b' WHERE id = ${a.id}`.execute(
      t.db,
    );
    const moved = await docOf(a.id);
    expect(moved).toEqual(
      expect.arrayContaining(['f:lindenallee', 'f:5d', 'n:kowalski', 'i:köln', 'iw:koln', 'i:12 b', 'ih:12b', 'ihd:12']),
    );
    for (const gone of ['f:karl-marx-straße', 'f:3a', 'n:ott']) expect(moved).not.toContain(gone);

    // A subscription at a location only: the location's building and unit, and their changes.
    const loc = await createLocation(t.db, p.id, other.id, other.units[0]!.id, { port: null });
    await createSubscription(t.db, { providerId: p.id, subscriberId: c.id, planVersionId: plan.id, locationId: loc.id });
    expect(await docOf(c.id)).toEqual(expect.arrayContaining(['f:am weinberg', 'w:weinberg', 'f:1c', 'f:potsdam']));
    await sql`UPDATE locations SET unit_id = NULL WHERE id = ${loc.id}`.execute(t.db);
    expect(await docOf(c.id)).not.toContain('f:1c');

    // The subscription moves to the other customer: both are brought up to date.
    await sql`UPDATE subscriptions SET subscriber_id = ${c.id} WHERE id = ${sub.id}`.execute(t.db);
    expect(await docOf(a.id)).not.toContain('f:lindenallee');
    expect(await docOf(c.id)).toEqual(expect.arrayContaining(['f:lindenallee', 'f:am weinberg']));
    await sql`DELETE FROM subscriptions WHERE id = ${sub.id}`.execute(t.db);
    expect(await docOf(c.id)).not.toContain('f:lindenallee');

    // Only the customer's own provider's places: a subscription at another provider's building (no
    // row should be so) adds nothing the word passes' check would not find.
    const rival = await createProvider(t.db);
    const foreign = await createBuilding(t.db, rival.id, { street: 'Fremdweg', units: ['9Z'] });
    await createSubscription(t.db, {
      providerId: p.id,
      subscriberId: c.id,
      planVersionId: plan.id,
      buildingId: foreign.id,
      unitId: foreign.units[0]!.id,
    });
    expect(await docOf(c.id)).not.toContain('f:fremdweg');
    expect(await stale()).toBe(0);
    expect(await missingWords()).toBe(0);
    // A renamed street's new words are there at once; the old ones stay (they match nothing).
    await sql`UPDATE buildings SET street = 'Zypressenpfad' WHERE id = ${other.id}`.execute(t.db);
    const words = (
      await sql<{ word: string }>`SELECT word FROM search_doc_words WHERE word LIKE '%zypressen%' OR word LIKE '%weinberg%'`.execute(t.db)
    ).rows.map((r) => r.word);
    expect(words).toEqual(expect.arrayContaining(['f:zypressenpfad', 'w:zypressenpfad', 'f:am weinberg', 'w:weinberg']));
    expect(await missingWords()).toBe(0);
  });
});

describe('the search document finds what the word-by-word check finds', () => {
  let providerId: string;
  let rivalId: string;
  beforeAll(async () => {
    const main = await createProvider(t.db);
    const rival = await createProvider(t.db);
    providerId = main.id;
    rivalId = rival.id;
    const plan = await createPlanVersion(t.db, main.id);
    // The same shapes as search-explain.test.ts, smaller: two providers, streets of one and several
    // words, units 1A..5D, invoice addresses of their own, names that are also places.
    await sql`
      INSERT INTO buildings (id, provider_id, street, house_number, postal_code, city, country, name)
      SELECT gen_random_uuid(), CASE WHEN b % 4 = 3 THEN ${rival.id}::uuid ELSE ${main.id}::uuid END,
             (ARRAY['Hauptstraße','Am Weinberg','Queen St W','Karl-Marx-Str.','Berliner Allee','Schmidtweg'])[1 + b % 6],
             (1 + b % 13)::text || CASE WHEN b % 5 = 0 THEN 'a' ELSE '' END, (10100 + b)::text,
             (ARRAY['Berlin','Hamburg','Toronto','São Paulo'])[1 + b % 4], 'DE', CASE WHEN b % 7 = 0 THEN 'Haus Anna' END
      FROM generate_series(0, 59) b`.execute(t.db);
    await sql`
      INSERT INTO units (id, building_id, label)
      SELECT gen_random_uuid(), b.id, (1 + u / 4)::text || (ARRAY['A','B','C','D'])[1 + u % 4]
      FROM buildings b CROSS JOIN generate_series(0, 19) u WHERE b.provider_id IN (${main.id}::uuid, ${rival.id}::uuid)`.execute(t.db);
    await sql`
      INSERT INTO subscribers (id, provider_id, first_name, last_name, email, invoice_street, invoice_house_number, invoice_postal_code, invoice_city, invoice_country)
      SELECT gen_random_uuid(), CASE WHEN i % 5 = 0 THEN ${rival.id}::uuid ELSE ${main.id}::uuid END,
             (ARRAY['Anna','Hans','Klara','Berlin','Müller','Queen'])[1 + i % 6],
             (ARRAY['Müller','Schmidt','Hauptmann','Weinberg','Meyer-Schulz'])[1 + (i * 7) % 5],
             'doc' || i || '@example.test',
             (ARRAY['Postweg','Hauptstraße','Ringstr.','Queen St W'])[1 + i % 4], (i % 15)::text || CASE WHEN i % 9 = 0 THEN 'b' ELSE '' END,
             (20000 + i % 40)::text, (ARRAY['Berlin','Hamburg','Toronto'])[1 + i % 3], 'DE'
      FROM generate_series(1, 1200) i`.execute(t.db);
    await sql`
      WITH s AS (SELECT id, provider_id, row_number() OVER (PARTITION BY provider_id ORDER BY id) AS n FROM subscribers WHERE email LIKE 'doc%'),
           u AS (SELECT u.id AS unit_id, b.id AS building_id, b.provider_id, row_number() OVER (PARTITION BY b.provider_id ORDER BY u.id) AS n
                 FROM units u JOIN buildings b ON b.id = u.building_id WHERE b.provider_id IN (${main.id}::uuid, ${rival.id}::uuid))
      INSERT INTO subscriptions (id, provider_id, subscriber_id, plan_version_id, building_id, unit_id, status, origin)
      SELECT gen_random_uuid(), s.provider_id, s.id, ${plan.id}::uuid, u.building_id, u.unit_id, 'ACTIVE', 'seed'
      FROM s JOIN u ON u.provider_id = s.provider_id AND u.n = s.n
      WHERE s.n % 10 <> 0`.execute(t.db);
    // Some customers have a second service place.
    await sql`
      INSERT INTO subscriptions (id, provider_id, subscriber_id, plan_version_id, building_id, unit_id, status, origin)
      SELECT gen_random_uuid(), s.provider_id, s.subscriber_id, s.plan_version_id, u.building_id, u.id, 'CANCELLED', 'seed'
      FROM (SELECT * FROM subscriptions WHERE provider_id = ${main.id}::uuid ORDER BY id LIMIT 40) s
      CROSS JOIN LATERAL (SELECT u.id, u.building_id FROM units u JOIN buildings b ON b.id = u.building_id
                          WHERE b.provider_id = s.provider_id AND u.id <> s.unit_id ORDER BY u.id DESC LIMIT 1) u`.execute(t.db);
    await sql`ANALYZE`.execute(t.db);
    expect(await stale()).toBe(0);
    expect(await missingWords()).toBe(0);
  });

  it('the backfill migration gives each provider the words of its documents written before the words were kept', async () => {
    const backfill = readFileSync('migrations/20261210000100_search_doc_words_per_provider_backfill.sql', 'utf8');
    await sql`DELETE FROM search_doc_words`.execute(t.db);
    expect(await missingWords()).toBeGreaterThan(0);
    let last: string | null = null;
    let batches = 0;
    do {
      const r: { rows: { last: string | null }[] } = await t.db.executeQuery<{ last: string | null }>(CompiledQuery.raw(backfill, [last]));
      last = r.rows[0]?.last ?? null;
      batches++;
    } while (last !== null && batches < 100);
    expect(last).toBeNull();
    expect(await missingWords()).toBe(0);
  });

  it('a prefix is asked of the index as the words it starts, up to 32 of them (none: the word); else as a prefix', async () => {
    const prefix = async (w: string) =>
      (await sql<{ q: string }>`SELECT agent_search_doc_prefix(${providerId}::uuid, ${w}) AS q`.execute(t.db)).rows[0]!.q;
    expect(await prefix('f:hauptstr')).toBe("('f:hauptstraße')");
    expect(await prefix('w:berlin')).toBe("('w:berlin' | 'w:berliner')");
    // 'h:10' starts 60 postal codes (10100 to 10159) and house number 10
    expect(await prefix('h:10')).toBe("'h:10':*");
    expect(await prefix('f:nowhere')).toBe("'f:nowhere'");
    expect(await prefix("f:o'brien")).toBe("'f:o''brien'");
    // A house number or unit as it names one: the word, and a bare number with one letter more (not 'h:10').
    const number = async (w: string) =>
      (await sql<{ q: string }>`SELECT agent_search_doc_number(${providerId}::uuid, 'h:', ${w}) AS q`.execute(t.db)).rows[0]!.q;
    expect(await number('1')).toBe("('h:1' | 'h:1a' | 'h:1b' | 'h:1c' | 'h:1d')");
    expect(await number('4b')).toBe("('h:4b')");
    expect(await number('99')).toBe("('h:99')");
    // Two transactions that added a word at once both keep it: it is asked for once.
    await sql`INSERT INTO search_doc_words (provider_id, word) VALUES (${providerId}::uuid, 'w:berlin')`.execute(t.db);
    expect(await prefix('w:berlin')).toBe("('w:berlin' | 'w:berliner')");
  });

  it('a term that stays a prefix is left out of the index query where another word is whole words, and checked', async () => {
    const indexQuery = async (q: string) => {
      const plan = planSearch(q, ['DE']);
      if (plan.kind !== 'tokens') throw new Error(`not words: ${q}`);
      return (await docIndexQuery(providerId, plan, false).execute(t.db)).rows[0]!.q;
    };
    // 'f:10' starts 60 postal codes and house number 10: the GIN scan would gather them all first.
    const mixed = await indexQuery('10 Hauptstraße');
    expect(mixed).not.toContain(':*');
    expect(mixed).toContain("'f:hauptstraße'");
    // Every term a prefix: all of them stay (nothing else narrows the scan).
    const prefixes = await indexQuery('10 101');
    expect(prefixes).toContain("'f:10':*");
    expect(prefixes).toContain("'f:101':*");
    // The word left out is checked on each candidate: the same customers as word by word.
    for (const q of ['10 Hauptstraße', 'Hauptstraße 10 3A', '10 101']) {
      const doc = await run(q, false, 'document');
      expect(doc, q).toEqual(await run(q, false, 'driver'));
    }
    expect((await run('10 Hauptstraße', false, 'document')).total).toBeGreaterThan(0);
  });

  it("a customer moved to another provider brings its words to that provider's list", async () => {
    const c = await createSubscriber(t.db, providerId);
    await sql`UPDATE subscribers SET invoice_street = 'Zedernpfad', invoice_house_number = '3' WHERE id = ${c.id}`.execute(t.db);
    await sql`UPDATE subscribers SET provider_id = ${rivalId}::uuid WHERE id = ${c.id}`.execute(t.db);
    const rivalHas = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_doc_words
      WHERE provider_id = ${rivalId}::uuid AND word = 'iw:zedernpfad'`.execute(t.db);
    expect(rivalHas.rows[0]!.n).toBe(1);
    expect(await missingWords()).toBe(0);
  });

  it("another provider's words never widen a provider's prefixes", async () => {
    const ask = async (provider: string, w: string) =>
      (await sql<{ q: string }>`SELECT agent_search_doc_prefix(${provider}::uuid, ${w}) AS q`.execute(t.db)).rows[0]!.q;
    const number = async (provider: string, w: string) =>
      (await sql<{ q: string }>`SELECT agent_search_doc_number(${provider}::uuid, 'ih:', ${w}) AS q`.execute(t.db)).rows[0]!.q;
    const before = { city: await ask(providerId, 'i:berlin'), house: await number(providerId, '7') };
    expect(before.city).toBe("('i:berlin')");
    // The rival writes 40 invoice cities that start with "berlin", and a house number 7e.
    const rivalCustomer = await createSubscriber(t.db, rivalId);
    for (let i = 0; i < 40; i++)
      await sql`UPDATE subscribers SET invoice_city = ${`Berlinhausen${i}`}, invoice_house_number = '7e' WHERE id = ${rivalCustomer.id}`.execute(
        t.db,
      );
    expect(await ask(rivalId, 'i:berlin')).toBe("'i:berlin':*");
    expect(await number(rivalId, '7')).toContain("'ih:7e'");
    expect(before.house).not.toContain("'ih:7e'");
    // The provider's own: as before.
    expect(await ask(providerId, 'i:berlin')).toBe(before.city);
    expect(await number(providerId, '7')).toBe(before.house);
    // A word only the rival's documents hold is no word of the provider's: asked as itself, it matches nothing there.
    expect(await ask(providerId, 'i:berlinhausen3')).toBe("'i:berlinhausen3'");
    expect(await missingWords()).toBe(0);
    // The shared rows of the release before (provider_id NULL) still count until the next release drops them: while
    // the per-provider backfill runs, they hold the words it has not reached.
    await sql`INSERT INTO search_doc_words (provider_id, word) VALUES (NULL, 'i:quittenweg9')`.execute(t.db);
    expect(await ask(providerId, 'i:quittenweg')).toBe("('i:quittenweg9')");
  });

  it.runIf(usingPostgres())('two transactions that add the same new word do not wait for each other', async () => {
    // Two customers of their own: a row lock is not what this is about.
    const street = (db: typeof t.db, order: 'ASC' | 'DESC') =>
      sql`UPDATE subscribers SET invoice_street = 'Quittenhang' WHERE id = (SELECT id FROM subscribers WHERE provider_id = ${providerId}
        ORDER BY id ${sql.raw(order)} LIMIT 1)`.execute(db);
    await t.db.transaction().execute(async (first) => {
      await street(first, 'ASC');
      // Still open: the second adds the same words ('i:quittenhang', 'iw:quittenhang') and commits.
      await t.db.transaction().execute(async (second) => {
        await sql`SET LOCAL lock_timeout = '2s'`.execute(second);
        await street(second, 'DESC');
      });
    });
    expect(await missingWords()).toBe(0);
    const kept = await sql<{ n: number }>`SELECT count(*)::int AS n FROM search_doc_words
      WHERE provider_id = ${providerId}::uuid AND word = 'iw:quittenhang'`.execute(t.db);
    expect(kept.rows[0]!.n).toBe(2);
  });

  const run = async (q: string, fuzzy: boolean, via: 'document' | 'driver') => {
    const r = await searchSubscribers(t.db, providerId, planSearch(q, ['DE']), 1000, fuzzy, 1000, async () => {}, via);
    return { total: r.total, ids: r.rows.map((x) => x.id).sort() };
  };

  const queries = [
    'Hauptstraße 3A',
    '3A Hauptstraße',
    'Hauptstr 12 2B',
    'Anna 1A',
    'Anna Berlin 4B',
    'Schmidt 12',
    'Müller Hamburg',
    'Meyer-Schulz Toronto',
    'Queen St W',
    '1 Queen St W',
    'Karl Marx 3',
    'Karl-Marx-Str 4a',
    'São Paulo 12',
    'Berlin Berlin',
    'Postweg 5',
    'Ringstraße 7b Hamburg',
    'Haus Anna 2',
    'Weinberg 1C',
    'Hauptmann 20001',
    'Hans Klara',
    'x 1',
    // the invoice address, named whole: a house number, its digits, a postal code, a street word
    'Postweg 9',
    'Ringstr. 9b',
    '20001 Hauptmann',
    'Hamburg 18',
    'Queen W 3',
    // a word of one character, checked against the document rather than word by word
    'Anna 1 Berlin',
    'Müller 3 A',
    'Hamburg 1 b',
    'a Weinberg',
    // a prefix that starts more than 32 words ('f:10': 60 postal codes), and one that starts a few
    'Anna 10',
    'Berlin 101',
  ];
  it.each(queries)('"%s": the same matches through the document as word by word', async (q) => {
    const doc = await run(q, false, 'document');
    expect(doc).toEqual(await run(q, false, 'driver'));
  });

  it('a count through the document reaches the cap exactly: the same answer as word by word either side of it', async () => {
    const plan = planSearch('Müller Hamburg', ['DE']);
    // What the service answers of a pass's total (search.service.ts): match_count and whether it is capped.
    const answer = async (cap: number, via: 'document' | 'driver') => {
      const { total } = await searchSubscribers(t.db, providerId, plan, 1000, false, cap, async () => {}, via);
      return { match_count: Math.min(total, cap), capped: total > cap };
    };
    const n = (await answer(1000, 'document')).match_count;
    expect(n).toBeGreaterThan(3);
    for (const cap of [n, n - 1, n - 2]) {
      const doc = await answer(cap, 'document');
      expect(doc).toEqual(await answer(cap, 'driver'));
      expect(doc).toEqual({ match_count: Math.min(n, cap), capped: n > cap });
    }
  });

  it('the queries find customers (the comparison is not of empty answers)', async () => {
    const found = await Promise.all(queries.map((q) => run(q, false, 'document')));
    expect(found.filter((f) => f.total > 0).length).toBeGreaterThanOrEqual(14);
  });

  // A typo in a name word, or a word inside a street or city (the third pass); a typo in a street
  // or in one of two name words finds nothing either way. Then the same mixed with words the
  // document says exactly, with a word of one character, and a word that is both a name and a
  // street word ("Hauptman" is a prefix of Hauptmann, not a typo: nothing either way).
  const typos: [string, boolean][] = [
    ['Müler Hamburg', true],
    ['Weinberg 2', true],
    ['Schmitt 1A', true],
    ['Klaar Berlin', true],
    ['Allee 3 Hans', true],
    ['Hauptstrase 3A', false],
    ['Meyer-Schultz Toronto', false],
    ['Schmdt Berlin 1', true],
    ['Mullr 3 Hamburg', true],
    ['Hauptman Berlin', false],
    ['Kalra Hamburg', true],
    ['Weinbreg Anna', true],
    ['Allee Hans', true],
    ['Müler 1 Toronto', true],
    ['Marx Klara 2', true],
  ];
  it.each(typos)('"%s" in the third pass: the same matches through the document as word by word', async (q) => {
    const doc = await run(q, true, 'document');
    expect(doc).toEqual(await run(q, true, 'driver'));
  });
  it('the typo queries find customers', async () => {
    const found = await Promise.all(typos.map(([q]) => run(q, true, 'document')));
    expect(found.map((f) => f.total > 0)).toEqual(typos.map(([, finds]) => finds));
  });

  it('reads the document index for several words, and the driver for words that do not narrow it', async () => {
    const plan = async (q: string) => {
      const compiled = searchSql(providerId, planSearch(q, ['DE']), 25, false).compile(t.db);
      return t.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const r = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `EXPLAIN ${compiled.sql}` });
        return r.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    };
    expect(await plan('Hauptstraße 3A')).toMatch(/search_documents_keyed_idx/);
    expect(await plan('1 a')).not.toMatch(/search_documents_keyed_idx/);
  });

  it('a word with quotes, backslashes or tsquery operators is one word, never query syntax', async () => {
    for (const q of ["O'Brien 3A", 'Anna\\ 1A', 'Anna & !Berlin', "a'|'b 12", 'Anna:* 1A', '(Berlin) | 3A']) {
      const doc = await run(q, false, 'document');
      expect(doc).toEqual(await run(q, false, 'driver'));
    }
  });
});
