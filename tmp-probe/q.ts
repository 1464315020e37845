import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { createSubscriberSearchService } from '../src/modules/subscribers/search.service.js';
const d = JSON.parse(readFileSync('bench/dataset.json', 'utf8'));
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
let log: string[] = [];
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log(e) { log.push(`${e.queryDurationMillis.toFixed(1)}ms ${e.level} ${e.query.sql.replace(/\s+/g, ' ').slice(0, 140)}`); } });
const timeout = Number(process.env.T ?? 10000);
const search = createSubscriberSearchService({ db, dbHandle: { kind: 'pg' } as any, config: loadConfig({ ...process.env, NODE_ENV: 'test', SEARCH_TIMEOUT_MS: String(timeout) }), log: pino({ level: 'silent' }) });
const qs = process.argv.slice(2);
for (const q of qs) {
  for (let i = 0; i < 2; i++) {
    log = [];
    const t0 = performance.now();
    const r = await search.search(d.provider_id, q, 25);
    const ms = performance.now() - t0;
    console.log(`${JSON.stringify(q)} ${ms.toFixed(1)} ms count=${r.match_count} incomplete=${r.incomplete}`);
    if (i === 1 && process.env.V) for (const l of log) console.log('   ', l);
  }
}
await pool.end();
