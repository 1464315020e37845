import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('request ids', () => {
  it('every response carries x-request-id, and the /agent envelope repeats it', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/agent/customers/search?q=ab' });
    expect(r.statusCode).toBe(403);
    const id = r.headers['x-request-id'];
    expect(id).toMatch(/^req_/);
    expect(r.json()).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String), request_id: id } });
  });

  it('reuses a safe incoming x-request-id and replaces an unsafe one', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'lb-1234.abc' } });
    expect(ok.headers['x-request-id']).toBe('lb-1234.abc');
    const bad = await t.app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'x'.repeat(300) } });
    expect(bad.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('error shapes', () => {
  it("an /agent error message ends with its code's next step; a partner {detail} is unchanged", async () => {
    const p = await createProvider(t.db);
    const noKey = await t.app.inject({ method: 'GET', url: '/agent/customers/search?q=ab' });
    expect(noKey.json().error.message).toBe(
      "The API key is missing, invalid, or its account is disabled. Next step: the integration's API key is missing, wrong or disabled: do not retry; hand the conversation to a human and tell the operator.",
    );
    const unknown = await t.app.inject({ method: 'GET', url: '/agent/customers/not-a-customer', headers: { 'x-api-key': p.apiKey } });
    expect(unknown.json().error).toMatchObject({
      code: 'customer_not_found',
      message: expect.stringMatching(/\. Next step: ask the caller for another detail and search again/),
    });
    const invalid = await t.app.inject({ method: 'GET', url: '/agent/customers/search?q=a', headers: { 'x-api-key': p.apiKey } });
    expect(invalid.json().error).toMatchObject({
      code: 'validation_error',
      message:
        'Request validation failed. Next step: correct the fields named in `details` and send again (ask the caller when the value came from them).',
    });
    const partner = await t.app.inject({ method: 'GET', url: '/no-such-thing' });
    expect(partner.json()).toEqual({ detail: 'Not Found' });
  });

  it('an unknown /agent path answers 404 in the envelope; an unknown partner path 404 {detail}', async () => {
    const p = await createProvider(t.db);
    const a = await t.app.inject({ method: 'GET', url: '/agent/no-such-thing', headers: { 'x-api-key': p.apiKey } });
    expect(a.statusCode).toBe(404);
    expect(a.json().error.code).toBe('not_found');
    const b = await t.app.inject({ method: 'GET', url: '/no-such-thing' });
    expect(b.statusCode).toBe(404);
    expect(b.json()).toEqual({ detail: 'Not Found' });
  });

  it('a disabled account, a key without agent_api_access, and garbage keys are refused on /agent with stable codes', async () => {
    const disabled = await createProvider(t.db, { disabled: true });
    const noAgent = await createProvider(t.db, { features: ['provisioning:write'] });
    const cases: [string | undefined, string][] = [
      [disabled.apiKey, 'invalid_api_key'],
      [noAgent.apiKey, 'feature_not_enabled'],
      ['sk_abcdefgh_' + 'x'.repeat(40), 'invalid_api_key'],
      ['nonsense', 'invalid_api_key'],
      [undefined, 'invalid_api_key'],
    ];
    for (const [key, code] of cases) {
      const r = await t.app.inject({ method: 'GET', url: '/agent/customers/search?q=ab', headers: key ? { 'x-api-key': key } : {} });
      expect(r.statusCode).toBe(403);
      expect(r.json().error.code).toBe(code);
    }
  });

  it('malformed JSON, a wrong content type and an oversized body are 4xx in the partner shape, never 500', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: 'Malformed JSON body' });
    const type = await t.app.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(type.statusCode).toBe(415);
    expect(type.json().detail).toMatch(/content type/i);
    const big = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.de', password: 'x'.repeat(2_000_000) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ detail: 'Request body is too large' });
  });

  it('a schema failure on the partner surface is 422 naming the field', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: 'a@b.de' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^password: /);
  });

  it('a database outage answers 503 without internals, and the app recovers', async () => {
    const original = t.services.auth.login;
    t.services.auth.login = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    };
    const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@b.de', password: 'x' } });
    t.services.auth.login = original;
    expect(r.statusCode).toBe(503);
    expect(r.headers['retry-after']).toBe('5');
    expect(r.body).not.toMatch(/ECONNREFUSED|5432|stack/);
  });

  it('an unexpected error is a 500 with no stack trace or SQL text', async () => {
    const original = t.services.auth.login;
    t.services.auth.login = async () => {
      throw new Error('relation "users" does not exist at SELECT * FROM users');
    };
    const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'a@b.de', password: 'x' } });
    t.services.auth.login = original;
    expect(r.statusCode).toBe(500);
    expect(r.json()).toEqual({ detail: 'Internal server error' });
  });
});
