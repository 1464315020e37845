// agent_customer_search runs on generic plans, where a provider is one of n_distinct: with hundreds
// of providers the planner read a provider's whole entries of a provider-leading index into a bitmap
// to AND with the name index's (60 ms at 10M customers, bench/README.md). The probes that read an
// index not led by the provider check the provider where no index serves it. PostgreSQL only: the
// plans are read with auto_explain, which the embedded database does not have.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSearch, structuredProbes } from '../../src/modules/subscribers/search.query.js';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';

describe.skipIf(!usingPostgres())('the search probes on generic plans (PostgreSQL)', () => {
  let testDb: TestDb;
  let client: pg.Client;
  const provider = '00000000-0000-4000-8000-000000000001';

  beforeAll(async () => {
    testDb = await createTestDb();
    const db = testDb.handle.db;
    // 300 providers of 20 customers each, every one a "Zoe"; the first provider's also live in buildings.
    await sql`INSERT INTO providers (id, name, slug, support_email)
      SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(p), 12, '0'))::uuid, 'P' || p, 'p-' || p, 'p' || p || '@example.test'
      FROM generate_series(1, 300) p`.execute(db);
    await sql`INSERT INTO subscribers (id, provider_id, first_name, last_name, email)
      SELECT gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad(to_hex(1 + i % 300), 12, '0'))::uuid,
        'Zoe', 'Name' || (i % 50), 'c' || i || '@example.test'
      FROM generate_series(0, 5999) i`.execute(db);
    await sql`ANALYZE subscribers, search_documents`.execute(db);
    client = new pg.Client({ connectionString: testDb.url });
    await client.connect();
    await client.query(`LOAD 'auto_explain'`);
    await client.query(`SET auto_explain.log_min_duration = 0`);
    await client.query(`SET auto_explain.log_nested_statements = on`);
  });
  afterAll(async () => {
    await client?.end();
    await testDb?.drop();
  });

  /** The plans of the statements one call of agent_customer_search runs for q's probes of `kind` (its second call: generic plans). */
  async function plans(q: string, kind: string) {
    const probes = structuredProbes(planSearch(q, ['DE'])).filter((p) => p.kind === kind);
    expect(probes).toHaveLength(1);
    const names = probes.map((p) => ('names' in p && p.names ? p.names.join(' ') : null));
    const tokens = probes.map((p) => ('tokens' in p ? p.tokens.join(' ') : null));
    const text = `SELECT * FROM agent_customer_search($1::uuid, $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], 25, 1000)`;
    const values = [provider, [kind], [null], [null], names, tokens];
    await client.query(text, values);
    const log: string[] = [];
    const listen = (m: { message?: string }) => log.push(m.message ?? '');
    client.on('notice', listen);
    await client.query('SET client_min_messages = log');
    const r = await client.query(text, values);
    await client.query('SET client_min_messages = notice');
    client.off('notice', listen);
    return { rows: r.rows.length, plan: log.join('\n') };
  }

  it('a name probe reads the name index alone, never a provider-leading index', async () => {
    const { rows, plan } = await plans('Zoe', 'name');
    expect(rows).toBe(20);
    expect(plan).toMatch(/subscribers_search_name_keys_keyed_idx/);
    expect(plan).not.toMatch(/Index Cond: \(provider_id = /);
  });

  it('a name-plus-place probe reads its candidates from the search document, not the provider', async () => {
    // (6,000 documents are a seq scan's size; at 1M the index is the plan: bench/README.md.)
    await client.query('SET enable_seqscan = off');
    const { plan } = await plans('Zoe 4B', 'name_location');
    await client.query('RESET enable_seqscan');
    expect(plan).toMatch(/search_documents_keyed_idx/);
    expect(plan).not.toMatch(/Index Cond: \(provider_id = /);
  });

  it('a name-plus-place probe with a place word that stays a prefix asks first whether anyone has the names', async () => {
    // A GIN scan gathers every entry a prefix starts before it ANDs them with the names: an address
    // read as a name and a place paid that in full (bench/README.md). A place word stays a prefix where
    // it starts more than 32 of the provider's words ('w:wald1' to 'w:wald40'); then the names are asked alone first.
    await sql`INSERT INTO search_doc_words (provider_id, word) SELECT ${provider}::uuid, 'w:wald' || n FROM generate_series(1, 40) n`.execute(
      testDb.handle.db,
    );
    const candidates = /WITH n AS MATERIALIZED/;
    const names = /WITH named AS MATERIALIZED/;
    const nobody = await plans('Nobodyhere 4B Wald', 'name_location');
    expect(nobody.rows).toBe(0);
    expect(nobody.plan).toMatch(names);
    expect(nobody.plan).not.toMatch(candidates);
    const zoe = await plans('Zoe 4B Wald', 'name_location');
    expect(zoe.plan).toMatch(names);
    expect(zoe.plan).toMatch(candidates);
    // Every place word asked as whole words: the candidates at once (a name no one has ends the scan).
    const whole = await plans('Nobodyhere 4B', 'name_location');
    expect(whole.rows).toBe(0);
    expect(whole.plan).not.toMatch(names);
    expect(whole.plan).toMatch(candidates);
  });

  it('the search function keeps common names’ bitmaps exact (its work_mem)', async () => {
    const r = await sql<{ config: string[] }>`SELECT proconfig AS config FROM pg_proc WHERE proname = 'agent_customer_search'`.execute(
      testDb.handle.db,
    );
    expect(r.rows[0]!.config).toContain('work_mem=16MB');
  });
});
