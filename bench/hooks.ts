// npm run bench:hooks [-- --requests 20000 --rounds 5]
// What each per-request hook costs, in microseconds of CPU: one small Fastify app per variant, each
// the bare app plus one hook as the server registers it (request context, metrics, the /agent
// API-key check, logging with and without the redaction and serializers), driven in-process with
// inject. Each variant runs in a process of its own: once any AsyncLocalStorage runs (the request
// context), Node 20 tracks every promise of the process, so a variant sharing a process with it
// would pay its cost too. Rounds are interleaved and the median taken; a hook's cost is its variant's
// CPU per request less the bare app's (the auth hook's: less the bare app's in a process that holds
// the same embedded database). No database round trip is in it: the API key is read once and
// cached, as in the server.
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '5' },
    variant: { type: 'string' },
  },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);

const VARIANTS = [
  'bare',
  'request_context',
  'metrics',
  'auth_api_key',
  'bare_with_db',
  'logging_plain',
  'logging_redacted',
  'server_bare_route',
  'server_agent_route',
] as const;
type Variant = (typeof VARIANTS)[number];

// Lines are formatted in full and then dropped: the cost of writing them out is the log shipper's.
const sink = () => new Writable({ write: (_c, _e, cb) => cb() });

async function app(logger: FastifyServerOptions['logger'], add: (a: FastifyInstance) => Promise<void> | void) {
  const a = Fastify({ logger });
  await add(a);
  a.get('/x', async () => ({ ok: true }));
  await a.ready();
  return a;
}

/** An embedded database with one provider and its agent API key. */
async function keyedDb() {
  const { createDb } = await import('../src/db/database.js');
  const { migrate } = await import('../src/db/migrate.js');
  const { newPrefixedSecret } = await import('../src/lib/crypto.js');
  const db = await createDb({ embeddedDir: 'memory://' });
  await migrate(db);
  const key = newPrefixedSecret('sk');
  const providerId = '00000000-0000-4000-8000-00000000b001';
  await db.db
    .insertInto('providers')
    .values({ id: providerId, name: 'Hooks', slug: 'hooks', support_email: 'hooks@bench.invalid' })
    .execute();
  await db.db
    .insertInto('api_keys')
    .values({
      id: '00000000-0000-4000-8000-00000000b002',
      provider_id: providerId,
      prefix: key.prefix,
      key_hash: key.hash,
      features: ['agent_api_access'],
    })
    .execute();
  return { db, key: key.secret };
}

async function serverApp() {
  const { loadConfig } = await import('../src/config.js');
  const { buildApp } = await import('../src/app.js');
  const { db, key } = await keyedDb();
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    BENCH_ROUTES: 'true',
    JOBS_ENABLED: 'false',
    SCHEDULER_ENABLED: 'false',
    RATE_LIMIT_ENABLED: 'false',
  });
  return { app: await buildApp(config, { dbHandle: db, migrate: false, logStream: sink() }), key };
}

async function build(v: Variant): Promise<{ app: FastifyInstance; url: string; headers?: Record<string, string> }> {
  switch (v) {
    case 'bare':
      return { app: await app(false, () => undefined), url: '/x' };
    case 'request_context': {
      const { registerLogContext } = await import('../src/ops/log-context.js');
      return { app: await app(false, (a) => registerLogContext(a)), url: '/x' };
    }
    case 'metrics': {
      const { registerMetrics } = await import('../src/ops/metrics.js');
      const { systemClock } = await import('../src/lib/clock.js');
      // Read only when /metrics is scraped, which this variant never is.
      const unused = {} as never;
      const config = { NODE_ENV: 'test' as const, METRICS_TOKEN: undefined };
      return {
        app: await app(false, (a) => registerMetrics(a, { config, dbHandle: unused, clock: systemClock, repo: unused })),
        url: '/x',
      };
    }
    // The bare app in a process that holds the embedded database the auth variant reads its key
    // from (once; then from the cache): the database's memory costs every request of that process
    // 27-30 µs on a slow VM (GC), which is the variant's, not the hook's. The server on DATABASE_URL
    // holds no database in its process.
    case 'bare_with_db': {
      const { db } = await keyedDb();
      const a = await app(false, () => undefined);
      a.addHook('onClose', () => db.close());
      return { app: a, url: '/x' };
    }
    case 'auth_api_key': {
      const { createAuthService } = await import('../src/modules/auth/index.js');
      const { agentApiKey } = await import('../src/plugins/auth.js');
      const { systemClock } = await import('../src/lib/clock.js');
      const { db, key } = await keyedDb();
      const auth = createAuthService({ db: db.db, clock: systemClock, jwtSecret: 'x'.repeat(32), jwtTtlSeconds: 3600 });
      const a = await app(false, (a) => {
        a.decorate('services', { auth } as unknown as FastifyInstance['services']);
        a.addHook('onRequest', agentApiKey());
      });
      return { app: a, url: '/x', headers: { 'x-api-key': key } };
    }
    // Fastify's two request lines at level info, plainly, then with the server's options.
    case 'logging_plain':
      return { app: await app({ level: 'info', stream: sink() }, () => undefined), url: '/x' };
    case 'logging_redacted': {
      const { loggerOptions } = await import('../src/ops/logger-options.js');
      return { app: await app(loggerOptions('info', sink()), () => undefined), url: '/x' };
    }
    // The whole server (every global hook) on its bare route, and on an /agent route that answers
    // from the API key alone (a search of less than two characters: 400 before any query).
    case 'server_bare_route': {
      const s = await serverApp();
      return { app: s.app, url: '/__bench/constant' };
    }
    case 'server_agent_route': {
      const s = await serverApp();
      return { app: s.app, url: '/agent/customers/search?q=a', headers: { 'x-api-key': s.key } };
    }
  }
}

/** In a child: CPU microseconds per request of one variant, after a warm-up of as many requests. */
async function measure(v: Variant) {
  const target = await build(v);
  const run = async () => {
    const before = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) {
      const r = await target.app.inject({ method: 'GET', url: target.url, headers: target.headers });
      if (r.statusCode >= 500 || r.statusCode === 403) throw new Error(`${target.url}: ${r.statusCode} ${r.body}`);
    }
    const d = process.cpuUsage(before);
    return (d.user + d.system) / REQUESTS;
  };
  await run();
  process.stdout.write(`${await run()}\n`);
  await target.app.close();
  process.exit(0);
}

if (args.variant) await measure(args.variant as Variant);
else {
  const samples = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of VARIANTS) {
      const child = spawnSync(
        process.execPath,
        [...process.execArgv, fileURLToPath(import.meta.url), '--variant', v, '--requests', String(REQUESTS)],
        { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } },
      );
      if (child.status !== 0) throw new Error(`${v}: ${child.stderr}`);
      samples.get(v)!.push(Number(child.stdout.trim().split('\n').pop()));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const m = Object.fromEntries([...samples].map(([n, xs]) => [n, median(xs)])) as Record<Variant, number>;
  const cost = (v: Variant, base: Variant = 'bare') => Math.round((m[v] - m[base]) * 10) / 10;
  const hooks = [
    ['request context (@fastify/request-context)', cost('request_context')],
    ['metrics (request duration histogram, onResponse)', cost('metrics')],
    [
      'auth (/agent API key, cached lookup), over the bare app with the embedded database in its process',
      cost('auth_api_key', 'bare_with_db'),
    ],
    ['log redaction (redact paths, request serializer, context mixin), over plain logging', cost('logging_redacted', 'logging_plain')],
  ] as const;
  console.log(
    `bare app: ${m.bare.toFixed(1)} µs per inject (${REQUESTS} requests x ${ROUNDS} rounds, each in a process of its own; median)`,
  );
  console.log('\n| per-request cost | µs |\n|---|---|');
  for (const [name, us] of hooks) console.log(`| ${name} | ${us} |`);
  console.log(`| **sum of these four** (target < 30) | **${Math.round(hooks.reduce((a, [, us]) => a + us, 0) * 10) / 10}** |`);
  console.log(`| logging at info (Fastify's two lines per request), plain, over no logging | ${cost('logging_plain')} |`);
  console.log(`| the whole server on its bare route (info logging), over the bare app | ${cost('server_bare_route')} |`);
  console.log(`| the whole server on an /agent route answered from the key alone, over the bare app | ${cost('server_agent_route')} |`);
}
