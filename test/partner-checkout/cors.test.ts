// Issue 28 §3: GET /external-checkout/sessions/{session_id}/status answers CORS (any origin, GET and its
// preflight, no credentials) on both mounts, and no other route does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createWorld, createSession, type World } from '../provisioning/fixtures.js';

let t: TestApp;
let w: World;
let session: string;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
  session = (
    await createSession(t, { providerId: w.provider.id, planVersionId: w.plan.id, buildingId: w.second.id, unitId: w.second.units[0]!.id })
  ).id;
});
afterAll(() => t.close());

const ORIGIN = 'https://checkout.partner.example';

describe('CORS on the session status route', () => {
  for (const prefix of ['', '/api/v1']) {
    it(`${prefix || '/'}: GET with an Origin answers Access-Control-Allow-Origin *, no credentials`, async () => {
      const r = await t.app.inject({
        method: 'GET',
        url: `${prefix}/external-checkout/sessions/${session}/status`,
        headers: { origin: ORIGIN },
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ status: 'redirected' });
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it(`${prefix || '/'}: the preflight answers 204 allowing GET only, no credentials`, async () => {
      const r = await t.app.inject({
        method: 'OPTIONS',
        url: `${prefix}/external-checkout/sessions/${session}/status`,
        headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
      });
      expect(r.statusCode).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-allow-methods']).toBe('GET');
      expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    });
  }

  it('an unknown session still answers 404 with the CORS header (the page can read the error)', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/external-checkout/sessions/00000000-0000-4000-8000-000000000000/status',
      headers: { origin: ORIGIN },
    });
    expect(r.statusCode).toBe(404);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });

  it('no other route answers CORS: the session read, complete, the agent surface, the landing page; their preflights are not granted', async () => {
    const others: { method: 'GET' | 'POST'; url: string }[] = [
      { method: 'GET', url: `/external-checkout/sessions/${session}` },
      { method: 'GET', url: `/api/v1/external-checkout/sessions/${session}` },
      { method: 'POST', url: '/external-checkout/complete' },
      { method: 'GET', url: '/agent/customers/search?q=x' },
      { method: 'GET', url: '/' },
      { method: 'GET', url: `/external-checkout/sessions/${session}/status/extra` },
    ];
    for (const o of others) {
      const r = await t.app.inject({ method: o.method, url: o.url, headers: { origin: ORIGIN } });
      expect(r.headers['access-control-allow-origin'], o.url).toBeUndefined();
      const pre = await t.app.inject({
        method: 'OPTIONS',
        url: o.url,
        headers: { origin: ORIGIN, 'access-control-request-method': o.method },
      });
      expect(pre.headers['access-control-allow-origin'], `OPTIONS ${o.url}`).toBeUndefined();
      expect(pre.statusCode, `OPTIONS ${o.url}`).toBeGreaterThanOrEqual(400);
    }
  });
});
