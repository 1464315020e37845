import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import { parseRetryAfter, RETRY_AFTER_STATUSES } from './schedule.js';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** Standard Webhooks headers for one attempt: the id is the delivery's, the timestamp the attempt's. */
export function signWebhook(signingSecret: string, msgId: string, timestamp: Date, body: string): SignedRequest {
  const signature = new Webhook(signingSecret).sign(msgId, timestamp, body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'netsvc-webhooks/1.0',
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
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

/**
 * One POST. Only 2xx is success; redirects are not followed (a 3xx is a failure, the URL is the
 * provider's to fix). The timeout covers the whole exchange including the response body.
 */
export async function postWebhook(url: string, req: SignedRequest, o: { timeoutMs: number; now: Date }): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    const excerpt = await readExcerpt(res);
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      statusCode: res.status,
      error: ok ? null : `HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`,
      retryAfterMs: RETRY_AFTER_STATUSES.has(res.status) ? parseRetryAfter(res.headers.get('retry-after'), o.now) : null,
      durationMs: elapsed(),
    };
  } catch (err) {
    return { ok: false, statusCode: null, error: describeError(err, o.timeoutMs), retryAfterMs: null, durationMs: elapsed() };
  }
}

async function readExcerpt(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < BODY_EXCERPT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8', 0, Math.min(size, BODY_EXCERPT)).replace(/\s+/g, ' ').trim();
}

function describeError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timeout after ${timeoutMs} ms`;
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as Error & { code?: string }).code;
      return code && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
    }
    return err.message;
  }
  return String(err);
}
