import Fastify, { type FastifyInstance, type FastifyReply, type RouteOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { trustProxyOption } from './lib/trust-proxy.js';
import { createDb, type DbHandle } from './db/database.js';
import { migrate } from './db/migrate.js';
import { systemClock, type Clock } from './lib/clock.js';
import { connectionWarmUp, createContainer, type Deps, type DepsOverrides, type Services } from './container.js';
import { createAdapters, type AdaptersHandle, type SimulatorServer } from './adapters/index.js';
import { genReqId } from './plugins/request-id.js';
import { withNextStep } from './lib/errors.catalogue.js';
import { registerDocs } from './plugins/docs.js';
import { registerPageHeaders } from './plugins/page-headers.js';
import { registerLandingPage } from './surfaces/pages/landing.page.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { registerIdempotencyStore } from './plugins/idempotency.js';
import { agentSurface } from './surfaces/agent/index.js';
import { partnerSurface, internalSurface } from './surfaces/partner/index.js';
import { partnerNotFound } from './plugins/error-handlers.js';
import { registerBenchFloors } from './plugins/bench-floors.js';
import { loggerOptions } from './ops/logger-options.js';
import { textSafeValidatorCompiler } from './plugins/text-input.js';
import { DEFAULT_BODY_LIMIT, registerJsonBody } from './plugins/json-body.js';
import { registerUnmatched } from './plugins/unmatched.js';
import { registerLogContext } from './ops/log-context.js';
import { registerHealth } from './ops/health.js';
import { registerMetrics } from './ops/metrics.js';
import { createOpsRepository } from './ops/ops.repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The infrastructure (queue, scheduler, mailer, database): the app's lifecycle and tests use it, routes do not. */
    deps: Deps;
    /** Every service, built once by the container: what routes and plugins call. */
    services: Services;
    config: Config;
    /** The simulator server this app started for the switch and billing adapters (null in production or with their URLs set). */
    simulators: SimulatorServer | null;
    /** Every route as registered (both mounts), for the authorization matrix and the docs checks. */
    routeTable: { method: string; url: string; hidden: boolean; options: RouteOptions }[];
  }
}

export interface BuildOptions extends DepsOverrides {
  /** An open database (tests); otherwise opened from config and closed with the app. */
  dbHandle?: DbHandle;
  clock?: Clock;
  /** Run migrations before serving (default true). */
  migrate?: boolean;
  /** Pino destination for tests that assert on log lines. */
  logStream?: NodeJS.WritableStream;
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.LOG_LEVEL === 'silent' ? false : loggerOptions(config.LOG_LEVEL, opts.logStream),
    genReqId,
    requestIdHeader: false,
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    // Router-level failures (an over-long or malformed path) answer in the surface's shape too.
    frameworkErrors: (err, request, res) => {
      const reply = res as unknown as FastifyReply;
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long' : 'Malformed request URL';
      if (request.url.startsWith('/agent')) {
        reply
          .code(400)
          .send({ error: { code: 'bad_request', message: withNextStep('bad_request', message), request_id: String(request.id) } });
      } else reply.code(400).send({ detail: message });
    },
    // Most bodies are a few hundred bytes; the routes that take more declare their own bodyLimit.
    bodyLimit: DEFAULT_BODY_LIMIT,
    // The longest path token the documents allow (a rollback link's, 300): the router and the documents agree.
    routerOptions: { maxParamLength: 300 },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(textSafeValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonBody(app);

  const ownsDb = !opts.dbHandle;
  const dbHandle =
    opts.dbHandle ??
    (await createDb({ databaseUrl: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, embeddedDir: config.EMBEDDED_DB_DIR }));
  if (opts.migrate !== false) await migrate(dbHandle);
  if (ownsDb) await dbHandle.warmUp(connectionWarmUp(dbHandle.db));
  const clock = opts.clock ?? systemClock;
  // The switch and billing adapters (and outside production their simulator server, closed with the app).
  const external: AdaptersHandle = opts.adapters
    ? { adapters: opts.adapters, simulators: null, close: async () => undefined }
    : await createAdapters({ config, db: dbHandle.db, clock });
  try {
    return await assemble(app, config, opts, dbHandle, ownsDb, external);
  } catch (err) {
    await external.close();
    throw err;
  }
}

async function assemble(
  app: FastifyInstance,
  config: Config,
  opts: BuildOptions,
  dbHandle: DbHandle,
  ownsDb: boolean,
  external: AdaptersHandle,
): Promise<FastifyInstance> {
  const { deps, services } = createContainer(config, dbHandle, opts.clock ?? systemClock, app.log, {
    ...opts,
    adapters: external.adapters,
  });
  app.decorate('deps', deps);
  app.decorate('services', services);
  app.decorate('config', config);
  app.decorate('simulators', external.simulators);
  const routeTable: FastifyInstance['routeTable'] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      // `options` is the route's own object: the hooks of nested scopes that run after this one change it in place.
      routeTable.push({ method, url: route.url, hidden: Boolean(route.schema?.hide), options: route });
    }
  });

  registerUnmatched(app);

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    // No response may be sniffed into another type (a JSON body rendered as HTML).
    reply.header('x-content-type-options', 'nosniff');
  });

  await registerLogContext(app);
  const opsRepo = createOpsRepository(deps.db);
  registerHealth(app, { config, jobs: deps.jobs, repo: opsRepo });
  registerMetrics(app, { config, dbHandle, clock: deps.clock, repo: opsRepo });
  registerIdempotencyStore(app);
  await registerPageHeaders(app);
  await registerDocs(app);
  registerLandingPage(app);
  await registerRateLimit(app, {
    enabled: config.RATE_LIMIT_ENABLED,
    store: config.RATE_LIMIT_STORE,
    counter: services.rateLimitCounter,
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
  });

  await app.register(agentSurface, { prefix: '/agent' });
  await app.register(partnerSurface, { prefix: '' });
  await app.register(partnerSurface, { prefix: '/api/v1', mirror: true });
  await app.register(internalSurface, { prefix: '/api/v1' });
  if (config.BENCH_ROUTES) registerBenchFloors(app);
  // Unknown paths outside /agent answer in the partner shape.
  partnerNotFound(app);

  app.addHook('onReady', async () => {
    if (config.JOBS_ENABLED) deps.jobs.start();
    if (config.SCHEDULER_ENABLED) deps.scheduler.start();
  });
  app.addHook('onClose', async () => {
    deps.scheduler.stop();
    // A job still running after 5 s is handed back to the queue, so shutdown stays within 10 s.
    await deps.jobs.stop({ releaseAfterMs: 5_000 });
    await deps.mailer.close();
    await external.close();
    if (ownsDb) await dbHandle.close();
  });
  return app;
}
