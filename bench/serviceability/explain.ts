// DATABASE_URL=postgres://…/netsvc_bench_serv npx tsx bench/serviceability/explain.ts [--dataset bench/dataset-serv.json] [--out bench/serviceability/plans-1m.txt]
// EXPLAIN (ANALYZE, BUFFERS) of the autocomplete query classes and of the provisioning read on a loaded
// benchmark database, as text. The statements inside the PL/pgSQL functions are captured with
// auto_explain (log_nested_statements; needs a superuser session), after a few warm-up calls so that
// the plan shown is the cached generic one the server runs.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { DB } from '../../src/db/types.js';
import { searchKey } from '../../src/modules/serviceability/address-normalize.js';
import { autocompleteFuzzySql, prefixUpperBound } from '../../src/modules/serviceability/serviceability.repository.js';

const { values: args } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'bench/dataset-serv.json' },
    out: { type: 'string', default: 'bench/serviceability/plans-1m.txt' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL of a loaded benchmark database is required');
const d = JSON.parse(readFileSync(args.dataset, 'utf8')) as {
  provider_id: string;
  plan_version_ids: string[];
  free_locations: string[];
  addresses: number;
};

const client = new pg.Client({ connectionString: url });
await client.connect();
const notices: string[] = [];
client.on('notice', (n) => notices.push(n.message ?? ''));
await client.query(`LOAD 'auto_explain'`);
await client.query(`SET auto_explain.log_min_duration = 0`);
await client.query(`SET auto_explain.log_analyze = on`);
await client.query(`SET auto_explain.log_buffers = on`);
await client.query(`SET auto_explain.log_nested_statements = on`);
const out: string[] = [];
const header = (title: string, why: string) => out.push('', '='.repeat(100), title, why, '='.repeat(100));

/** Runs `text` a few times unlogged, then once with the nested plan logged; keeps the inner plan. */
async function nested(title: string, why: string, text: string, values: unknown[]) {
  await client.query(`SET client_min_messages = warning`);
  for (let i = 0; i < 6; i++) await client.query(text, values);
  notices.length = 0;
  await client.query(`SET client_min_messages = log`);
  const t0 = performance.now();
  const r = await client.query(text, values);
  const ms = performance.now() - t0;
  await client.query(`SET client_min_messages = warning`);
  header(title, why);
  out.push(
    `-- call: ${text}  ${JSON.stringify(values)}`,
    `-- round trip ${ms.toFixed(2)} ms; answer: ${JSON.stringify(r.rows[0]).slice(0, 300)}`,
  );
  // The first logged plan is the statement inside the function; the second, the outer call.
  for (const n of notices) out.push(n.replace(/^duration: /, '-- duration: '));
}

async function explain(title: string, why: string, text: string, values: unknown[]) {
  await client.query(`SET client_min_messages = warning`);
  await client.query(text, values);
  const r = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
  header(title, why);
  out.push(...r.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']));
}

const P = d.provider_id;
const classes: [string, string][] = [
  ['short street prefix (DE), 15,700 rows in range', 'Haup'],
  ['street and house number (DE)', 'Hauptstraße 1'],
  ['house-number suffix separated ("12 A" typed, "12A" stored)', 'Hauptstraße 12 A'],
  ['house-number suffix fused, with postcode', 'hauptstraße 12a, 2042'],
  ['house number first (CA, as displayed)', '12 King Street W'],
  ['street first (CA), second range (coverage_street_first_idx)', 'King Street West 1'],
  ['street first (CA), street only', 'Spadina Aven'],
  ['nothing starts with it (prefix ranges empty, then the fallback)', 'Hauptstrase 12'],
];
for (const [label, q] of classes) {
  const key = searchKey(q);
  await nested(
    `autocomplete candidates — ${label}: q=${JSON.stringify(q)} (key ${JSON.stringify(key)})`,
    'One call per keystroke: two index-only range scans stopped by their LIMIT (limit 15 + 5), buildings of those rows only.',
    'SELECT coverage_autocomplete_candidates($1, $2, $3, $4) AS rows',
    [P, key, prefixUpperBound(key), 20],
  );
}

const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
for (const q of ['Hauptstrase 12', '10115 berlin']) {
  const c = autocompleteFuzzySql(P, searchKey(q), 20).compile(db);
  await explain(
    `autocomplete fallback (trigram GIN) — q=${JSON.stringify(q)}`,
    'Only when both prefix ranges are empty. Reads every trigram match of the provider, scores it, keeps the best 20 (top-N sort), then their buildings.',
    c.sql,
    c.parameters as unknown[],
  );
}

// Before (the statement this replaced, for the record): DISTINCT ON (display) over the whole range.
for (const key of ['haup']) {
  await explain(
    `BEFORE (commit c9f3600) — DISTINCT ON over the whole range: key ${JSON.stringify(key)}`,
    'The old statement sorted and deduplicated every row of the range before its LIMIT (and joined buildings by a hash of all of them). ' +
      "Shown warm (run once before) on today's indexes; cold, at the start of this work, it took 383 ms with 16,077 buffers read.",
    `SELECT * FROM (
      SELECT DISTINCT ON (c.display) c.id, c.building_id, c.street, c.house_number, c.house_number_norm, c.postal_code,
        c.city, c.province, c.country, c.display, c.orderable, c.search_key, b.in_coverage AS building_in_coverage
      FROM coverage_addresses c LEFT JOIN buildings b ON b.id = c.building_id
      WHERE c.provider_id = $1
        AND c.search_key COLLATE "C" >= $2 AND c.search_key COLLATE "C" < $3
      ORDER BY c.display, c.orderable DESC, (c.building_id IS NULL), c.id
    ) d
    ORDER BY d.search_key COLLATE "C", d.display
    LIMIT 15`,
    [P, key, prefixUpperBound(key)],
  );
}

// Provider-initiated provisioning: the one read before the transaction.
const hash = d.free_locations[d.free_locations.length - 1];
await nested(
  'provisioning read — provider-initiated, delivery_mode direct, new subscriber',
  'Plan, port with its building, subscriber of the email, idempotency key and occupancy in one statement (five before).',
  'SELECT * FROM provisioning_explicit_snapshot($1, $2, $3, $4, $5, $6)',
  [P, d.plan_version_ids[0], hash, null, 'explain-probe@load.test', new Date().toISOString().slice(0, 10)],
);

const version = (await client.query(`SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb`)).rows[0];
const sizes = (
  await client.query(
    `SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS size FROM pg_class WHERE relname IN ('coverage_addresses', 'coverage_prefix_idx', 'coverage_street_first_idx', 'coverage_trgm_idx') ORDER BY relname`,
  )
).rows;
writeFileSync(
  args.out,
  [
    `EXPLAIN (ANALYZE, BUFFERS) at ${d.addresses} coverage addresses, PostgreSQL ${version.v} (shared_buffers ${version.sb}), ${new Date().toISOString()}`,
    `Sizes: ${sizes.map((s: { relname: string; size: string }) => `${s.relname} ${s.size}`).join(', ')}`,
    'Generated by bench/serviceability/explain.ts; timings are of one run on a shared 2-core machine.',
    ...out,
    '',
  ].join('\n'),
);
console.log(`wrote ${args.out}`);
await client.end();
await db.destroy();
