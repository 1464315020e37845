// A known path with a wrong method answers 405 with `Allow` (issue 30 §5), not 404: on /agent in the
// envelope, on the partner surface as {detail}, at both partner mounts; an unknown path stays 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patternRegex } from '../../src/plugins/unmatched.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp();
  key = (await createProvider(t.db)).apiKey;
});
afterAll(() => t.close());

const send = async (method: 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH', url: string, headers: Record<string, string> = {}) => {
  const r = await t.app.inject({ method, url, headers });
  return { status: r.statusCode, allow: r.headers.allow, body: r.json(), requestId: r.headers['x-request-id'] };
};

describe('405 Method Not Allowed', () => {
  it('/agent: a wrong method on a known path answers 405, Allow and the envelope (code method_not_allowed), before the API key', async () => {
    const search = await send('POST', '/agent/customers/search?q=ab');
    expect(search.status).toBe(405);
    expect(search.allow).toBe('GET, HEAD');
    expect(search.body).toEqual({
      error: {
        code: 'method_not_allowed',
        message: expect.stringMatching(/^Method POST not allowed on \/agent\/customers\/search; allowed: GET, HEAD/),
        request_id: search.requestId,
      },
    });
    const contact = await send('PUT', '/agent/customers/3f1c2a9e-0000-4000-8000-000000000001/contact', { 'x-api-key': key });
    expect(contact).toMatchObject({ status: 405, allow: 'PATCH', body: { error: { code: 'method_not_allowed' } } });
  });

  it('partner: a wrong method answers 405 with Allow and {detail}, at / and at /api/v1', async () => {
    for (const prefix of ['', '/api/v1']) {
      const login = await send('GET', `${prefix}/auth/login`);
      expect(login, prefix).toEqual({ status: 405, allow: 'POST', body: { detail: 'Method Not Allowed' }, requestId: login.requestId });
      const me = await send('DELETE', `${prefix}/subscriber/me`);
      expect(me.status, prefix).toBe(405);
      expect(me.allow?.split(', '), prefix).toContain('GET');
    }
  });

  it('an unknown path still answers 404 in each shape, with no Allow header', async () => {
    const partner = await send('GET', '/api/v1/nothing/here');
    expect(partner).toMatchObject({ status: 404, allow: undefined, body: { detail: 'Not Found' } });
    const agent = await send('POST', '/agent/nothing/here');
    expect(agent).toMatchObject({ status: 404, allow: undefined, body: { error: { code: 'not_found' } } });
  });

  it('route patterns match concrete paths segment by segment', () => {
    expect(patternRegex('/customers/:customerId/notes').test('/customers/abc/notes')).toBe(true);
    expect(patternRegex('/customers/:customerId/notes').test('/customers/a/b/notes')).toBe(false);
    expect(patternRegex('/docs/*').test('/docs/static/index.html')).toBe(true);
    expect(patternRegex('/a.b/:x').test('/aXb/1')).toBe(false);
  });
});
