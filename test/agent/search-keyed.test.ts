// The search's two GIN indexes hold each word led by its provider's key (agent_search_doc_keyed,
// agent_search_name_keys_keyed), so that a scan reads the searching provider's entries of a word and
// not every provider's: a common word is otherwise read in full, uninterruptibly, at 10M customers
// (bench/README.md, "The provider in the index's words"). The keyed query must mean exactly what the
// plain one means, and a scan must bring back the provider's entries alone.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { planSearch } from '../../src/modules/subscribers/search.query.js';
import { docIndexQuery, searchSql } from '../../src/modules/subscribers/search.repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

let t: TestApp;
let big: string;
let small: string;

beforeAll(async () => {
  t = await buildTestApp();
  big = (await createProvider(t.db)).id;
  small = (await createProvider(t.db)).id;
  // The big provider has 40 customers for each the small one has: the same names and cities.
  await sql`
    INSERT INTO subscribers (id, provider_id, first_name, last_name, email, invoice_street, invoice_house_number,
                             invoice_postal_code, invoice_city, invoice_country)
    SELECT gen_random_uuid(), CASE WHEN i % 41 = 0 THEN ${small}::uuid ELSE ${big}::uuid END,
           (ARRAY['Anna','Ben','Zoe'])[1 + i % 3], (ARRAY['Weber','Koch'])[1 + i % 2], 'k' || i || '@keyed.example',
           'Ringstraße', (1 + i % 30)::text, '10115', (ARRAY['Berlin','Hamburg'])[1 + (i / 3) % 2], 'DE'
    FROM generate_series(1, 1640) i`.execute(t.db);
  await sql`ANALYZE`.execute(t.db);
});
afterAll(() => t.close());

interface PlanNode {
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}
/** The rows each scan of `index` brought back, over the whole plan. */
function indexRows(node: PlanNode, index: string): number[] {
  const own = node['Index Name'] === index ? [node['Actual Rows'] ?? 0] : [];
  return [...own, ...(node.Plans ?? []).flatMap((p) => indexRows(p, index))];
}

/** EXPLAIN ANALYZE of a word pass's statement for `providerId`, index scans forced at this size. */
async function scans(providerId: string, q: string, index: string, fuzzy = false): Promise<number[]> {
  const compiled = searchSql(providerId, planSearch(q, ['DE']), 25, fuzzy, 0, 1000, 'document').compile(t.db);
  return t.db.transaction().execute(async (trx) => {
    await sql`SET LOCAL enable_seqscan = off`.execute(trx);
    const r = await trx.executeQuery<{ 'QUERY PLAN': unknown }>({ ...compiled, sql: `EXPLAIN (ANALYZE, FORMAT JSON) ${compiled.sql}` });
    const raw = r.rows[0]!['QUERY PLAN'];
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
    return indexRows(doc[0]!.Plan, index);
  });
}

const count = async (providerId: string, where: ReturnType<typeof sql>) =>
  Number(
    (await sql<{ n: string }>`SELECT count(*) AS n FROM subscribers s WHERE s.provider_id = ${providerId} AND ${where}`.execute(t.db))
      .rows[0]!.n,
  );

describe('the search indexes are keyed by provider', () => {
  it("a word pass reads the provider's documents of its words from the index, not every provider's", async () => {
    const plan = planSearch('Anna Berlin', ['DE']);
    if (plan.kind !== 'tokens') throw new Error('a word plan');
    const q = (await docIndexQuery(small, plan, false).execute(t.db)).rows[0]!.q;
    const own = Number(
      (
        await sql<{ n: string }>`SELECT count(*) AS n FROM search_documents WHERE provider_id = ${small} AND doc @@ ${q}::tsquery`.execute(
          t.db,
        )
      ).rows[0]!.n,
    );
    const everyone = Number(
      (await sql<{ n: string }>`SELECT count(*) AS n FROM search_documents WHERE doc @@ ${q}::tsquery`.execute(t.db)).rows[0]!.n,
    );
    expect(own).toBeGreaterThan(0);
    expect(everyone).toBeGreaterThan(10 * own);
    expect(await scans(small, 'Anna Berlin', 'search_documents_keyed_idx')).toEqual([own]);
  });

  it("a name word is read as the provider's entries of the name index, whole and with a typo", async () => {
    const zoes = await count(small, sql`s.first_name = 'Zoe'`);
    expect(zoes).toBeGreaterThan(0);
    expect(await count(big, sql`s.first_name = 'Zoe'`)).toBeGreaterThan(10 * zoes);
    // (Two scans: the name's key and the key of a customer of too many words for pairs, none here.)
    expect(Math.max(...(await scans(small, 'Zoe', 'subscribers_search_name_keys_keyed_idx')))).toBe(zoes);
    // "Webrr": one letter wrong, found through a deleted form of Weber; every Weber of the small
    // provider, none of the big one's.
    const webers = await count(small, sql`s.last_name = 'Weber'`);
    const fuzzy = await scans(small, 'Webrr', 'subscribers_search_name_keys_keyed_idx', true);
    expect(webers).toBeGreaterThan(0);
    expect(Math.max(...fuzzy)).toBe(webers);
  });

  it('a keyed query means what the plain one means, whatever the words hold (quotes, backslashes, prefixes)', async () => {
    const lexeme = fc.stringMatching(/^[a-z:'\\ ~ä]{1,6}$/);
    const query: fc.Arbitrary<string> = fc.letrec<{ q: string }>((tie) => ({
      q: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.tuple(lexeme, fc.boolean()).map(([l, p]) => `'${l.replace(/\\/g, '\\\\').replace(/'/g, "''")}'${p ? ':*' : ''}`),
        fc.tuple(tie('q'), fc.constantFrom(' & ', ' | '), tie('q')).map(([a, op, b]) => `(${a}${op}${b})`),
        tie('q').map((a) => `!${a}`),
      ),
    })).q;
    await fc.assert(
      fc.asyncProperty(fc.array(lexeme, { minLength: 1, maxLength: 6 }), query, async (words, q) => {
        const provider = newId();
        const r = await sql<{ plain: boolean; keyed: boolean; other: boolean; none: boolean }>`
          SELECT d @@ ${q}::tsquery AS plain, ''::tsvector @@ ${q}::tsquery AS none,
                 agent_search_doc_keyed(${provider}::uuid, d) @@ agent_search_doc_keyed_query(${provider}::uuid, ${q}) AS keyed,
                 agent_search_doc_keyed(${provider}::uuid, d) @@ agent_search_doc_keyed_query(${newId()}::uuid, ${q}) AS other
          FROM (SELECT array_to_tsvector(${words}::text[]) AS d) x`.execute(t.db);
        const row = r.rows[0]!;
        expect(row.keyed).toBe(row.plain);
        // Under another provider's key the query meets none of the document's words: it answers
        // what it answers a document of no words (true only through a negation).
        expect(row.other).toBe(row.none);
      }),
      { numRuns: 150 },
    );
  });
});
