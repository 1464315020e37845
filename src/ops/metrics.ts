import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import client from 'prom-client';
import type { Config } from '../config.js';
import type { DbHandle } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { jobOutcomes, mailOutcomes, webhookOutcomes } from './events.js';
import type { OpsRepository } from './ops.repository.js';

export interface MetricsDeps {
  config: Pick<Config, 'NODE_ENV' | 'METRICS_TOKEN'>;
  dbHandle: DbHandle;
  clock: Clock;
  repo: OpsRepository;
}

// Node's own process metrics (CPU, memory, event-loop delay, GC) are registered once per process:
// each registration starts observers of its own, and tests build many apps in one process.
let processRegistry: client.Registry | undefined;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The bearer token matches, compared in constant time (over digests, so the length leaks nothing either). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return timingSafeEqual(digest(m?.[1] ?? ''), digest(token)) && m !== null;
}

/**
 * GET /metrics in the Prometheus text format, and the instruments behind it: request durations per
 * route pattern and status class (onResponse), 429s, job, webhook and mail outcomes (ops/events.ts),
 * and at each scrape the queue, outbox and pool gauges. With METRICS_TOKEN set it requires
 * `Authorization: Bearer <token>`; in production without a token it does not exist (404).
 */
export function registerMetrics(app: FastifyInstance, deps: MetricsDeps) {
  const registry = new client.Registry();
  const registers = [registry];
  const httpDuration = new client.Histogram({
    name: 'netsvc_http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new client.Counter({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new client.Gauge({ name, help, labelNames, registers });
  const rateLimited = counter('netsvc_rate_limit_rejections_total', 'Requests refused with 429 (rate limits, lockouts), by route pattern', [
    'route',
  ]);
  const jobs = counter('netsvc_job_outcomes_total', 'Job runs by kind and outcome', ['kind', 'outcome']);
  const webhooks = counter('netsvc_webhook_deliveries_total', 'Webhook delivery attempts by outcome', ['outcome']);
  const mails = counter('netsvc_mail_sends_total', 'Mails by outcome (sent over SMTP, written to the outbox folder, failed)', ['outcome']);
  const queued = gauge('netsvc_jobs_queued', 'Queued jobs already due, by kind', ['kind']);
  const running = gauge('netsvc_jobs_running', 'Jobs running now (any process), by kind', ['kind']);
  const oldest = gauge('netsvc_jobs_oldest_due_age_seconds', 'How long the longest-waiting due job has waited, by kind', ['kind']);
  const outbox = gauge('netsvc_webhook_outbox_pending', 'Webhook deliveries not yet delivered or failed for good');
  const outboxAge = gauge('netsvc_webhook_outbox_oldest_age_seconds', 'Age of the oldest pending webhook delivery (0 when none)');
  const pool = gauge('netsvc_db_pool_clients', 'PostgreSQL pool clients by state (in_use, idle) and requests waiting for one (waiting)', [
    'state',
  ]);
  const poolMax = gauge(
    'netsvc_db_pool_max',
    'PostgreSQL pool size (DATABASE_POOL_SIZE); 1 on the embedded database, which has one in-process connection and no pool',
  );

  const subscriptions: [typeof jobOutcomes, (m: unknown) => void][] = [
    [jobOutcomes, (m) => jobs.inc(m as { kind: string; outcome: string })],
    [webhookOutcomes, (m) => webhooks.inc(m as { outcome: string })],
    [mailOutcomes, (m) => mails.inc(m as { outcome: string })],
  ];
  for (const [ch, fn] of subscriptions) ch.subscribe(fn);
  app.addHook('onClose', async () => {
    for (const [ch, fn] of subscriptions) ch.unsubscribe(fn);
  });

  app.addHook('onResponse', async (request, reply) => {
    // The pattern (/agent/customers/:id), never the path: ids would make a series per customer.
    const route = request.routeOptions.url ?? 'unmatched';
    httpDuration.observe(
      { method: request.method, route, status_class: `${Math.floor(reply.statusCode / 100)}xx` },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode === 429) rateLimited.inc({ route });
  });

  async function refreshGauges() {
    const now = deps.clock.now();
    const [stats, backlog] = await Promise.all([deps.repo.queueStats(now), deps.repo.outboxBacklog()]);
    queued.reset();
    running.reset();
    oldest.reset();
    for (const s of stats) {
      queued.set({ kind: s.kind }, s.due);
      running.set({ kind: s.kind }, s.running);
      if (s.oldestDue) oldest.set({ kind: s.kind }, Math.max(0, (now.getTime() - s.oldestDue.getTime()) / 1000));
    }
    outbox.set(backlog.pending);
    outboxAge.set(backlog.oldest ? Math.max(0, (now.getTime() - backlog.oldest.getTime()) / 1000) : 0);
    const p = deps.dbHandle.poolStats?.();
    if (p) {
      pool.set({ state: 'in_use' }, p.total - p.idle);
      pool.set({ state: 'idle' }, p.idle);
      pool.set({ state: 'waiting' }, p.waiting);
    }
    poolMax.set(p?.max ?? 1);
  }

  const token = deps.config.METRICS_TOKEN;
  const refuse = (reply: FastifyReply, status: 401 | 404) =>
    status === 404
      ? reply.code(404).send({ detail: 'Not Found' })
      : reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').send({ detail: 'Not authenticated' });

  app.get('/metrics', { schema: { hide: true } }, async (request: FastifyRequest, reply: FastifyReply) => {
    if (!token) {
      if (deps.config.NODE_ENV === 'production') return refuse(reply, 404);
    } else if (!bearerMatches(request.headers.authorization, token)) {
      return refuse(reply, 401);
    }
    try {
      await refreshGauges();
    } catch (err) {
      // The counters still answer; the gauges keep their last values.
      request.log.warn({ err }, 'metrics: could not read the queue and outbox gauges');
    }
    const text = (await processMetrics().metrics()) + (await registry.metrics());
    return reply.type(registry.contentType).send(text);
  });
}
