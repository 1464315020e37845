// A/B of one read scenario between checkouts or settings: CPU per request of the server process
// and of PostgreSQL, which held steady on VMs where req/s and the floor ratio did not.
//
//   npm run bench:ab -- --db postgres://127.0.0.1/netsvc_bench --scenario preview                # this checkout
//   npm run bench:ab -- --dir ../old --db postgres://127.0.0.1/old_bench --dataset /tmp/old.json --scenario preview
//   npm run bench:ab -- --db postgres://127.0.0.1/netsvc_bench --scenario profile --env SOME_SETTING=1   # a variant
//
// Starts `src/server.ts` of --dir on its own port against --db (a bench:data database's URL), loads one
// scenario with autocannon (16 connections, 3 s warm-up, then --seconds measured) and prints requests,
// non-2xx answers and CPU per request. Run the variants alternately, twice or more each: one run says
// little on a shared VM. bench/README.md ("The preview's two costs") shows a use.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from '../src/db/types.js';
import { cpuBetween, cpuPerRequest, cpuSnapshot } from './cpu.js';
import { benchServerEnv, spawnServer, waitForServer } from './server.js';
import { scenarios, type Dataset } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string', default: '.' },
    db: { type: 'string' },
    dataset: { type: 'string', default: 'bench/dataset.json' },
    scenario: { type: 'string', default: 'preview' },
    seconds: { type: 'string', default: '8' },
    port: { type: 'string', default: '3998' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
if (!args.db) throw new Error('--db <postgres://...> is required (a database loaded by npm run bench:data)');

const dir = path.resolve(args.dir);
const d = JSON.parse(readFileSync(args.dataset, 'utf8')) as Dataset;
const base = `http://127.0.0.1:${args.port}`;
const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: args.db, max: 2 }) }) });

// The two floors, and the read scenarios of `npm run bench` under short names, with the same requests.
const FLOORS: Record<string, autocannon.Request[]> = {
  constant: [{ method: 'GET', path: '/__bench/constant' }],
  select1: [{ method: 'GET', path: '/__bench/select1' }],
};
const BENCH_NAMES: Record<string, string> = {
  search: 'agent_search_mixed',
  profile: 'agent_profile_verified',
  preview: 'plan_change_preview',
  autocomplete: 'serviceability_autocomplete',
};
const scenario = scenarios(d, { base, db, receiverCount: () => 0 }).find((s) => s.name === BENCH_NAMES[args.scenario]);
const requests = FLOORS[args.scenario] ?? (scenario?.requests as autocannon.Request[] | undefined);
if (!requests) throw new Error(`--scenario is one of ${[...Object.keys(FLOORS), ...Object.keys(BENCH_NAMES)].join(', ')}`);

const server = spawnServer(
  benchServerEnv(args.port, {
    ...Object.fromEntries(args.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
    DATABASE_URL: args.db,
  }),
  { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
);
try {
  await waitForServer(`${base}/__bench/constant`, server);
  // The scenario's own pass first (the preview keeps to ACTIVE subscriptions), as npm run bench does.
  await scenario?.check?.();
  const load = (duration: number) =>
    new Promise<autocannon.Result>((resolve, reject) =>
      autocannon({ url: base, connections: 16, duration, requests }, (err, r) => (err ? reject(err) : resolve(r))),
    );
  await load(3);
  const before = cpuSnapshot(server.pid!);
  const r = await load(Number(args.seconds));
  const spent = cpuBetween(before, cpuSnapshot(server.pid!));
  const cpu = spent && cpuPerRequest(spent, r.requests.total);
  const label = [path.basename(dir), args.scenario, ...args.env].join(' ');
  console.log(
    `${label}: ${r.requests.total} requests, ${r.non2xx} non-2xx, p99 ${r.latency.p99} ms; CPU per request: server ${cpu?.server_us ?? '?'} µs, PostgreSQL ${cpu?.postgres_us ?? '?'} µs`,
  );
} finally {
  server.kill();
  await db.destroy();
}
