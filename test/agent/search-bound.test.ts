import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/db.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

// The fuzzy (third) search pass is bounded by SEARCH_FUZZY_TIMEOUT_MS per statement: short common
// words can make it read most of the table. statement_timeout is a real-Postgres behaviour (the
// embedded database does not interrupt a statement), so this file runs there only.
describe.skipIf(!usingPostgres())('search: the fuzzy pass stops at its time bound (real Postgres)', () => {
  let kit: AgentKit;
  let anna: SeededCustomer;
  const search = (q: string) => kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`);

  beforeAll(async () => {
    // 1 ms: no fuzzy statement over thousands of candidates finishes within it.
    kit = await setupAgent({ env: { SEARCH_FUZZY_TIMEOUT_MS: '1' } });
    anna = await seedCustomer(kit, { firstName: 'Anna', lastName: 'Beispiel', email: 'anna@beispiel.example' });
    // 4,000 customers whose names contain "hans" and "hamburg" but never start with them: only the
    // fuzzy pass can match "hans hamburg", and it has thousands of candidates to check.
    await sql`
      INSERT INTO subscribers (id, provider_id, customer_number, first_name, last_name, email, created_at, updated_at)
      SELECT gen_random_uuid(), ${kit.main.id}::uuid,
        chr(81 + g % 10) || chr(65 + (g / 10) % 26) || chr(65 + (g / 260) % 26) || 'Q-' || lpad((g % 10000)::text, 4, '0'),
        'Xhans' || g, 'Yhamburg' || g, 'bulk' || g || '@bound.example', now(), now()
      FROM generate_series(1, 4000) AS g`.execute(kit.t.db);
  });
  afterAll(async () => {
    await expectNoLeaks(kit);
    await kit.close();
  });

  it('answers 422 search_too_broad instead of running on, in the agent envelope', async () => {
    const r = await search('hans hamburg');
    expectError(r, 422, 'search_too_broad');
    expect(r.body.error.message).toMatch(/more telling detail/);
  });

  it('leaves the earlier passes alone: an exact email, a name and a prefix still answer', async () => {
    expect((await search('anna@beispiel.example')).body.matches.map((m: any) => m.customer_id)).toEqual([anna.id]);
    expect((await search('Anna Beispiel')).body.matches.map((m: any) => m.customer_id)).toEqual([anna.id]);
    const prefix = await search('Xhans1234 Yhamburg1234');
    expect(prefix.status).toBe(200);
    expect(prefix.body.match_count).toBe(1);
  });

  it('leaves the connection usable: the next request on the pool answers normally', async () => {
    for (let i = 0; i < 3; i++) expectError(await search('hans hamburg'), 422, 'search_too_broad');
    const r = await kit.call('GET', `/agent/customers/search?q=${encodeURIComponent('anna@beispiel.example')}`);
    expect(r.status).toBe(200);
    // The timeout was local to the search's transaction, not left on a pooled connection.
    const setting = await sql<{ v: string }>`SELECT current_setting('statement_timeout') AS v`.execute(kit.t.db);
    expect(setting.rows[0].v).toBe('0');
  });
});
