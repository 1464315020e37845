// The customer search is index-backed: with a few thousand customers the planner answers every
// query class from the prefix-range btree indexes (or, in the fuzzy fallback, the trigram GIN
// index), never by reading the subscribers table end to end.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { planSearch } from '../../src/modules/subscribers/search.query.js';
import { searchSubscribers, searchSql } from '../../src/modules/subscribers/search.repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider } from '../helpers/factories.js';

let t: TestApp;
let providerId: string;
const CUSTOMERS = 4000;

beforeAll(async () => {
  t = await buildTestApp();
  const db = t.db;
  const main = await createProvider(db);
  const other = await createProvider(db);
  providerId = main.id;
  const plan = await createPlanVersion(db, main.id);
  // Two providers share the table (nine in ten customers are the main provider's); buildings with
  // 20 units each; every customer in one unit.
  await sql`
    INSERT INTO buildings (id, provider_id, street, house_number, postal_code, city, country)
    SELECT gen_random_uuid(), CASE WHEN b % 2 = 0 THEN ${main.id}::uuid ELSE ${other.id}::uuid END,
           (ARRAY['Hauptstraße','Am Weinberg','Bahnhofstraße','Gartenweg','Lindenallee','Schulstraße','Kirchplatz','Bergstraße'])[1 + b % 8],
           (b + 1)::text, (10000 + b)::text, CASE WHEN b % 3 = 0 THEN 'Hamburg' ELSE 'Berlin' END, 'DE'
    FROM generate_series(0, 199) b`.execute(db);
  await sql`
    INSERT INTO units (id, building_id, label)
    SELECT gen_random_uuid(), b.id, (1 + u / 4)::text || (ARRAY['A','B','C','D'])[1 + u % 4]
    FROM buildings b CROSS JOIN generate_series(0, 19) u`.execute(db);
  await sql`
    INSERT INTO subscribers (id, provider_id, first_name, last_name, email, phone, phone_e164, customer_number,
                             invoice_street, invoice_house_number, invoice_postal_code, invoice_city, invoice_country)
    SELECT gen_random_uuid(), CASE WHEN i % 10 <> 0 THEN ${main.id}::uuid ELSE ${other.id}::uuid END,
           (ARRAY['Anna','Ben','Clara','David','Emma','Felix','Greta','Hans','Ida','Jonas','Klara','Lukas','Mia','Noah','Olga','Paul'])[1 + i % 16],
           (ARRAY['Müller','Schmidt','Schneider','Fischer','Weber','Meyer','Wagner','Becker','Schulz','Hoffmann','Koch','Richter','Klein','Wolf','Neumann','Braun','Zimmermann','Krüger','Hartmann','Lange'])[1 + (i * 7) % 20],
           'user' || i || '@mail' || (i % 50) || '.example', '0151 ' || (10000000 + i), '+49151' || (10000000 + i),
           chr(65 + i % 26) || chr(65 + (i / 26) % 26) || 'QZ-' || lpad((i % 10000)::text, 4, '0'),
           (ARRAY['Postweg','Ringstraße','Feldweg','Marktplatz'])[1 + i % 4], (i % 90)::text, (20000 + i % 300)::text, 'Berlin', 'DE'
    FROM generate_series(1, ${CUSTOMERS}) i`.execute(db);
  await sql`
    WITH s AS (SELECT id, provider_id, row_number() OVER (PARTITION BY provider_id ORDER BY id) AS n FROM subscribers),
         u AS (SELECT u.id AS unit_id, b.id AS building_id, b.provider_id, row_number() OVER (PARTITION BY b.provider_id ORDER BY u.id) AS n
               FROM units u JOIN buildings b ON b.id = u.building_id)
    INSERT INTO subscriptions (id, provider_id, subscriber_id, plan_version_id, building_id, unit_id, status, origin)
    SELECT gen_random_uuid(), s.provider_id, s.id, ${plan.id}::uuid, u.building_id, u.unit_id, 'ACTIVE', 'seed'
    FROM s JOIN u ON u.provider_id = s.provider_id AND u.n = s.n`.execute(db);
  // At least one Klara of the main provider lives in a 2B unit (searched for below), whatever the
  // draw: about one draw in a hundred gave none.
  await sql`
    UPDATE subscribers SET first_name = 'Klara'
    WHERE id = (SELECT s.subscriber_id FROM subscriptions s JOIN units u ON u.id = s.unit_id
                WHERE s.provider_id = ${main.id}::uuid AND u.label = '2B' ORDER BY s.id LIMIT 1)`.execute(db);
  // A rare hyphenated name: "Quast" is inside it, a prefix of no field (the fuzzy fallback's case).
  for (const first of ['Ute', 'Veit', 'Wanda']) {
    await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, email) VALUES (gen_random_uuid(), ${main.id}::uuid, ${first}, 'Zauberlehrling-Quast', ${`${first.toLowerCase()}@quast.example`})`.execute(
      db,
    );
  }
  await sql`ANALYZE`.execute(db);
});
afterAll(() => t.close());

async function explain(q: string, fuzzy = false, via: 'document' | 'driver' = 'document'): Promise<string> {
  const compiled = searchSql(providerId, planSearch(q, ['DE']), 25, fuzzy, 0, 1000, via).compile(t.db);
  const r = await t.db.executeQuery<{ 'QUERY PLAN': string }>({ ...compiled, sql: `EXPLAIN ${compiled.sql}` });
  return r.rows.map((row) => row['QUERY PLAN']).join('\n');
}

const noop = async () => {};
const found = async (q: string, fuzzy = false) =>
  (await searchSubscribers(t.db, providerId, planSearch(q, ['DE']), 25, fuzzy, 1000, noop)).total;

describe('customer search uses its indexes (EXPLAIN, a few thousand customers)', () => {
  it('has the data it claims', async () => {
    const n = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(CUSTOMERS + 3);
  });

  it.each([
    // Several words: the search document finds the customers that have them all (a scan of its
    // narrow table at this size; its index at 1M, search-doc.test.ts and bench/search/plans).
    ['name tokens', 'Anna Klein', ['search_documents']],
    ['email', 'user1234@mail34.example', ['subscribers_provider_email_key']],
    ['phone, national format', '0151 1000 1234', ['subscribers_search_phone_idx']],
    ['phone, international', '+49 151 10001234', ['subscribers_search_phone_idx']],
    ['customer number', 'CAQZ-0002', ['subscribers_provider_customer_number_key']],
    ['name plus unit', 'Klara 2B', ['search_documents']],
    ['invoice house number and street', '12 Feldweg', ['search_documents']],
  ])('%s (%s) is answered from %j, with no sequential scan of subscribers', async (_label, q, indexes) => {
    const plan = await explain(q);
    for (const ix of indexes) expect(plan).toContain(ix);
    expect(plan).not.toMatch(/Seq Scan on subscribers/);
    expect(await found(q)).toBeGreaterThan(0);
  });

  it("a word checked on the driver's customers is looked up through their subscriptions' buildings and units, never as a whole set", async () => {
    // "Klara" drives; "2B" (a unit label) and "Hamburg" (a city) are checked on each Klara by key
    // lookups. Reading the label's units (or the city's buildings) as a set and hashing it breaks
    // down where PostgreSQL judges the set too large to hash: it is read again per subscription.
    for (const q of ['Klara 2B', 'Klara Hamburg']) {
      const plan = await explain(q, false, 'driver');
      if (process.env.SHOW_PLAN) console.log(plan);
      expect(plan).not.toMatch(/hashed SubPlan/);
      expect(plan).not.toMatch(/Seq Scan on subscribers/);
      // The units of 2B, a label of many, are looked up by key, per subscription.
      if (q === 'Klara 2B') expect(plan).toMatch(/units_id_label_idx|units_pkey/);
      expect(await found(q)).toBeGreaterThan(0);
    }
    // Driving, a label's units come from the label index alone (it carries id, building and label).
    expect(await explain('2B Klara', false, 'driver')).toMatch(/Index Only Scan using units_search_label_idx/);
  });

  it('a name word, whole or with one typo, is read from the name-keys GIN index, not the table', async () => {
    expect(await explain('quast')).not.toMatch(/Seq Scan on subscribers/);
    // (The third pass also reads the invoice-address trigram index, which the planner prefers to
    // a scan only at size: bench/search has its plan at 1M customers.)
    for (const fuzzy of [false, true]) expect(await explain('quast', fuzzy)).toContain('subscribers_search_name_keys_keyed_idx');
    // "Quast" is a whole word of "Zauberlehrling-Quast"; "Quas" a prefix of it (nothing).
    expect(await found('quast')).toBe(3);
    expect(await found('quas')).toBe(0);
    expect(await found('quas', true)).toBe(0);
    expect(await found('qaust', true)).toBe(3); // swapped letters
    expect(await found('Zauberlehrlinq', true)).toBe(3); // one letter wrong
    expect(await found('Zauberlehrlin', true)).toBe(0); // its last letter missing: a prefix
  });

  it('the search GIN indexes keep no pending list (every write goes into the index, no search reads an unsorted list)', async () => {
    for (const index of ['subscribers_search_name_keys_keyed_idx', 'search_documents_keyed_idx']) {
      const r = await sql<{
        reloptions: string[] | null;
      }>`SELECT reloptions FROM pg_class WHERE relname = ${index}`.execute(t.db);
      expect({ index, options: r.rows[0]!.reloptions }).toEqual({ index, options: expect.arrayContaining(['fastupdate=off']) });
    }
  });

  it('counts every match while returning at most `limit`', async () => {
    const r = await searchSubscribers(t.db, providerId, planSearch('Anna', ['DE']), 25, false, 1000, noop);
    expect(r.rows).toHaveLength(25);
    const annas = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('provider_id', '=', providerId)
      .where('first_name', '=', 'Anna')
      .executeTakeFirstOrThrow();
    expect(r.total).toBe(Number(annas.n));
    expect(r.total).toBeGreaterThan(25);
    expect(r.rows.every((row) => row.first_name === 'Anna')).toBe(true);
  });

  it('an unknown provider sees nothing (scoping is inside every index range)', async () => {
    const r = await searchSubscribers(t.db, newId(), planSearch('Anna', ['DE']), 25, false, 1000, noop);
    expect(r.total).toBe(0);
  });
});
