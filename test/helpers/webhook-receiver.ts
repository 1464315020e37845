/**
 * A real HTTP webhook receiver for tests: listens on 127.0.0.1 (a free port), verifies every
 * request's Standard Webhooks signature with the `standardwebhooks` package, rejects timestamps
 * more than 5 minutes away from the test clock, and records what it accepted.
 *
 *   const rx = await startWebhookReceiver({ clock: t.clock });
 *   const p = await createProvider(t.db, { webhookUrl: rx.url });
 *   rx.trust(p.signingSecret);                 // or startWebhookReceiver({ secrets: [...] })
 *   ... code that emits; await t.deps.jobs.drain();
 *   expect(rx.events.map((e) => e.type)).toEqual(['subscription.activated']);
 *   rx.setMode({ status: 500 });               // every request answers 500 (nothing recorded as received)
 *   rx.setMode({ status: 429, retryAfter: 120 }); // 429 with `Retry-After: 120`
 *   await rx.setMode('down');                  // the port is closed: connection refused
 *   await rx.setMode('ok');                    // back up on the same URL, answering 204
 *   await rx.close();                          // in afterAll/afterEach
 *
 * `events` holds each accepted delivery once per arrival (a retried webhook-id appears again:
 * at-least-once); `ids()` lists their webhook-ids; `requests` holds every request, accepted or not,
 * with what was answered. Delivery in tests runs inside `deps.jobs.drain()`, so the events are
 * already recorded when drain resolves; `waitFor(n)` is for deliveries made by a background worker.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../../src/lib/clock.js';
import type { WebhookEnvelope } from '../../src/webhooks/types.js';

const RECEIVER_TOLERANCE_SECONDS = 5 * 60;

type ReceiverMode =
  /** Verify and answer 204 (the default). A bad signature or stale timestamp answers 401. */
  | 'ok'
  /** The listening socket is closed; requests get "connection refused". */
  | 'down'
  /** Accept the connection and never answer (for timeout tests). */
  | 'hang'
  /** Answer this status (after verifying; the event is not recorded), with Retry-After if given. */
  | { status: number; retryAfter?: number | string };

interface ReceivedEvent extends WebhookEnvelope {
  /** The webhook-id header (equal to the envelope id). */
  webhookId: string;
  /** The webhook-timestamp header, unix seconds. */
  timestamp: number;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

interface ReceivedRequest {
  webhookId: string | undefined;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** What the receiver answered (0 when it hung up without answering). */
  answered: number;
  /** Why verification failed, if it did. */
  rejected?: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/webhooks`; stays the same across 'down' and back. */
  readonly url: string;
  /** Accepted, verified deliveries in arrival order. */
  readonly events: ReceivedEvent[];
  /** Every request, accepted or not. */
  readonly requests: ReceivedRequest[];
  /** webhook-ids of the accepted deliveries, in arrival order. */
  ids(): string[];
  /** Adds a signing secret (`whsec_...`) that signatures may verify against. */
  trust(secret: string): void;
  /** Changes how later requests are answered; 'down' closes the port, leaving it reopens it. */
  setMode(mode: ReceiverMode): Promise<void>;
  /** Resolves when at least `n` events were accepted; rejects after `timeoutMs` (default 5000). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedEvent[]>;
  /** Forgets the recorded events and requests. */
  reset(): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The clock timestamps are checked against (default: the system clock). Pass the test clock. */
  clock?: Clock;
  /** Signing secrets to accept (more can be added with trust()). */
  secrets?: string[];
  path?: string;
}

/** Verifies with the package's HMAC; the timestamp window is checked against the given clock. */
function verify(secrets: string[], headers: IncomingHttpHeaders, body: string, now: Date): string | null {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string')
    return 'missing webhook-id, webhook-timestamp or webhook-signature';
  if (!/^\d+$/.test(ts)) return 'webhook-timestamp is not unix seconds';
  const seconds = Number(ts);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (nowSeconds - seconds > RECEIVER_TOLERANCE_SECONDS) return 'timestamp too old';
  if (seconds - nowSeconds > RECEIVER_TOLERANCE_SECONDS) return 'timestamp too new';
  if (secrets.length === 0) return 'no signing secret trusted (call trust())';
  const passed = sig
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3)));
  for (const secret of secrets) {
    // The package's verify() checks the timestamp against the system clock; the test clock runs
    // elsewhere, so the same signing primitive is compared here instead.
    const expected = Buffer.from(new Webhook(secret).sign(id, new Date(seconds * 1000), body).slice(3));
    if (passed.some((p) => p.length === expected.length && timingSafeEqual(p, expected))) return null;
  }
  return 'no matching signature';
}

export async function startWebhookReceiver(opts: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const clock = opts.clock ?? { now: () => new Date() };
  const secrets = [...(opts.secrets ?? [])];
  const path = opts.path ?? '/webhooks';
  const events: ReceivedEvent[] = [];
  const requests: ReceivedRequest[] = [];
  let mode: ReceiverMode = 'ok';
  const waiters: { n: number; resolve: () => void }[] = [];
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const webhookId = typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : undefined;
      const record: ReceivedRequest = { webhookId, headers: req.headers, rawBody, answered: 0 };
      requests.push(record);
      if (mode === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const answer = (status: number, headers: Record<string, string> = {}, body = '') => {
        record.answered = status;
        // No keep-alive: a client never holds a pooled socket, so 'down' is a clean refusal.
        res.writeHead(status, { 'content-type': 'text/plain', connection: 'close', ...headers });
        res.end(body);
      };
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== path) return answer(404, {}, 'not found');
      const problem = verify(secrets, req.headers, rawBody, clock.now());
      if (problem) {
        record.rejected = problem;
        return answer(401, {}, problem);
      }
      if (typeof mode === 'object') {
        return answer(
          mode.status,
          mode.retryAfter !== undefined ? { 'retry-after': String(mode.retryAfter) } : {},
          `receiver answers ${mode.status}`,
        );
      }
      const envelope = JSON.parse(rawBody) as WebhookEnvelope;
      events.push({
        ...envelope,
        webhookId: webhookId!,
        timestamp: Number(req.headers['webhook-timestamp']),
        headers: req.headers,
        rawBody,
      });
      answer(204);
      for (const w of [...waiters]) {
        if (events.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.socket?.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen(0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;

  return {
    url: `http://127.0.0.1:${port}${path}`,
    events,
    requests,
    ids: () => events.map((e) => e.webhookId),
    trust(secret) {
      if (!secrets.includes(secret)) secrets.push(secret);
    },
    async setMode(next) {
      if (next === 'down' && listening) {
        listening = false;
        await shut();
      } else if (next !== 'down' && !listening) {
        await listen(port);
        listening = true;
      }
      if (next !== 'hang') for (const res of hanging) res.socket?.destroy();
      mode = next;
    },
    waitFor(n, timeoutMs = 5000) {
      if (events.length >= n) return Promise.resolve(events);
      return new Promise((resolve, reject) => {
        const w = { n, resolve: () => (clearTimeout(timer), resolve(events)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`webhook receiver: expected ${n} event(s) within ${timeoutMs} ms, got ${events.length}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    reset() {
      events.length = 0;
      requests.length = 0;
    },
    async close() {
      if (listening) {
        listening = false;
        await shut();
      }
    },
  };
}
