import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectPageHeaders } from '../helpers/page-headers.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('API explorers (docs pages)', () => {
  it.each(['/docs', '/agent/docs'])(
    '%s sends the page headers, and every script and stylesheet it references loads (200) under its CSP',
    async (prefix) => {
      const index = await t.app.inject({ method: 'GET', url: `${prefix}/` });
      expect(index.statusCode).toBe(200);
      expect(index.headers['content-type']).toMatch(/^text\/html/);
      expectPageHeaders(index, { token: false });
      const csp = String(index.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('upgrade-insecure-requests');
      const assets = [...index.body.matchAll(/(?:src|href)="(\.\/[^"]+|[^":]+\.(?:js|css))"/g)].map((m) => m[1]);
      expect(assets.some((a) => a!.endsWith('.js'))).toBe(true);
      for (const asset of assets) {
        const url = new URL(asset!, `http://x${prefix}/`).pathname;
        const r = await t.app.inject({ method: 'GET', url });
        expect(r.statusCode, url).toBe(200);
        expect(r.headers['x-content-type-options']).toBe('nosniff');
        // The initializer script names the spec it loads: that one answers too.
        if (url.endsWith('swagger-initializer.js')) {
          const spec = /url: "([^"]+)"/.exec(r.body)?.[1] ?? /"url":\s*"([^"]+)"/.exec(r.body)?.[1];
          if (spec) expect((await t.app.inject({ method: 'GET', url: new URL(spec, `http://x${url}`).pathname })).statusCode).toBe(200);
        }
      }
      // Every inline script of the page is allowed by hash (none by 'unsafe-inline').
      const inline = [...index.body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
        .map((m) => m[1])
        .filter((s) => s!.trim());
      const { createHash } = await import('node:crypto');
      for (const s of inline) expect(csp).toContain(`'sha256-${createHash('sha256').update(s!).digest('base64')}'`);
    },
  );

  it('JSON answers carry X-Content-Type-Options: nosniff', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
  });
});
