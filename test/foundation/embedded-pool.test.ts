// test/helpers/embedded-pool.ts: a reused embedded database is the template's, whatever the file
// before it did; what a reset cannot undo retires the instance instead.
import { afterEach, describe, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { leaseEmbedded } from '../helpers/embedded-pool.js';
import { usingPostgres } from '../helpers/db.js';

// [what a file did, the change, a probe whose answer shows it]
const CHANGES: [string, string, string][] = [
  ['rows', `DELETE FROM regions; INSERT INTO tickets_probe_missing VALUES (1)`, `SELECT count(*)::text AS v FROM regions`],
  [
    'a renamed column',
    `ALTER TABLE tickets RENAME COLUMN subject TO subject_x`,
    `SELECT string_agg(attname, ',') AS v FROM pg_attribute WHERE attrelid = 'tickets'::regclass AND attname LIKE 'subject%'`,
  ],
  [
    'a renamed function',
    `ALTER FUNCTION subscription_occupies RENAME TO subscription_occupies_x`,
    `SELECT count(*)::text AS v FROM pg_proc WHERE proname = 'subscription_occupies'`,
  ],
  [
    "a function's volatility",
    `ALTER FUNCTION agent_search_name_keys VOLATILE`,
    `SELECT provolatile::text AS v FROM pg_proc WHERE proname = 'agent_search_name_keys'`,
  ],
  [
    'an altered sequence',
    `ALTER SEQUENCE webhook_deliveries_seq_seq START WITH 1000 INCREMENT BY 7`,
    `SELECT seqstart || '/' || seqincrement AS v FROM pg_sequence WHERE seqrelid = 'webhook_deliveries_seq_seq'::regclass`,
  ],
  [
    'a rule',
    `CREATE RULE probe_rule AS ON INSERT TO customer_notes DO INSTEAD NOTHING`,
    `SELECT count(*)::text AS v FROM pg_rewrite WHERE rulename = 'probe_rule'`,
  ],
  ['a comment', `COMMENT ON TABLE users IS 'probe'`, `SELECT coalesce(obj_description('users'::regclass), 'none') AS v`],
  ['a role', `CREATE ROLE probe_role`, `SELECT count(*)::text AS v FROM pg_roles WHERE rolname = 'probe_role'`],
  ['a large object', `SELECT lo_from_bytea(0, 'x')`, `SELECT count(*)::text AS v FROM pg_largeobject_metadata`],
  ['statistics', `ANALYZE regions`, `SELECT count(*)::text AS v FROM pg_statistic WHERE starelid = 'regions'::regclass`],
  ['a session setting', `SET work_mem = '1MB'`, `SELECT current_setting('work_mem') AS v`],
  ['an advisory lock', `SELECT pg_advisory_lock(42)`, `SELECT count(*)::text AS v FROM pg_locks WHERE locktype = 'advisory'`],
];

const probe = async (p: PGlite, q: string) => (await p.query<{ v: string | null }>(q)).rows[0]?.v;

describe.skipIf(usingPostgres())('the embedded test databases are reused as the template', () => {
  const leases: Awaited<ReturnType<typeof leaseEmbedded>>[] = [];
  const lease = async () => {
    const l = await leaseEmbedded();
    leases.push(l);
    return l;
  };
  afterEach(async () => {
    for (const l of leases.splice(0)) await l.release();
  });

  it.each(CHANGES)('what a finished file left (%s) never reaches the next', async (_what, change, q) => {
    const a = await lease();
    const fresh = await probe(a.pglite, q);
    // One statement at a time: the rows case goes on past its deliberate error.
    for (const statement of change.split('; ')) await a.pglite.exec(statement).catch(() => undefined);
    expect(await probe(a.pglite, q)).not.toBe(fresh);
    await a.release();
    const b = await lease();
    expect(await probe(b.pglite, q)).toBe(fresh);
  });

  it('a released database refuses every call, as a rejected promise, and none patches it', async () => {
    const a = await lease();
    expect(() => Object.assign(a.pglite, { query: () => undefined })).toThrow(TypeError);
    await a.release();
    expect(a.pglite.closed).toBe(true);
    await expect(a.pglite.query('SELECT 1')).rejects.toThrow(/released/);
  });

  it("a file's LISTEN callback never hears the next file", async () => {
    const a = await lease();
    const heard: string[] = [];
    await a.pglite.listen('probe_channel', (payload) => heard.push(payload));
    await a.release();
    const b = await lease();
    await b.pglite.query(`SELECT pg_notify('probe_channel', 'for the next file')`);
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([]);
  });
});
