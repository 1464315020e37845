// npm run bench [-- --duration 10 --pairs 5 --connections 16 --only search,profile]
// Starts the server as its own process on DATABASE_URL (loaded by `npm run bench:data`), measures the
// two floors and each scenario with autocannon, samples the server's RSS, and writes
// bench/results/latest.json and latest.md (plus a dated copy).
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from '../src/db/types.js';
import { cpuBetween, cpuPerRequest, cpuSnapshot } from './cpu.js';
import { benchServerEnv, spawnServer, waitForServer } from './server.js';
import { scenarios, type Dataset, type Measured, type Scenario } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    pairs: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    only: { type: 'string' },
    port: { type: 'string', default: '3917' },
    dataset: { type: 'string', default: 'bench/dataset.json' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('npm run bench needs DATABASE_URL pointing at a database loaded by `npm run bench:data`');
  process.exit(1);
}
/** A positive whole number from the command line, or a one-line error and exit code 1. */
function positive(name: 'duration' | 'pairs' | 'connections'): number {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${name} must be a whole number of at least 1 (got ${JSON.stringify(args[name])})`);
    process.exit(1);
  }
  return n;
}
const DURATION = positive('duration');
const PAIRS = positive('pairs');
const CONNECTIONS = positive('connections');
const base = `http://127.0.0.1:${args.port}`;
const dataset = JSON.parse(readFileSync(args.dataset, 'utf8')) as Dataset;

let rssMax = 0;
let phaseMax = 0;
/** Samples the server's resident set every 100 ms: the run's maximum and the current phase's. */
function sampleRss(pid: number) {
  const t = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) {
        const mb = Number(m[1]) / 1024;
        rssMax = Math.max(rssMax, mb);
        phaseMax = Math.max(phaseMax, mb);
      }
    } catch {
      /* process gone */
    }
  }, 100);
  t.unref();
  return t;
}
/** Starts a phase (the floors, one scenario); the returned function gives its RSS maximum in MB. */
function rssPhase(): () => number {
  phaseMax = 0;
  return () => Math.round(phaseMax);
}

type Load = Pick<Scenario, 'requests'> & { connections?: number };
const FLOOR: Load = { requests: [{ method: 'GET', path: '/__bench/select1' }] };

/** One autocannon run of `seconds`, its histograms kept for aggregating (autocannon.aggregateResult). */
async function window(s: Load, seconds: number) {
  const opts = { url: base, connections: s.connections ?? CONNECTIONS, duration: seconds, requests: s.requests as never };
  const r = (await autocannon({ ...opts, skipAggregateResult: true })) as unknown as autocannon.Result & {
    totalCompletedRequests: number;
  };
  return { opts, r, seconds: (Date.parse(String(r.finish)) - Date.parse(String(r.start))) / 1000 };
}

// autocannon exports it; @types/autocannon does not declare it.
const aggregateResult = (autocannon as unknown as { aggregateResult(this: void, results: unknown[], opts: object): autocannon.Result })
  .aggregateResult;

/** Windows of one load as one measurement: requests over the time they took, latencies from the merged histograms. */
function measured(ws: Awaited<ReturnType<typeof window>>[]): Measured {
  const a = aggregateResult(
    ws.map((w) => w.r),
    ws[0]!.opts,
  );
  const done = ws.reduce((n, w) => n + w.r.totalCompletedRequests, 0);
  const seconds = ws.reduce((n, w) => n + w.seconds, 0);
  return {
    rps: Math.round(done / seconds),
    p50_ms: a.latency.p50,
    p99_ms: a.latency.p99,
    errors: a.errors + a.timeouts + a.non2xx,
    requests: done,
  };
}

const load = async (s: Load): Promise<Measured> => measured([await window(s, DURATION)]);

/**
 * The scenario and the SELECT 1 floor in alternating windows (PAIRS of each, DURATION in all per
 * side), so both see the same phases of the machine. The floor is the noisier of the two here: in
 * 2-second windows on the 2-core VM it moved between 2,400 and 7,800 req/s while the profile read held
 * 1,900 to 2,700, so a floor measured once, before the scenario, set most of a ratio's spread. The
 * ratio is the scenario's requests over the floor's in equal time; each pair's own ratio is kept to show the spread.
 */
async function paired(s: Load, serverPid: number) {
  const seconds = DURATION / PAIRS;
  const floor: Awaited<ReturnType<typeof window>>[] = [];
  const scenario: typeof floor = [];
  const spent = { floor: { server: 0, postgres: 0 }, scenario: { server: 0, postgres: 0 } };
  /** One window, its CPU time added to `into`. */
  const timed = async (load: Load, into: { server: number; postgres: number }) => {
    const before = cpuSnapshot(serverPid);
    const w = await window(load, seconds);
    const spentHere = cpuBetween(before, cpuSnapshot(serverPid));
    if (spentHere) {
      into.server += spentHere.server;
      into.postgres += spentHere.postgres;
    }
    return w;
  };
  for (let k = 0; k < PAIRS; k++) {
    floor.push(await timed(FLOOR, spent.floor));
    scenario.push(await timed(s, spent.scenario));
  }
  const rate = (w: (typeof floor)[number]) => w.r.totalCompletedRequests / w.seconds;
  const pairs = floor.map((f, k) => Math.round((rate(scenario[k]!) / rate(f)) * 1000) / 1000).sort((x, y) => x - y);
  const requests = (ws: typeof floor) => ws.reduce((n, w) => n + w.r.totalCompletedRequests, 0);
  const cpu = cpuPerRequest(spent.scenario, requests(scenario));
  const floorCpu = cpuPerRequest(spent.floor, requests(floor));
  return { floor: measured(floor), m: measured(scenario), pairs, cpu, floorCpu };
}

async function main() {
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
  // A fast local receiver for the webhook scenario.
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const { webhook_url: urlBefore } = await db
    .selectFrom('providers')
    .select('webhook_url')
    .where('id', '=', dataset.provider_id)
    .executeTakeFirstOrThrow();
  await db.updateTable('providers').set({ webhook_url: receiverUrl }).where('id', '=', dataset.provider_id).execute();

  // The settings that shape the numbers, recorded with them. On a cluster without autovacuum the
  // queue tables keep every dead row of earlier scenarios and runs, which the next claims step over
  // (the baseline's autovacuum settings); a production cluster's autovacuum would have visited them within its minute.
  const pgSettings = Object.fromEntries(
    (
      await sql<{ name: string; setting: string }>`
    SELECT name, current_setting(name) AS setting FROM pg_settings
    WHERE name IN ('shared_buffers', 'work_mem', 'synchronous_commit', 'autovacuum', 'max_connections')`.execute(db)
    ).rows.map((r) => [r.name, r.setting]),
  );
  const vacuumQueues = pgSettings.autovacuum === 'off';
  const server = spawnServer(
    benchServerEnv(args.port, { JOBS_CONCURRENCY: process.env.JOBS_CONCURRENCY ?? '16', MAIL_OUTBOX_DIR: 'var/bench-outbox' }),
  );
  // Stopped with the harness (Ctrl-C, kill): the server is its own process and would go on serving.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      server.kill('SIGTERM');
      process.exit(130);
    });
  const rssTimer = sampleRss(server.pid!);
  const results: Record<string, unknown>[] = [];
  try {
    await waitForServer(`${base}/__bench/constant`, server);
    const floorsRss = rssPhase();
    const bare = await load({ requests: [{ method: 'GET', path: '/__bench/constant' }] });
    const select1 = await load(FLOOR);
    const rssFloors = floorsRss();
    console.error(`floors: bare ${bare.rps} req/s, SELECT 1 ${select1.rps} req/s; server RSS max ${rssFloors} MB`);
    const wanted = args.only ? new Set(args.only.split(',')) : null;
    for (const s of scenarios(dataset, { base, db, receiverCount: () => received })) {
      if (wanted && !wanted.has(s.name)) continue;
      const rssOf = rssPhase();
      if (vacuumQueues) await sql`VACUUM jobs, webhook_deliveries`.execute(db);
      // The SELECT 1 floor again, with each scenario: a shared or throttled machine changes speed
      // within one run (floors seen from 2,000 to 8,000 req/s on the same VM), and a ratio to a floor
      // measured minutes earlier would mostly measure that drift. A scenario that leaves background
      // work (provisioning's port jobs and webhooks) runs after one floor window instead of between
      // floor windows, which would measure the floor against that backlog.
      const check = s.check ? await s.check() : undefined;
      const alternate = !s.custom && !s.background;
      const p = alternate ? await paired(s, server.pid!) : undefined;
      // Without pairs, the CPU of the floor run just before and of the scenario's own run (a
      // scenario that leaves background work is charged what ran while it ran).
      const timed = async <T extends Measured>(run: () => Promise<T>) => {
        const before = cpuSnapshot(server.pid!);
        const out = await run();
        const spent = cpuBetween(before, cpuSnapshot(server.pid!));
        return { out, cpu: spent && out.requests ? cpuPerRequest(spent, out.requests) : null };
      };
      const floorRun = p ? undefined : await timed(() => load(FLOOR));
      const floor = p?.floor ?? floorRun!.out;
      const own = p ? undefined : await timed(() => (s.custom ? s.custom() : load(s)));
      const m = p?.m ?? own!.out;
      const cpu = p?.cpu ?? own?.cpu ?? null;
      const floorCpu = p?.floorCpu ?? floorRun?.cpu ?? null;
      const ratio = Math.round((m.rps / floor.rps) * 1000) / 1000;
      const met = s.meets(m, ratio, check);
      const rss = rssOf();
      const floorMeasured = p ? `interleaved, ${PAIRS} windows each` : 'just before';
      results.push({
        name: s.name,
        ...m,
        floor_select1_rps: floor.rps,
        floor_measured: floorMeasured,
        ratio,
        ...(p ? { ratio_pairs: p.pairs } : {}),
        ...(cpu ? { cpu_per_request: cpu, floor_cpu_per_request: floorCpu } : {}),
        target: s.target,
        met,
        rss_max_mb: rss,
        ...(check ? { check } : {}),
      });
      console.error(
        `${s.name}: ${m.rps} req/s (${pct(ratio)} of the SELECT 1 floor ${floor.rps}, ${floorMeasured}${p ? `; pairs ${pairsRange(p.pairs)}` : ''}${cpu ? `; CPU per request: server ${cpu.server_us} µs, PostgreSQL ${cpu.postgres_us} µs (SELECT 1: ${floorCpu?.server_us}, ${floorCpu?.postgres_us})` : ''}) p50 ${m.p50_ms} ms p99 ${m.p99_ms} ms errors ${m.errors} ${met ? 'MET' : 'MISSED'}; server RSS max ${rss} MB`,
      );
    }
    const commit = (() => {
      try {
        return execSync('git rev-parse --short HEAD').toString().trim();
      } catch {
        return 'unknown';
      }
    })();
    const summary = {
      machine: {
        cpus: os.cpus().length,
        cpu_model: os.cpus()[0]?.model ?? 'unknown',
        memory_gb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
        postgres: (await sql<{ v: string }>`SELECT current_setting('server_version') AS v`.execute(db)).rows[0]!.v,
        postgres_settings: pgSettings,
        queue_tables_vacuumed_before_each_scenario: vacuumQueues,
      },
      commit,
      run_at: new Date().toISOString(),
      dataset: { customers: dataset.customers, addresses: dataset.addresses },
      settings: { duration_s: DURATION, pairs: PAIRS, connections: CONNECTIONS },
      floors: { bare_rps: bare.rps, select1_rps: select1.rps, rss_max_mb: rssFloors },
      scenarios: results,
      rss_max_mb: Math.round(rssMax),
      rss_target_met: rssMax <= 300,
    };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/latest.json', `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync('bench/results/latest.md', markdown(summary));
    writeFileSync(`bench/results/${summary.run_at.slice(0, 10)}-${commit}.json`, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(markdown(summary));
  } finally {
    clearInterval(rssTimer);
    server.kill('SIGTERM');
    receiver.close();
    // Left at this receiver (gone now), whatever else runs on the database next (a profiling script,
    // the server started by hand) would send the provider's webhooks to a closed port and retry them
    // for hours in the background.
    await db.updateTable('providers').set({ webhook_url: urlBefore }).where('id', '=', dataset.provider_id).execute();
    await db.destroy();
  }
}

const pct = (x: number) => `${Math.round(x * 100)}%`;
/** The lowest and highest of the pairs' ratios (sorted). */
const pairsRange = (pairs: number[]) => `${pct(pairs[0]!)}–${pct(pairs[pairs.length - 1]!)}`;

function markdown(s: any): string {
  const rows = s.scenarios.map(
    (r: any) =>
      `| ${r.name} | ${r.rps} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} | ${r.floor_select1_rps} (${r.floor_measured ?? 'just before'}) | ${pct(r.ratio)} | ${r.ratio_pairs ? pairsRange(r.ratio_pairs) : ''} | ${r.cpu_per_request ? `${r.cpu_per_request.server_us} / ${r.cpu_per_request.postgres_us}` : ''} | ${r.target} | ${r.met ? 'met' : '**missed**'} | ${r.rss_max_mb} |`,
  );
  return [
    `Run ${s.run_at} at ${s.commit} on ${s.machine.cpus} cores (${s.machine.cpu_model}), Node ${s.machine.node}, PostgreSQL ${s.machine.postgres}; ${s.dataset.customers} customers, ${s.dataset.addresses} addresses; ${s.settings.duration_s} s per scenario${s.settings.pairs ? ` in ${s.settings.pairs} windows alternating with as many of the SELECT 1 floor` : ''}, ${s.settings.connections} connections.`,
    ...(s.machine.postgres_settings
      ? [
          '',
          `PostgreSQL settings: ${Object.entries(s.machine.postgres_settings)
            .map(([k, v]) => `${k} ${String(v)}`)
            .join(
              ', ',
            )}${s.machine.queue_tables_vacuumed_before_each_scenario ? '; autovacuum being off, the harness vacuumed jobs and webhook_deliveries before each scenario' : ''}.`,
        ]
      : []),
    '',
    `Floors at the start: bare route ${s.floors.bare_rps} req/s, SELECT 1 ${s.floors.select1_rps} req/s (server RSS max ${s.floors.rss_max_mb} MB); each scenario's ratio is to the SELECT 1 floor measured again with it: in windows alternating with the scenario's (requests over requests in equal time; each pair's own ratio gives the spread), or right before a scenario that leaves background work or measures itself. Server RSS max ${s.rss_max_mb} MB (target <= 300 MB in every scenario: ${s.rss_target_met ? 'met' : '**missed**'}).`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | errors | SELECT 1 floor, req/s | of that floor | ratio per pair, lowest–highest | CPU per request, µs: server / PostgreSQL | target | result | server RSS max MB |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

await main();
