import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';
import { usingPostgres } from '../helpers/db.js';
import { expectNoLeaks, seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

/** `n` customers of the provider named `first` with last names Bulk1..BulkN. */
async function bulkCustomers(kit: AgentKit, first: string, n: number, tag: string) {
  await sql`
    INSERT INTO subscribers (id, provider_id, first_name, last_name, email, created_at, updated_at)
    SELECT gen_random_uuid(), ${kit.main.id}::uuid, ${first}, 'Bulk' || g, ${tag} || g || '@bound.example', now(), now()
    FROM generate_series(1, ${n}) AS g`.execute(kit.t.db);
}

describe('search: match_count is exact up to 1000, then capped', () => {
  let kit: AgentKit;
  const search = (q: string) => kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`);

  beforeAll(async () => {
    kit = await setupAgent();
    await bulkCustomers(kit, 'Capella', 1001, 'cap');
    await bulkCustomers(kit, 'Exacta', 1000, 'exact');
  });
  afterAll(async () => {
    await expectNoLeaks(kit);
    await kit.close();
  });

  it('a search matching more than 1000 customers answers match_count 1000 with match_count_capped true', async () => {
    const r = await search('Capella');
    expect(r.status).toBe(200);
    expect({ ...r.body, matches: r.body.matches.length }).toEqual({
      ambiguous: true,
      match_count: 1000,
      match_count_capped: true,
      incomplete: false,
      matches: 25,
    });
  });

  it('a search matching exactly 1000 customers counts them exactly, not capped', async () => {
    const r = await search('Exacta');
    expect({ ...r.body, matches: r.body.matches.length }).toEqual({
      ambiguous: true,
      match_count: 1000,
      match_count_capped: false,
      incomplete: false,
      matches: 25,
    });
  });

  it('a one-typo word matching more than 1000 names answers match_count 1000, capped', async () => {
    const r = await search('Capellx');
    expect({ ...r.body, matches: r.body.matches.length }).toEqual({
      ambiguous: true,
      match_count: 1000,
      match_count_capped: true,
      incomplete: false,
      matches: 25,
    });
  });

  it('a one-typo word matching exactly 1000 names counts them exactly, not capped', async () => {
    const r = await search('Exactx');
    expect({ ...r.body, matches: r.body.matches.length }).toEqual({
      ambiguous: true,
      match_count: 1000,
      match_count_capped: false,
      incomplete: false,
      matches: 25,
    });
  });

  it('the word passes cap their count too (a first name and a whole word of the invoice city)', async () => {
    await kit.t.db.updateTable('subscribers').set({ invoice_city: 'Capstadt' }).where('first_name', '=', 'Capella').execute();
    const r = await search('Capella Capstadt');
    expect({ count: r.body.match_count, capped: r.body.match_count_capped }).toEqual({ count: 1000, capped: true });
  });
});

// SEARCH_TIMEOUT_MS bounds a whole search: each statement runs with the time left as its
// statement_timeout. statement_timeout is a real-Postgres behaviour (the embedded database does not
// interrupt a statement), so this part runs there only.
describe.skipIf(!usingPostgres())('search: a search stops at its time bound and answers what it has (real Postgres)', () => {
  let kit: AgentKit;
  let anna: SeededCustomer;
  const search = (q: string) => kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`);

  beforeAll(async () => {
    // 1 ms: no statement over thousands of candidates finishes within it.
    kit = await setupAgent({ env: { SEARCH_TIMEOUT_MS: '1' } });
    anna = await seedCustomer(kit, { firstName: 'Anna', lastName: 'Beispiel', email: 'anna@beispiel.example' });
    await bulkCustomers(kit, 'Hans', 4000, 'bound');
  });
  afterAll(async () => {
    await expectNoLeaks(kit);
    await kit.close();
  });

  it('answers 200 with incomplete true and what it found (nothing), never a 500', async () => {
    // Word passes ("Hans Hamburg": no one has both names) and a name narrowed by its place.
    for (const q of ['Hans Hamburg', 'Hans 4B', 'a b', '%_%', 'Hamburg']) {
      const r = await search(q);
      expect({ q, status: r.status }).toEqual({ q, status: 200 });
      expect(r.body).toEqual({ ambiguous: false, match_count: 0, match_count_capped: false, incomplete: true, matches: [] });
    }
  });

  it('whole values and full names are index lookups answered in one statement, outside the bound', async () => {
    // Called on the service with the clock held: through HTTP a 1 ms bound can pass between the
    // request's arrival and its turn (the auth and rate-limit reads come first), and a search whose
    // bound passed while it waited answers incomplete before any statement (search-concurrency).
    // The database's clock is not held: a lookup run under the bound would meet a 1 ms statement_timeout.
    let statements = 0;
    const service = createSubscriberSearchService({
      db: kit.t.db.withPlugin({
        transformQuery: (args) => (statements++, args.node),
        transformResult: async (args) => args.result,
      }),
      dbHandle: kit.t.testDb.handle,
      config: kit.t.config,
      log: pino({ level: 'silent' }),
    });
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.now());
    try {
      for (const q of ['anna@beispiel.example', 'Anna Beispiel']) {
        statements = 0;
        const r = await service.search(kit.main.id, q, 10);
        const got = { q, ids: r.matches.map((m) => m.customer_id), incomplete: r.incomplete, statements };
        expect(got).toEqual({ q, ids: [anna.id], incomplete: false, statements: 1 });
      }
    } finally {
      now.mockRestore();
    }
  });

  it('a name of one word reads every customer of that name, so it runs under the bound', async () => {
    // 4,000 customers called Hans: the name index gathers them all before it reads the provider's.
    expect(await search('Hans').then((r) => r.body)).toEqual({
      ambiguous: false,
      match_count: 0,
      match_count_capped: false,
      incomplete: true,
      matches: [],
    });
  });

  it('leaves the connection usable, with the timeout local to the search transaction', async () => {
    for (let i = 0; i < 3; i++) expect((await search('Hans Hamburg')).body.incomplete).toBe(true);
    const setting = await sql<{ v: string }>`SELECT current_setting('statement_timeout') AS v`.execute(kit.t.db);
    expect(setting.rows[0]!.v).toBe('0');
    const r = await kit.t.db.selectFrom('subscribers').select('id').where('id', '=', anna.id).execute();
    expect(r).toHaveLength(1);
  });
});
