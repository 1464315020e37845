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
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SERVER_NODE_FLAGS } from '../src/runtime.js';
import { cpuBetween, cpuPerRequest, cpuSnapshot } from './cpu.js';
import { benchServerEnv } from './server-env.js';
import type { Dataset } from './scenarios.js';

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
const d = JSON.parse(readFileSync(args.dataset, 'utf8')) as Dataset & { autocomplete: string[] };
const base = `http://127.0.0.1:${args.port}`;
const key = { 'x-api-key': d.api_key, 'content-type': 'application/json' };
let k = 0;
const session = () => d.sessions[k++ % Math.min(50, d.sessions.length)];

type Request = autocannon.Request;
const SCENARIOS: Record<string, Request[]> = {
  constant: [{ method: 'GET', path: '/__bench/constant' }],
  select1: [{ method: 'GET', path: '/__bench/select1' }],
  profile: [
    {
      method: 'GET',
      setupRequest: (req) => {
        const s = session();
        return { ...req, path: `/agent/customers/${s.customer_id}`, headers: { ...key, 'x-verified-session': s.token } };
      },
    },
  ],
  preview: [
    {
      method: 'POST',
      setupRequest: (req) => {
        const s = session();
        return {
          ...req,
          path: `/agent/customers/${s.customer_id}/plan-change/preview`,
          headers: { ...key, 'x-verified-session': s.token },
          body: JSON.stringify({ subscription_id: s.subscription_id, plan_version_id: d.plan_version_ids[2] }),
        };
      },
    },
  ],
  search: [
    {
      method: 'GET',
      setupRequest: (req) => ({
        ...req,
        path: `/agent/customers/search?q=${encodeURIComponent(d.queries[k++ % d.queries.length].q)}`,
        headers: key,
      }),
    },
  ],
  autocomplete: [
    {
      method: 'GET',
      setupRequest: (req) => ({
        ...req,
        path: `/serviceability/autocomplete?q=${encodeURIComponent(d.autocomplete[k++ % d.autocomplete.length])}`,
        headers: key,
      }),
    },
  ],
};
const requests = SCENARIOS[args.scenario];
if (!requests) throw new Error(`--scenario is one of ${Object.keys(SCENARIOS).join(', ')}`);

// BENCH_SERVER_CPU_PROF=<dir>: V8 CPU profiles of the server process, as in run.ts.
const prof = process.env.BENCH_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`] : [];
const server = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...prof, '--import', 'tsx', 'src/server.ts'], {
  cwd: dir,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: benchServerEnv(args.port, {
    ...Object.fromEntries(args.env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)])),
    DATABASE_URL: args.db,
  }),
});
try {
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the server of ${dir} exited (${server.exitCode})`);
    const up = await fetch(`${base}/__bench/constant`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 600) throw new Error('the server did not start in 2 minutes (a migration rebuilding an index can take that long)');
    await new Promise((r) => setTimeout(r, 200));
  }
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
}
