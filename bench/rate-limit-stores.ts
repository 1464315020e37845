// npm run bench:rate-limit [-- --rounds 5 --seconds 3 --connections 16 --buckets 1000]
// What each rate-limit store costs a request: four server processes on DATABASE_URL (rate limits
// off; memory; postgres; redis on REDIS_URL), the same constant route behind a limit it never
// reaches (/__bench/limited, BENCH_ROUTES), each loaded by autocannon in short windows, the four
// interleaved in a fresh order each round so they share the machine's phases. Reports req/s, the
// ratio to "off", and the extra time per request (1/rps - 1/rps_off). Writes nothing.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { spawnServer, waitForServer } from './server.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    buckets: { type: 'string', default: '1000' },
    port: { type: 'string', default: '3930' },
  },
});
const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
if (!DATABASE_URL) {
  console.error(
    'npm run bench:rate-limit needs DATABASE_URL (any migrated or empty database: the servers migrate it; only rate_limit_buckets is written)',
  );
  process.exit(1);
}
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const BUCKETS = Number(args.buckets);

const STORES = [
  { name: 'off', env: { RATE_LIMIT_ENABLED: 'false' } },
  { name: 'memory', env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'memory' } },
  { name: 'postgres', env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'postgres' } },
  {
    name: 'redis',
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'redis', REDIS_URL, REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:` },
  },
] as const;
type StoreName = (typeof STORES)[number]['name'];

function start(port: number, env: Record<string, string>): ChildProcess {
  return spawnServer({
    ...process.env,
    // Not production: production refuses BENCH_ROUTES and RATE_LIMIT_ENABLED=false (the route and the "off"
    // baseline this bench needs); on the server NODE_ENV gates only start-up checks and loopback webhooks.
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    BENCH_ROUTES: 'true',
    DATABASE_URL,
    JOBS_ENABLED: 'false',
    SCHEDULER_ENABLED: 'false',
    DEMO_SEED: 'false',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    ...env,
  });
}

/** One window against one server: completed requests over the time taken, and the non-2xx count. */
async function window(url: string) {
  let n = 0;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'GET',
        path: '/__bench/limited',
        setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, 'x-bench-bucket': String(n++ % BUCKETS) } }),
      },
    ],
  } as never);
  return { rps: r.requests.total / r.duration, bad: r.non2xx + r.errors + r.timeouts };
}

function shuffle<T>(xs: T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

async function main() {
  const base = Number(args.port);
  const servers: ((typeof STORES)[number] & { url: string; proc: ChildProcess })[] = [];
  try {
    // One after another: the first migrates the database, and a loaded machine starts four slowly.
    for (const [i, s] of STORES.entries()) {
      servers.push({ ...s, url: `http://127.0.0.1:${base + i}`, proc: start(base + i, s.env) });
      await waitForServer(`${servers[i]!.url}/__bench/limited`, servers[i]!.proc);
    }
    for (const s of servers) await window(s.url); // warm-up, not counted
    const runs: Record<StoreName, number[]> = { off: [], memory: [], postgres: [], redis: [] };
    let bad = 0;
    for (let k = 0; k < ROUNDS; k++) {
      for (const s of shuffle(servers)) {
        const w = await window(s.url);
        runs[s.name].push(w.rps);
        bad += w.bad;
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const off = mean(runs.off);
    console.log(
      `\n${new Date().toISOString()} ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}; ` +
        `${ROUNDS} rounds x ${SECONDS} s per store, interleaved in shuffled order; ${CONNECTIONS} connections; ${BUCKETS} buckets; non-2xx/errors: ${bad}\n`,
    );
    console.log('| store | req/s (mean) | of "off" | per-round ratio to that round\'s "off", lowest-highest | extra per request |');
    console.log('|---|---|---|---|---|');
    for (const s of STORES) {
      const rps = mean(runs[s.name]);
      const ratios = runs[s.name].map((r, k) => r / runs.off[k]!).sort((a, b) => a - b);
      const extraUs = (1 / rps - 1 / off) * 1e6;
      console.log(
        `| ${s.name} | ${Math.round(rps)} | ${Math.round((rps / off) * 100)}% | ${Math.round(ratios[0]! * 100)}%-${Math.round(ratios.at(-1)! * 100)}% | ${s.name === 'off' ? '-' : `${Math.round(extraUs)} µs`} |`,
      );
    }
  } finally {
    for (const s of servers) s.proc.kill('SIGTERM');
  }
}

await main();
