import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { createProvider } from '../helpers/factories.js';
import { overrideRateLimits } from '../helpers/rate-limits.js';
import { expectNoLeaks, setupAgent, type AgentKit } from './helpers.js';

// Small budgets so every route's limit can be spent quickly.
const BUDGET = 3;
overrideRateLimits(Object.fromEntries(Object.keys(RATE_LIMITS).flatMap((name) => (name.startsWith('agent.') ? [[name, BUDGET]] : []))));

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent({ env: { RATE_LIMIT_ENABLED: 'true' } });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const noRateLimitHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((h) => h.startsWith('x-ratelimit'));

describe('/agent rate limits', () => {
  it('verify/check: past its per-key budget, 429 in the standard shape (no envelope), Retry-After, no X-RateLimit headers', async () => {
    const max = RATE_LIMITS['agent.verify_check'];
    for (let i = 0; i < max; i++) {
      const r = await kit.call('POST', '/agent/verify/check', { payload: { customer_id: newId(), code: '123456' } });
      expect(r.status).toBe(404);
      expect(noRateLimitHeaders(r.headers)).toEqual([]);
    }
    const r = await kit.call('POST', '/agent/verify/check', { payload: { customer_id: newId(), code: '123456' } });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Rate limit exceeded/) });
    expect(r.body.error).not.toHaveProperty('code');
    expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    expect(noRateLimitHeaders(r.headers)).toEqual([]);
  });

  it('buckets per API key and per endpoint: another key, and another endpoint of the same key, still pass', async () => {
    const other = await kit.call('POST', '/agent/verify/check', {
      key: kit.other.apiKey,
      payload: { customer_id: newId(), code: '123456' },
    });
    expect(other.status).toBe(404);
    const search = await kit.call('GET', '/agent/customers/search?q=nobody');
    expect(search.status).toBe(200);
    const search2 = await kit.call('GET', '/agent/customers/search?q=nobody');
    expect(search2.status).toBe(200);
  });

  it('an invented key counts against the client IP: after the budget of 403 invalid_api_key, the standard 429; a valid key from that IP keeps its own bucket', async () => {
    const url = '/agent/customers/search?q=nobody';
    for (let i = 0; i < BUDGET; i++) {
      const r = await kit.call('GET', url, { key: `sk_${String(i).padStart(8, 'q')}_${'x'.repeat(40)}` });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('invalid_api_key');
    }
    const limited = await kit.call('GET', url, { key: `sk_qqqqqqqz_${'x'.repeat(40)}` });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: expect.stringMatching(/^Rate limit exceeded/) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await kit.call('GET', url, { key: null })).status).toBe(429);
    const valid = await kit.call('GET', url, { key: (await createProvider(kit.t.db)).apiKey });
    expect(valid.status).toBe(200);
  });

  it("every /agent route of this surface is limited: a fresh key spends each route's budget, then 429 (standard shape)", async () => {
    const id = newId();
    const routes = [
      ['GET', '/agent/customers/search?q=xy'],
      ['POST', '/agent/verify/issue'],
      ['POST', '/agent/verify/check'],
      ['GET', `/agent/customers/${id}`],
      ['GET', `/agent/customers/${id}/billing-summary`],
      ['GET', `/agent/customers/${id}/payments`],
      ['GET', `/agent/customers/${id}/network-health`],
      ['GET', `/agent/customers/${id}/tickets`],
      ['PATCH', `/agent/customers/${id}/contact`],
      ['POST', `/agent/customers/${id}/password-reset`],
      ['POST', `/agent/customers/${id}/invoices/${newId()}/resend`],
      ['POST', `/agent/customers/${id}/notes`],
      ['POST', '/agent/tickets'],
    ] as const;
    for (const [method, url] of routes) {
      const key = (await createProvider(kit.t.db)).apiKey;
      const statuses: number[] = [];
      for (let i = 0; i <= BUDGET; i++) statuses.push((await kit.call(method, url, { key, payload: {} })).status);
      expect({ method, url, last: statuses.at(-1), before: statuses.slice(0, -1).includes(429) }).toEqual({
        method,
        url,
        last: 429,
        before: false,
      });
    }
  });
});
