// Times the /agent customer search in isolation, one query at a time (no HTTP, no concurrency), on
// the bench dataset: per query class p50/p95/p99/max and the share of queries whose source row is
// among the returned matches. The numbers that judge a search design on a shared, noisy machine.
// A source row missed because its name is shared by more customers than `limit` shows is searched
// again the way the agent narrows an ambiguous name (agent-surface.md rule 1): the name plus the
// customer's unit label ("narrowed" below).
//   DATABASE_URL=postgres://root@127.0.0.1:5432/netsvc_bench_search npx tsx bench/search/time-search.ts [--n 2000] [--offset 0] [--class name] [--slow 20]
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { createDb } from '../../src/db/database.js';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';
import type { Dataset } from '../scenarios.js';

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    offset: { type: 'string', default: '0' },
    class: { type: 'string' },
    limit: { type: 'string', default: '25' },
    slow: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '200' },
    dataset: { type: 'string', default: 'bench/dataset.json' },
  },
});
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const d = JSON.parse(readFileSync(args.dataset, 'utf8')) as Dataset;
const handle = await createDb({ databaseUrl: url, poolSize: 1 });
// The server's time bound on a search, and a logger that stays quiet.
const search = createSubscriberSearchService({
  db: handle.db,
  dbHandle: handle,
  config: loadConfig({ ...process.env, NODE_ENV: 'test' }),
  log: pino({ level: 'silent' }),
});
const limit = Number(args.limit);
// A search stopped at its bound answers `incomplete: true` with no match: it counts as "not found".
const run = (q: string) => search.search(d.provider_id, q, limit);
let qs = d.queries.slice(Number(args.offset), Number(args.offset) + Number(args.n));
if (args.class) qs = qs.filter((q) => q.class === args.class);

// Warm the connection and the cache with queries that are not measured.
for (const q of d.queries.slice(-Number(args.warmup))) await run(q.q);

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const byClass = new Map<string, { ms: number[]; found: number; counts: number[]; narrowed: number; narrowedFound: number }>();
const unitOf = async (customerId: string) =>
  (
    await sql<{ label: string | null }>`
  SELECT u.label FROM subscriptions s JOIN units u ON u.id = s.unit_id WHERE s.subscriber_id = ${customerId} ORDER BY s.created_at LIMIT 1`.execute(
      handle.db,
    )
  ).rows[0]?.label;
const slow: { ms: number; cls: string; q: string; count: number }[] = [];
const all: number[] = [];
for (const q of qs) {
  const t0 = process.hrtime.bigint();
  const r = await run(q.q);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = byClass.get(q.class) ?? { ms: [], found: 0, counts: [], narrowed: 0, narrowedFound: 0 };
  byClass.set(q.class, c);
  c.ms.push(ms);
  c.counts.push(r.match_count);
  all.push(ms);
  if (r.matches.some((m) => m.customer_id === q.expect_id)) c.found++;
  else {
    if (process.env.SHOW_MISSES) console.log(`miss ${q.class} "${q.q}" match_count=${r.match_count}`);
    const unit = r.ambiguous && r.match_count > limit ? await unitOf(q.expect_id) : undefined;
    if (unit) {
      c.narrowed++;
      const again = await run(`${q.q} ${unit}`);
      if (again.matches.some((m) => m.customer_id === q.expect_id)) c.narrowedFound++;
    }
  }
  if (ms > Number(args.slow)) slow.push({ ms: Math.round(ms * 10) / 10, cls: q.class, q: q.q, count: r.match_count });
}
const row = (name: string, ms: number[], found: number, counts: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(2).padStart(8);
  const mc = [...counts].sort((a, b) => a - b);
  return `${name.padEnd(16)} n=${String(ms.length).padStart(5)} p50${f(pct(s, 50)!)} p95${f(pct(s, 95)!)} p99${f(pct(s, 99)!)} max${f(s[s.length - 1]!)} mean${f(s.reduce((a, b) => a + b, 0) / s.length)}  found ${((found / ms.length) * 100).toFixed(2)}%  match_count p50 ${pct(mc, 50)} max ${mc[mc.length - 1]}`;
};
for (const [cls, c] of byClass) {
  console.log(row(cls, c.ms, c.found, c.counts));
  if (c.narrowed)
    console.log(
      `${''.padEnd(16)} missed among more than ${limit} matches: ${c.narrowed}; found after appending the unit: ${c.narrowedFound}`,
    );
}
const found = [...byClass.values()].reduce((a, c) => a + c.found, 0);
console.log(
  row(
    'ALL',
    all,
    found,
    [...byClass.values()].flatMap((c) => c.counts),
  ),
);
slow.sort((a, b) => b.ms - a.ms);
if (slow.length) console.log(`slower than ${args.slow} ms: ${slow.length}`, slow.slice(0, 15));
await handle.close();
