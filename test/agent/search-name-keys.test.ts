// The name index answers "which customers hold every one of these name words" through its keys
// (agent_search_name_keys: words, one-typo forms and pairs of words) and the key query
// (agent_search_name_query: a pair of two words and the rest). Whatever the names and the query,
// asking the keys must find exactly the customers whose name words hold every query word.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { createProvider } from '../helpers/factories.js';

// A small vocabulary, so that customers share words and pairs; "Weiß" and "weiss" are one word.
const WORDS = ['Anna', 'Schmidt', 'Weiß', 'weiss', 'Lee', 'Ölçek', 'Marie-Luise', 'Ba', 'Zoë', 'anna'];
const NAME = fc.option(
  fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')),
  { nil: null },
);

let tdb: TestDb;
let providerId: string;

beforeAll(async () => {
  tdb = await createTestDb();
  providerId = (await createProvider(tdb.handle.db)).id;
});
afterAll(() => tdb.drop());

describe('name index keys', () => {
  it('keys @> the key query finds exactly the customers whose name words hold every query word', async () => {
    const db = tdb.handle.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ first: NAME, last: NAME, invFirst: NAME, invLast: NAME }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom('anna', 'schmidt', 'weiss', 'lee', 'ölçek', 'marie', 'luise', 'ba', 'zoë', 'müller'), {
          minLength: 1,
          maxLength: 4,
        }),
        async (people, query) => {
          await sql`DELETE FROM subscribers WHERE provider_id = ${providerId}`.execute(db);
          for (const p of people) {
            await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, invoice_first_name, invoice_last_name, email)
              VALUES (gen_random_uuid(), ${providerId}, ${p.first ?? ''}, ${p.last ?? ''}, ${p.invFirst}, ${p.invLast},
                      gen_random_uuid()::text || '@keys.example')`.execute(db);
          }
          const { rows } = await sql<{ by_keys: boolean; by_words: boolean }>`
            SELECT agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name)
                     @> agent_search_name_query(${query}::text[]) AS by_keys,
                   agent_search_name_words(first_name, last_name, invoice_first_name, invoice_last_name) @> ${query}::text[] AS by_words
            FROM subscribers WHERE provider_id = ${providerId}`.execute(db);
          for (const r of rows) expect(r.by_keys).toBe(r.by_words);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a two-word name is one pair key, in either order; one word, or one word twice, is asked as it is', async () => {
    const q = async (words: string[]) =>
      (await sql<{ k: string[] }>`SELECT agent_search_name_query(${words}::text[]) AS k`.execute(tdb.handle.db)).rows[0]!.k;
    expect(await q(['schmidt', 'anna'])).toEqual(['anna schmidt']);
    expect(await q(['anna', 'schmidt'])).toEqual(['anna schmidt']);
    expect(await q(['anna', 'lee', 'schmidt'])).toEqual(['anna lee', 'schmidt']);
    expect(await q(['anna'])).toEqual(['anna']);
    expect(await q(['anna', 'anna'])).toEqual(['anna', 'anna']);
  });
});
