import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectPageHeaders } from '../helpers/page-headers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('the landing page (GET /)', () => {
  it('answers a small HTML page with the page headers instead of {"detail":"Not Found"}', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expectPageHeaders(r, { token: false });
    expect(r.body).toMatch(/^<!DOCTYPE html>\s*<html lang="en">/);
    expect(r.body).not.toMatch(/<script/i);
    expect(r.body).not.toContain('Not Found');
  });

  it('links both explorers, both OpenAPI documents and /healthz, and names the README walkthrough and the demo scripts', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/' })).body;
    const hrefs = [...body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(['/agent/docs', '/docs', '/agent/openapi.json', '/openapi.json', '/healthz']);
    expect(body).toContain('README.md');
    expect(body).toContain('Walkthrough with curl');
    expect(body).toContain('npm run demo:agent');
    expect(body).toContain('npm run demo:partner');
  });

  it('every link answers (a route of its own, not the not-found handler)', async () => {
    const body = (await t.app.inject({ method: 'GET', url: '/' })).body;
    for (const href of [...body.matchAll(/href="([^"]+)"/g)].map((m) => m[1])) {
      // /healthz is added by the operations work; until it is registered on this app there is nothing to call.
      if (href === '/healthz' && !t.app.hasRoute({ method: 'GET', url: href })) continue;
      const r = await t.app.inject({ method: 'GET', url: href });
      expect(r.statusCode, href).toBeLessThan(400);
    }
  });

  it('is in neither OpenAPI document, and other methods on / answer 405 with Allow in the partner shape', async () => {
    for (const doc of ['/openapi.json', '/agent/openapi.json']) {
      const paths = Object.keys((await t.app.inject({ method: 'GET', url: doc })).json().paths);
      expect(paths).not.toContain('/');
    }
    const post = await t.app.inject({ method: 'POST', url: '/', payload: {} });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toMatch(/^GET, HEAD/);
    expect(post.json()).toEqual({ detail: 'Method Not Allowed' });
  });
});
