import { AsyncLocalStorage } from 'node:async_hooks';
import { fastifyRequestContext, requestContext } from '@fastify/request-context';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

declare module '@fastify/request-context' {
  interface RequestContextData {
    reqId: string;
    /** The request's own logger, which carries reqId already. */
    log: FastifyBaseLogger;
  }
}

/** The job a line was logged from: its id and kind. */
const jobContext = new AsyncLocalStorage<{ job_id: string; kind: string }>();

/** Runs a job handler so that every line it logs (through any logger) names the job. */
export function runInJobContext<T>(job: { id: string; kind: string }, fn: () => T): T {
  return jobContext.run({ job_id: job.id, kind: job.kind }, fn);
}

/**
 * Services log through the app's logger (deps.log), not the request's: the request context
 * (@fastify/request-context, which keeps it across the body's events) lets every line logged while a
 * request is handled carry its reqId all the same.
 */
export async function registerLogContext(app: FastifyInstance) {
  await app.register(fastifyRequestContext, { defaultStoreValues: (req) => ({ reqId: String(req.id), log: req.log }) });
}

/**
 * Pino's mixin: adds reqId (while a request is handled) and job_id/kind (while a job runs) to each
 * line. Not reqId to the request's own logger's lines, which carry it as a binding already (a key
 * twice in one JSON line); fields the line sets itself win over these.
 */
export function logContextMixin(_line: object, _level: number, logger: unknown): Record<string, unknown> {
  const job = jobContext.getStore();
  const req = requestContext.getStore() as { reqId?: string; log?: unknown } | undefined;
  const out: Record<string, unknown> = job ? { ...job } : {};
  if (req?.reqId && req.log !== logger) out.reqId = req.reqId;
  return out;
}
