import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { urlToHttpOptions } from 'node:url';
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isInternalAddress } from '../lib/outbound-url.js';
import { Webhook } from 'standardwebhooks';
import { parseRetryAfter, RETRY_AFTER_STATUSES } from './schedule.js';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * Signing keys by secret. A secret is checked and decoded by the `standardwebhooks` package once
 * (an unusable one throws there, as before: the attempt fails with "cannot sign"); the HMAC itself
 * is node:crypto's, byte for byte the package's `v1` signature (a test compares the two) at a
 * third of the CPU and without its JavaScript SHA-256 buffers. Bounded: cleared when it reaches
 * 1,000 secrets (one per provider, rotations included).
 */
const signingKeys = new Map<string, Buffer>();

function signingKey(secret: string): Buffer {
  let key = signingKeys.get(secret);
  if (!key) {
    new Webhook(secret); // throws for an empty or malformed secret
    key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    if (signingKeys.size >= 1000) signingKeys.clear();
    signingKeys.set(secret, key);
  }
  return key;
}

/** Standard Webhooks headers for one attempt: the id is the delivery's, the timestamp the attempt's. */
export function signWebhook(signingSecret: string, msgId: string, timestamp: Date, body: string): SignedRequest {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const signature = createHmac('sha256', signingKey(signingSecret)).update(`${msgId}.${seconds}.${body}`).digest('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'netsvc-webhooks/1.0',
      'webhook-id': msgId,
      'webhook-timestamp': String(seconds),
      'webhook-signature': `v1,${signature}`,
    },
  };
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed: a network error, the timeout, or the unexpected status with a body excerpt. */
  error: string | null;
  /** Retry-After in ms (only for 429/502/504). */
  retryAfterMs: number | null;
  durationMs: number;
}

const BODY_EXCERPT = 200;
/** A 2xx body is read to the end so the connection can be reused; beyond this it is dropped instead. */
const DRAIN_LIMIT = 64 * 1024;

/**
 * Connections are kept alive and reused per origin (fetch without a tuned dispatcher cost ~4x the
 * CPU per request here). An idle connection is closed after 4 s, below the 5 s idle timeout that
 * Node and many servers use, and sooner when the receiver's `Keep-Alive: timeout=` says so.
 */
const AGENT_OPTIONS = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 4_000, scheduling: 'lifo' as const };
const agents = { 'http:': new HttpAgent(AGENT_OPTIONS), 'https:': new HttpsAgent(AGENT_OPTIONS) };

/**
 * In production a delivery connects only to public addresses: the name is resolved again for each
 * new connection and refused when any address is internal, so a host that passed the operator's
 * check and later re-resolves inside the network (DNS rebinding) is not reached.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const internal = addresses.find((a) => isInternalAddress(a.address));
    const [first] = addresses;
    if (internal || !first) {
      const e = Object.assign(new Error(`webhook host ${hostname} resolves to an internal address; not sent`), { code: 'EINTERNAL' });
      return callback(e, '', 4);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    callback(null, first.address, first.family);
  });
};
const GUARDED_OPTIONS = { ...AGENT_OPTIONS, lookup: guardedLookup };
const guardedAgents = { 'http:': new HttpAgent(GUARDED_OPTIONS), 'https:': new HttpsAgent(GUARDED_OPTIONS) };

class AttemptTimeout extends Error {
  override name = 'TimeoutError';
}

/**
 * One POST. Only 2xx is success; redirects are not followed (a 3xx is a failure, the URL is the
 * provider's to fix). The timeout covers the whole exchange including the response body.
 */
export async function postWebhook(
  url: string,
  req: SignedRequest,
  o: { timeoutMs: number; now: Date; publicOnly?: boolean },
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const res = await exchange(url, req, o.timeoutMs, o.publicOnly ?? false);
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      statusCode: res.status,
      error: ok ? null : `HTTP ${res.status}${res.excerpt ? `: ${res.excerpt}` : ''}`,
      retryAfterMs: RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfter(res.retryAfter, o.now) : null,
      durationMs: elapsed(),
    };
  } catch (err) {
    return { ok: false, statusCode: null, error: describeError(err, o.timeoutMs), retryAfterMs: null, durationMs: elapsed() };
  }
}

interface Exchanged {
  status: number;
  retryAfter: string | null;
  /** The first 200 characters of a non-2xx body, whitespace collapsed. */
  excerpt: string;
}

/** Request options by URL (parsed once per URL, not per POST); bounded like the signing keys. */
const targets = new Map<string, { options: RequestOptions; https: boolean } | Error>();

function target(url: string, publicOnly: boolean): { options: RequestOptions; https: boolean } {
  const cacheKey = `${publicOnly ? 'public' : 'any'} ${url}`;
  let t: { options: RequestOptions; https: boolean } | Error | undefined = targets.get(cacheKey);
  if (!t) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      t = new Error(`invalid webhook URL: ${url}`);
    }
    if (parsed) {
      const agent = (publicOnly ? guardedAgents : agents)[parsed.protocol as keyof typeof agents];
      const host = parsed.hostname.replace(/^\[|\]$/g, '');
      t = !agent
        ? new Error(`unsupported webhook URL scheme: ${parsed.protocol}`)
        : publicOnly && parsed.protocol !== 'https:'
          ? new Error('webhook URL must be https in production; not sent')
          : // An address literal is never looked up: judged here.
            publicOnly && isIP(host) && isInternalAddress(host)
            ? new Error(`webhook host ${host} is an internal address; not sent`)
            : { https: parsed.protocol === 'https:', options: { ...urlToHttpOptions(parsed), agent, method: 'POST' } };
    }
    if (targets.size >= 1000) targets.clear();
    targets.set(cacheKey, t!);
  }
  if (!t) throw new Error(`invalid webhook URL: ${url}`);
  if (t instanceof Error) throw t;
  return t;
}

function exchange(url: string, req: SignedRequest, timeoutMs: number, publicOnly: boolean): Promise<Exchanged> {
  return new Promise<Exchanged>((resolve, reject) => {
    let dest: { options: RequestOptions; https: boolean };
    try {
      dest = target(url, publicOnly);
    } catch (err) {
      reject(err);
      return;
    }
    const body = Buffer.from(req.body);
    const send = dest.https ? httpsRequest : httpRequest;
    const r = send({ ...dest.options, headers: { ...req.headers, 'content-length': String(body.byteLength) } });
    let settled = false;
    const done = (err: Error | null, v?: Exchanged) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(v!);
    };
    // The whole exchange: connect, send, answer and body. A timed-out socket is not reused.
    const timer = setTimeout(() => {
      const err = new AttemptTimeout(`timeout after ${timeoutMs} ms`);
      r.destroy(err);
      done(err);
    }, timeoutMs);
    r.on('error', (err) => done(err));
    r.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null;
      const ok = status >= 200 && status < 300;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const excerpt = ok ? '' : Buffer.concat(chunks).toString('utf8', 0, Math.min(size, BODY_EXCERPT)).replace(/\s+/g, ' ').trim();
        done(null, { status, retryAfter, excerpt });
      };
      res.on('data', (c: Buffer) => {
        size += c.byteLength;
        if (!ok && size - c.byteLength < BODY_EXCERPT) chunks.push(c);
        // Enough of an error body for the excerpt, or a 2xx body too large to drain: answer now
        // and drop the connection instead of reading on.
        if ((!ok && size >= BODY_EXCERPT) || (ok && size > DRAIN_LIMIT)) {
          finish();
          res.destroy();
        }
      });
      res.on('end', finish);
      res.on('error', (err) => done(err));
      res.on('close', () => {
        if (!res.complete) done(new Error('the connection closed before the response was complete'));
      });
    });
    r.end(body);
  });
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timeout after ${timeoutMs} ms`;
  if (err instanceof Error) {
    const code = (err as Error & { code?: string }).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
