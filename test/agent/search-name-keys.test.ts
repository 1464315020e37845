// The name index answers "which customers hold every one of these name words" through its keys
// (agent_search_name_keys: words, one-typo forms, pairs of words, or for a name with too many words
// for pairs its words marked with a leading space) and the key queries (agent_search_name_query: a
// pair of two words and the rest; agent_search_name_query_wide: the words marked). Whatever the names and the query, asking the index must find exactly the
// customers whose name words hold every query word.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';
import { planSearch } from '../../src/modules/subscribers/search.query.js';
import { searchSubscribers } from '../../src/modules/subscribers/search.repository.js';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { createProvider } from '../helpers/factories.js';
import { adminUrl } from '../helpers/template.js';

// A small vocabulary, so that customers share words and pairs; "Weiß" and "weiss" are one word. The
// filler words let a customer have more than 12 words (no pairs, its words marked); the long word has more
// than 64 letters (never in a pair).
const LONG = 'Abcdefghij'.repeat(7);
const FILLER = ['Aa', 'Bb', 'Cc', 'Dd', 'Ee', 'Ff', 'Gg', 'Hh', 'Ii', 'Jj', 'Kk', 'Ll'];
const WORDS = ['Anna', 'Schmidt', 'Weiß', 'weiss', 'Lee', 'Ölçek', 'Marie-Luise', 'Ba', 'Zoë', 'anna', LONG, ...FILLER];
const NAME = fc.option(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
  { nil: null },
);
const QUERY_WORDS = [
  'anna',
  'schmidt',
  'weiss',
  'lee',
  'ölçek',
  'marie',
  'luise',
  'ba',
  'zoë',
  'müller',
  LONG.toLowerCase(),
  'aa',
  'bb',
  'kk',
];

let tdb: TestDb;
let providerId: string;

beforeAll(async () => {
  tdb = await createTestDb();
  providerId = (await createProvider(tdb.handle.db)).id;
});
afterAll(() => tdb.drop());

describe('name index keys', () => {
  it('the index, asked for the key query or for the marked words, finds exactly the customers whose name words hold every query word', async () => {
    const db = tdb.handle.db;
    let manyWords = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ first: NAME, last: NAME, invFirst: NAME, invLast: NAME }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 4 }),
        async (people, query) => {
          await sql`DELETE FROM subscribers WHERE provider_id = ${providerId}`.execute(db);
          for (const p of people) {
            await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, invoice_first_name, invoice_last_name, email)
              VALUES (gen_random_uuid(), ${providerId}, ${p.first ?? ''}, ${p.last ?? ''}, ${p.invFirst}, ${p.invLast},
                      gen_random_uuid()::text || '@keys.example')`.execute(db);
          }
          const byWords = await sql<{ id: string }>`
            SELECT id FROM subscribers WHERE provider_id = ${providerId}
              AND agent_search_name_words(first_name, last_name, invoice_first_name, invoice_last_name) @> ${query}::text[]
            ORDER BY id`.execute(db);
          // Through the GIN index, as the search asks it (a bitmap scan: the planner may not read the table instead).
          const byIndex = await db.transaction().execute(async (trx) => {
            await sql`SET LOCAL enable_seqscan = off`.execute(trx);
            return sql<{ id: string }>`
              SELECT id FROM subscribers
              WHERE (agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name) @> agent_search_name_query(${query}::text[])
                  OR agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name) @> agent_search_name_query_wide(${query}::text[]))
                AND provider_id = ${providerId}
              ORDER BY id`.execute(trx);
          });
          expect(byIndex.rows).toEqual(byWords.rows);
          const many = await sql<{ n: number }>`
            SELECT count(*)::int AS n FROM subscribers WHERE provider_id = ${providerId}
              AND EXISTS (SELECT 1 FROM unnest(agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name)) k
                          WHERE k LIKE ' %')`.execute(db);
          manyWords += many.rows[0]!.n;
        },
      ),
      { numRuns: 60 },
    );
    // The draws reached customers with too many words for pairs.
    expect(manyWords).toBeGreaterThan(0);
  });

  it('the search reads the index with the key query', async () => {
    const plan = await db()
      .transaction()
      .execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        return sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT id FROM subscribers
        WHERE (agent_search_name_keys_keyed(provider_id, first_name, last_name, invoice_first_name, invoice_last_name)
                @> agent_search_keyed(${newId()}, agent_search_name_query(ARRAY['anna', 'schmidt']))
            OR agent_search_name_keys_keyed(provider_id, first_name, last_name, invoice_first_name, invoice_last_name)
                @> agent_search_keyed(${newId()}, agent_search_name_query_wide(ARRAY['anna', 'schmidt'])))`.execute(trx);
      });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('subscribers_search_name_keys_keyed_idx');
  });

  it('a two-word name is one pair key, in byte order; one word, one word twice, or a word over 64 letters is asked as it is', async () => {
    expect(await nameQuery(['schmidt', 'anna'])).toEqual(['anna schmidt']);
    expect(await nameQuery(['anna', 'schmidt'])).toEqual(['anna schmidt']);
    expect(await nameQuery(['anna', 'lee', 'schmidt'])).toEqual(['anna lee', 'schmidt']);
    expect(await nameQuery(['zoë', 'ölçek'])).toEqual(['zoë ölçek']);
    expect(await nameQuery(['anna'])).toEqual(['anna']);
    expect(await nameQuery(['anna', 'anna'])).toEqual(['anna', 'anna']);
    const long = LONG.toLowerCase();
    expect(await nameQuery([long, 'anna'])).toEqual([long, 'anna']);
    expect(await nameQuery([long, 'zoë', 'anna'])).toEqual(['anna zoë', long]);
    // No name word is NULL, empty or spaced: such a query word finds nobody, never a key of another kind.
    expect(await nameQuery(['', 'anna'])).toBeNull();
    expect(await nameQuery([' anna'])).toBeNull();
    expect(await nameQuery(['anna schmidt'])).toBeNull();
  });

  it('a customer has at most 66 pairs: twelve words or fewer get their pairs, more get their words marked instead', async () => {
    const keys = async (first: string, last: string) =>
      (await sql<{ k: string[] }>`SELECT agent_search_name_keys(${first}, ${last}, NULL, NULL) AS k`.execute(db())).rows[0]!.k;
    const pairs = (k: string[]) => k.filter((x) => x.includes(' ') && !x.startsWith(' '));
    const marked = (k: string[]) => k.filter((x) => x.startsWith(' '));
    const twelve = await keys(FILLER.slice(0, 6).join(' '), FILLER.slice(6).join(' '));
    expect(pairs(twelve)).toHaveLength(66);
    expect(marked(twelve)).toEqual([]);
    const thirteen = await keys(FILLER.slice(0, 6).join(' '), [...FILLER.slice(6), 'Mm'].join(' '));
    expect(pairs(thirteen)).toHaveLength(0);
    expect(marked(thirteen).sort()).toEqual([...FILLER, 'Mm'].map((w) => ` ${w.toLowerCase()}`).sort());
    // A word over 64 letters is in no pair (two such words would exceed an index entry's size).
    expect(pairs(await keys(LONG, 'Anna Schmidt'))).toEqual(['anna schmidt']);
    // More than 12 short words and a long one: every word is marked, the long one too, so that two short words and the
    // long one find the customer.
    const long = LONG.toLowerCase();
    const found = await sql<{ hit: boolean }>`
      SELECT k @> agent_search_name_query(${['bb', 'kk', long]}::text[]) OR k @> agent_search_name_query_wide(${['bb', 'kk', long]}::text[]) AS hit
      FROM (SELECT agent_search_name_keys(${FILLER.slice(0, 7).join(' ')}, ${[...FILLER.slice(7), 'Mm', LONG].join(' ')}, NULL, NULL) AS k) x`.execute(
      db(),
    );
    expect(found.rows[0]!.hit).toBe(true);
  });

  it('the search finds a customer with too many words for pairs by two of them: in the name probe and in the word pass', async () => {
    await sql`DELETE FROM subscribers WHERE provider_id = ${providerId}`.execute(db());
    const add = async (first: string, last: string) => {
      const id = crypto.randomUUID();
      await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, email)
        VALUES (${id}, ${providerId}, ${first}, ${last}, ${`${id}@keys.example`})`.execute(db());
      return id;
    };
    const many = await add(FILLER.slice(0, 6).join(' '), [...FILLER.slice(6), 'Mm'].join(' '));
    const two = await add('Bb', 'Kk');
    await add('Bb', 'Zz');
    const search = createSubscriberSearchService({
      db: db(),
      dbHandle: tdb.handle,
      config: loadConfig({ ...process.env, NODE_ENV: 'test' }),
      log: pino({ level: 'silent' }),
    });
    const ids = async (q: string) => (await search.search(providerId, q, 25)).matches.map((m) => m.customer_id).sort();
    expect(await ids('Bb Kk')).toEqual([many, two].sort());
    expect(await ids('Kk Mm')).toEqual([many]);
    // One token of two name words ("Bb-Kk") in the word pass.
    const plan = planSearch('Bb-Kk', ['DE']);
    const found = await searchSubscribers(db(), providerId, plan, 25, false, 1000, async () => undefined);
    expect(found.rows.map((r) => r.id).sort()).toEqual([many, two].sort());
  });

  it.runIf(usingPostgres())('pairs are in byte order whatever the database collation (an ICU de-DE database)', async () => {
    const name = `netsvc_t_icu_${randomAlnum(8).toLowerCase()}`;
    const admin = new pg.Client({ connectionString: adminUrl(process.env.DATABASE_URL!) });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'de-DE' LOCALE 'C.UTF-8'`,
      );
      const c = new pg.Client({ connectionString: adminUrl(process.env.DATABASE_URL!, name) });
      await c.connect();
      try {
        for (const f of ['agent_search_fold', 'agent_search_name_words', 'agent_search_name_keys', 'agent_search_name_query'])
          await c.query(readFileSync(path.join(MIGRATIONS_DIR, 'functions', `${f}.sql`), 'utf8'));
        // This database sorts əliyev before zoran (ə, a letter the search does not fold, sorts
        // after e); byte order puts zoran first, on both sides.
        expect((await c.query(`SELECT array_agg(x ORDER BY x) AS a FROM unnest(ARRAY['zoran', 'əliyev']) x`)).rows[0].a).toEqual([
          'əliyev',
          'zoran',
        ]);
        expect((await c.query(`SELECT agent_search_name_query(ARRAY['əliyev', 'zoran']) AS q`)).rows[0].q).toEqual(['zoran əliyev']);
        expect((await c.query(`SELECT agent_search_name_keys('Zoran', 'Əliyev', NULL, NULL) AS k`)).rows[0].k).toContain('zoran əliyev');
      } finally {
        await c.end();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  });
});

const db = () => tdb.handle.db;
const nameQuery = async (words: string[]) =>
  (await sql<{ k: string[] }>`SELECT agent_search_name_query(${words}::text[]) AS k`.execute(db())).rows[0]!.k;
