// JSON bodies (issue 30 §2): deep nesting refused by one scan before JSON.parse, per-route body
// limits, and unmatched paths that parse nothing; each refusal in its surface's error shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonParseCount, MAX_JSON_DEPTH, nestedDeeperThan, DEFAULT_BODY_LIMIT } from '../../src/plugins/json-body.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp();
  key = (await createProvider(t.db)).apiKey;
});
afterAll(() => t.close());

const JSON_HEADERS = { 'content-type': 'application/json' };
const DEEP = '['.repeat(500_000);

async function post(url: string, payload: string, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...headers }, payload });
  return { status: r.statusCode, body: r.json(), requestId: r.headers['x-request-id'] };
}

describe('deep nesting', () => {
  it('500,000 `[` answers 400 in the /agent envelope without reaching JSON.parse or the handler', async () => {
    const before = jsonParseCount.value;
    // POST /agent/tickets takes up to 512 KB: the body is read, then refused by the scan.
    const r = await post('/agent/tickets', DEEP, { 'x-api-key': key });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: {
        code: 'bad_request',
        message: expect.stringMatching(/^Malformed JSON body: nested deeper than 64 levels/),
        request_id: r.requestId,
      },
    });
    expect(jsonParseCount.value).toBe(before);
    expect(await t.db.selectFrom('tickets').select('id').execute()).toEqual([]);
  });

  it('deep nesting answers 400 {detail} on the partner surface, at both mounts, without JSON.parse; 500,000 `[` is over the limit (413)', async () => {
    const before = jsonParseCount.value;
    for (const url of ['/auth/login', '/api/v1/auth/login']) {
      const r = await post(url, '['.repeat(10_000));
      expect(r.status, url).toBe(400);
      expect(r.body, url).toEqual({ detail: `Malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels` });
      expect(await post(url, DEEP), url).toMatchObject({ status: 413, body: { detail: 'Request body is too large' } });
    }
    expect(jsonParseCount.value).toBe(before);
  });

  it('an unmatched path answers 404 in its surface shape before reading the body, whatever its size or depth', async () => {
    const before = jsonParseCount.value;
    const partner = await post('/no/such/path', DEEP);
    expect(partner).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    const huge = await post('/api/v1/no/such/path', `[${'1,'.repeat(1_000_000)}1]`);
    expect(huge).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    const agent = await post('/agent/no/such/path', DEEP, { 'x-api-key': key });
    expect(agent).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(jsonParseCount.value).toBe(before);
  });

  it('a body within the depth bound is parsed and validated as before (brackets inside strings do not count)', async () => {
    const before = jsonParseCount.value;
    const nested = JSON.stringify({ email: 'a@example.com', password: 'x', extra: JSON.parse('['.repeat(60) + ']'.repeat(60)) });
    const ok = await post('/auth/login', nested);
    expect(ok.status).not.toBe(400);
    const inString = await post('/auth/login', JSON.stringify({ email: '['.repeat(200), password: '{'.repeat(200) }));
    expect(inString).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/^email: /) } });
    const malformed = await post('/auth/login', '{"email": ');
    expect(malformed).toMatchObject({ status: 400, body: { detail: 'Malformed JSON body' } });
    expect(jsonParseCount.value).toBe(before + 3);
  });

  it('the scan: depth counted outside strings, escaped quotes and backslashes handled', () => {
    expect(nestedDeeperThan('[[[]]]', 3)).toBe(false);
    expect(nestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(nestedDeeperThan('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify({ a: '\\"[[[[[[' }), 2)).toBe(false);
    expect(nestedDeeperThan(JSON.stringify({ a: 'x\\' }) + '[[[[', 3)).toBe(true);
    expect(nestedDeeperThan(JSON.stringify(['"', { b: '\\\\"' }, [[['q']]]]), 4)).toBe(false);
    expect(nestedDeeperThan('[[[["unterminated', 10)).toBe(false);
  });
});

describe('body limits', () => {
  it('a body over the default limit (16 KB) answers 413 in each surface shape', async () => {
    const big = JSON.stringify({ customer_id: 'x', pad: 'y'.repeat(DEFAULT_BODY_LIMIT) });
    const agent = await post('/agent/verify/issue', big, { 'x-api-key': key });
    expect(agent.status).toBe(413);
    expect(agent.body).toEqual({
      error: { code: 'bad_request', message: expect.stringMatching(/^Request body is too large/), request_id: agent.requestId },
    });
    const partner = await post('/auth/login', big);
    expect(partner).toEqual({ status: 413, body: { detail: 'Request body is too large' }, requestId: partner.requestId });
  });

  it('the routes that take more declare their own limit: a 100,000-character ticket transcript is accepted', async () => {
    const body = JSON.stringify({
      contact_email: 'caller@example.com',
      priority: 'low',
      ai_summary: 'Question',
      transcript: 'é'.repeat(100_000),
    });
    const r = await post('/agent/tickets', body, { 'x-api-key': key });
    expect(r.status).toBe(201);
    const over = await post('/agent/tickets', JSON.stringify({ pad: 'x'.repeat(600 * 1024) }), { 'x-api-key': key });
    expect(over.status).toBe(413);
  });
});
