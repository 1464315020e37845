// Writes the EXPLAIN (ANALYZE, BUFFERS) plans of the statements the agent search, the verified profile
// and the plan-change preview run, one file per query class, into bench/search/plans/. The statements
// inside the PL/pgSQL functions are captured with auto_explain (nested statements, the generic plans
// the functions run with); each query runs once to warm the connection, then once measured.
//   DATABASE_URL=postgres://root@127.0.0.1:5432/netsvc_bench_search npx tsx bench/search/explain.ts
// Needs a superuser (LOAD 'auto_explain').
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { planSearch, structuredProbes, type Probe } from '../../src/modules/subscribers/search.query.js';
import { chooseDriver, searchSql } from '../../src/modules/subscribers/search-words.repository.js';
import { ownedWithSessionSql } from '../../src/modules/subscribers/profile.repository.js';
import { previewSnapshotSql } from '../../src/modules/plan-change/plan-change.repository.js';
import { sessionTokenHash } from '../../src/modules/verified-sessions/index.js';
import type { DB } from '../../src/db/types.js';
import type { Dataset } from '../scenarios.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const d = JSON.parse(readFileSync('bench/dataset.json', 'utf8')) as Dataset;
const out = 'bench/search/plans';
mkdirSync(out, { recursive: true });

const client = new pg.Client({ connectionString: url });
await client.connect();
let log: string[] = [];
client.on('notice', (m) => log.push(m.message ?? ''));
await client.query(`LOAD 'auto_explain'`);
await client.query(`SET auto_explain.log_min_duration = 0`);
await client.query(`SET auto_explain.log_analyze = on`);
await client.query(`SET auto_explain.log_buffers = on`);
await client.query(`SET auto_explain.log_nested_statements = on`);

const version = (await client.query('SELECT version() AS v')).rows[0].v as string;
const counts = (await client.query(`SELECT (SELECT count(*) FROM subscribers) AS customers, (SELECT count(*) FROM buildings) AS buildings`))
  .rows[0];

async function capture(file: string, title: string, text: string, values: unknown[]) {
  await client.query({ text, values }); // compiles the function and caches its plans on this connection
  await client.query('SET client_min_messages = log');
  log = [];
  const t0 = process.hrtime.bigint();
  const r = await client.query({ text, values });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  await client.query('SET client_min_messages = notice');
  const header = [
    `# ${title}`,
    `# ${version}; ${counts.customers} customers, ${counts.buildings} buildings`,
    `# call: ${text}`,
    `# parameters: ${JSON.stringify(values, (_k, v) => (v?.type === 'Buffer' && Array.isArray(v.data) ? `\\x${Buffer.from(v.data).toString('hex')}` : v))}`,
    `# rows returned: ${r.rowCount}; round trip ${ms.toFixed(2)} ms (auto_explain's own timing included)`,
    '',
  ];
  writeFileSync(`${out}/${file}`, `${header.join('\n')}${log.join('\n\n')}\n`);
  console.log(`${file}: ${r.rowCount} rows, ${ms.toFixed(2)} ms`);
}

const SEARCH =
  'SELECT * FROM agent_customer_search($1::uuid, $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::integer, $8::integer)';
const probeArgs = (probes: Probe[]) => [
  d.provider_id,
  probes.map((p) => p.kind),
  probes.map((p) => ('key' in p ? p.key : null)),
  probes.map((p) => (p.kind === 'address' ? p.house : null)),
  probes.map((p) => ('names' in p && p.names ? p.names.join(' ') : null)),
  probes.map((p) => ('tokens' in p ? p.tokens.join(' ') : null)),
  25,
  1000,
];
const regions = ['CA', 'DE'];
const sample = (cls: string) => d.queries.find((q) => q.class === cls)!.q;

for (const cls of ['name', 'email', 'phone', 'customer_number', 'address']) {
  const q = sample(cls);
  await capture(
    `search-${cls}.txt`,
    `agent search, class ${cls}: "${q}" (first pass, one call)`,
    SEARCH,
    probeArgs(structuredProbes(planSearch(q, regions))),
  );
}
await capture(
  'search-name-plus-unit.txt',
  'agent search: a name narrowed by its unit ("Anna Schmidt 1A")',
  SEARCH,
  probeArgs(structuredProbes(planSearch('Anna Schmidt 1A', regions))),
);

// The verified reads as the routes send them: ownership, the X-Verified-Session row and the profile in
// one statement; the preview's snapshot (read after the ownership check).
const compiler = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
const s = d.sessions.find((x) => x.customer_id && x.subscription_id)!;
const tokenHash = sessionTokenHash(s.token) ?? null;
const profile = ownedWithSessionSql(d.provider_id, s.customer_id, tokenHash, 'agent_customer_profile').compile(compiler);
await capture(
  'profile.txt',
  'verified profile read: ownership, session and profile in one statement (agent_customer_profile)',
  profile.sql,
  [...profile.parameters],
);
const today = new Date().toISOString().slice(0, 10);
const preview = previewSnapshotSql({
  providerId: d.provider_id,
  subscriptionId: s.subscription_id,
  subscriberId: s.customer_id,
  planVersionId: d.plan_version_ids[2]!,
  today,
  month: `${today.slice(0, 7)}-01`,
  perSubscription: false,
}).compile(compiler);
await capture(
  'plan-change-preview.txt',
  'plan-change preview: the snapshot in one statement (plan_change_preview_snapshot), after the ownership read',
  preview.sql,
  [...preview.parameters],
);

// The second pass (every word against every field), run when the first finds nothing: its SQL is
// built per query, so it is explained directly (JIT off, as the repository runs it).
for (const [file, q] of [['search-second-pass.txt', 'Anna Berlin 4B']] as const) {
  const plan = planSearch(q, regions);
  const driver = (await chooseDriver(compiler, d.provider_id, plan, false))!;
  const c = searchSql(d.provider_id, plan, 25, false, driver).compile(compiler);
  await client.query('SET jit = off');
  const r = await client.query({ text: `EXPLAIN (ANALYZE, BUFFERS) ${c.sql}`, values: [...c.parameters] });
  writeFileSync(
    `${out}/${file}`,
    [
      `# agent search, second pass: "${q}" (no first-pass reading matches; word ${driver + 1} drives: the fewest matches)`,
      `# ${version}; ${counts.customers} customers, ${counts.buildings} buildings`,
      '',
      ...r.rows.map((row) => row['QUERY PLAN']),
      '',
    ].join('\n'),
  );
  console.log(`${file}: explained`);
}
await compiler.destroy();
await client.end();
