// The simulators as one small HTTP server (issue 29 §3): each external system is a Fastify plugin
// mounted under /<name>, answering the same published contract a provider implements, so the HTTP
// adapters are the code path in tests and demos. The server applies each system's injected faults
// before its routes, checks the contract signature of every request of a signed system, and offers
// a control route of its own (POST /_control/faults) to inject faults from outside the process.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../db/database.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { contractKey, contractSignatureProblem, newContractSecret } from './contract-signing.js';
import { SIGNATURE_TOLERANCE_SECONDS, type ContractErrorBody } from './contracts/contract.js';
import { createFaults, type Faults } from './faults.js';
import type { FaultControl } from './types.js';

/** @public What a simulator plugin is given (its Fastify options). */
export interface SimulatorContext {
  /** The database the simulators keep their state in (the app's own: no database per simulator). */
  db: Db | undefined;
  clock: Clock;
  /** This system's fault switch; the server applies it before the plugin's routes run. */
  faults: Faults;
}

/** One simulated system: an entry of the plugin list given to startSimulatorServer. */
export interface SimulatorPlugin {
  /** Lower-case name: the URL prefix (/<name>), the key of its secret and of its faults on the control route. */
  name: string;
  /** Check the contract signature (src/adapters/contract-signing.ts) of every request; false for stand-ins with their own auth. */
  signed: boolean;
  plugin: FastifyPluginAsync<SimulatorContext>;
}

/** A refusal on the merits: answered as the contract's error body with this status. */
export class SimRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** @public One request a simulated system answered. */
export interface RecordedRequest {
  system: string;
  method: string;
  /** Relative to the system's base URL (what was signed). */
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  status: number;
}

export interface SimulatorServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The base URL of one system: `${url}/<name>`. */
  urlOf(name: string): string;
  /** The shared secret (whsec_...) a signed system checks requests against. */
  secretOf(name: string): string;
  /** The fault switch of one system (the same state POST /_control/faults changes). */
  faultsOf(name: string): FaultControl;
  /** Bearer token of the control routes. */
  readonly controlToken: string;
  /** The last requests the systems answered (tests check them against the published contracts). */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

let running = 0;
/** How many simulator servers this process runs now (production must never start one; a test checks). */
export const runningSimulatorServers = () => running;

const RECORDED = 200;
const REPLAY_IDS = 10_000;
const NAME_RE = /^[a-z][a-z0-9-]{0,30}$/;

const errorBody = (code: string, message: string, retryable = false): ContractErrorBody => ({ error: { code, message, retryable } });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const faultBody = z
  .object({
    system: z.string().min(1).max(40),
    mode: z.enum(['none', 'unreachable', 'slow', 'failing']),
    delay_ms: z.int().min(0).max(600_000).optional(),
    times: z.int().min(1).max(1_000_000).optional(),
  })
  .strict();

/**
 * Starts the simulator server on host:port (127.0.0.1 and a free port by default) with the given
 * plugins, each under /<name> with a fresh random secret unless `secrets` names one.
 */
export async function startSimulatorServer(o: {
  db?: Db;
  clock?: Clock;
  host?: string;
  port?: number;
  plugins: SimulatorPlugin[];
  secrets?: Record<string, string>;
}): Promise<SimulatorServer> {
  const clock = o.clock ?? systemClock;
  const app: FastifyInstance = Fastify({ logger: false, bodyLimit: 262_144, forceCloseConnections: true });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const rawBodies = new WeakMap<IncomingMessage, string>();
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    rawBodies.set(request.raw, body as string);
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new SimRefusal(400, 'invalid_request', 'the body is not JSON'), undefined);
    }
  });

  app.setErrorHandler((err: Error & { validation?: unknown; statusCode?: number }, _request, reply) => {
    if (err instanceof SimRefusal) return reply.code(err.status).send(errorBody(err.code, err.message, err.status >= 500));
    if (err.validation) return reply.code(400).send(errorBody('invalid_request', err.message));
    if (err.statusCode && err.statusCode < 500) return reply.code(err.statusCode).send(errorBody('invalid_request', err.message));
    return reply.code(500).send(errorBody('internal_error', err.message, true));
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send(errorBody('not_found', `no operation ${request.method} ${request.url}`)));

  const requests: RecordedRequest[] = [];
  const systems = new Map<string, { faults: Faults; secret: string }>();
  const seenIds = new Map<string, number>();

  function rememberId(id: string): boolean {
    const now = Date.now();
    if ((seenIds.get(id) ?? 0) > now) return false;
    if (seenIds.size >= REPLAY_IDS) {
      for (const [k, until] of seenIds) if (until <= now || seenIds.size >= REPLAY_IDS) seenIds.delete(k);
    }
    seenIds.set(id, now + 2 * SIGNATURE_TOLERANCE_SECONDS * 1000);
    return true;
  }

  for (const entry of o.plugins) {
    if (!NAME_RE.test(entry.name) || entry.name === '_control' || systems.has(entry.name)) {
      throw new Error(`simulator plugin name ${entry.name} is not a free lower-case name`);
    }
    const faults = createFaults();
    const secret = o.secrets?.[entry.name] ?? newContractSecret();
    systems.set(entry.name, { faults, secret });
    const prefix = `/${entry.name}`;
    const keys = [contractKey(secret)];
    const delays = new WeakMap<FastifyRequest, number>();

    await app.register(
      async (scope) => {
        // The injected fault first: an unreachable or failing system never sees the request.
        scope.addHook('onRequest', async (request, reply) => {
          const fault = faults.next();
          if (fault.mode === 'unreachable') {
            reply.hijack();
            request.raw.socket.destroy();
            return reply;
          }
          if (fault.mode === 'failing') {
            return reply.code(500).send(errorBody('internal_error', `${entry.name} simulator: injected failure`, true));
          }
          if (fault.mode === 'slow') delays.set(request, fault.delayMs);
        });
        if (entry.signed) {
          scope.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
            const header = request.headers['idempotency-key'];
            const problem = contractSignatureProblem(
              keys,
              {
                method: request.method,
                path: request.url.slice(prefix.length),
                idempotencyKey: typeof header === 'string' ? header : undefined,
                body: rawBodies.get(request.raw) ?? '',
              },
              request.headers,
              clock.now(),
            );
            if (problem) return reply.code(401).send(errorBody('unauthorized', problem));
            if (!rememberId(`${entry.name}:${String(request.headers['webhook-id'])}`)) {
              return reply.code(401).send(errorBody('unauthorized', 'webhook-id seen before (replay)'));
            }
          });
        }
        // A slow system is slow after it has read the request: a caller that gives up still gets it applied.
        scope.addHook('preHandler', async (request) => {
          const ms = delays.get(request);
          if (ms) await sleep(ms);
        });
        scope.addHook('onResponse', async (request, reply) => {
          requests.push({
            system: entry.name,
            method: request.method,
            path: request.url.slice(prefix.length),
            headers: request.headers,
            body: rawBodies.get(request.raw) ?? '',
            status: reply.statusCode,
          });
          if (requests.length > RECORDED) requests.shift();
        });
        await scope.register(entry.plugin, { db: o.db, clock, faults });
      },
      { prefix },
    );
  }

  const controlToken = randomBytes(24).toString('base64url');
  const authorized = (request: FastifyRequest) => {
    const given = Buffer.from(String(request.headers.authorization ?? ''));
    const wanted = Buffer.from(`Bearer ${controlToken}`);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  };
  app.get('/_control/faults', async (request, reply) => {
    if (!authorized(request)) return reply.code(401).send(errorBody('unauthorized', 'Authorization: Bearer <control token> required'));
    return { faults: Object.fromEntries([...systems].map(([name, s]) => [name, { mode: s.faults.control.mode }])) };
  });
  app.post('/_control/faults', { schema: { body: faultBody } }, async (request, reply) => {
    if (!authorized(request)) return reply.code(401).send(errorBody('unauthorized', 'Authorization: Bearer <control token> required'));
    const b = request.body as z.infer<typeof faultBody>;
    const system = systems.get(b.system);
    if (!system) return reply.code(404).send(errorBody('not_found', `no simulated system ${b.system}`));
    system.faults.control.set(b.mode, { delayMs: b.delay_ms, times: b.times });
    return { system: b.system, mode: system.faults.control.mode };
  });

  let listening = false;
  app.addHook('onClose', async () => {
    if (listening) running -= 1;
    listening = false;
  });
  await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 0 });
  listening = true;
  running += 1;
  const addr = app.server.address() as AddressInfo;
  // Bound to every interface (a container publishing the port): this process calls it through loopback.
  const wildcard = addr.address === '0.0.0.0' || addr.address === '::';
  const host = wildcard ? '127.0.0.1' : addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  const system = (name: string) => {
    const s = systems.get(name);
    if (!s) throw new Error(`no simulated system ${name}`);
    return s;
  };
  return {
    url,
    urlOf: (name) => (system(name), `${url}/${name}`),
    secretOf: (name) => system(name).secret,
    faultsOf: (name) => system(name).faults.control,
    controlToken,
    requests,
    close: () => app.close(),
  };
}
