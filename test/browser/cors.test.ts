// Issue 28 §3, in a real browser: a hosted checkout page on another origin polls
// GET /external-checkout/sessions/{session_id}/status (a simple GET and one that needs a preflight),
// and the same page cannot read a route without CORS. Skipped without Chromium (see pages.test.ts).
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { createSession, createWorld } from '../provisioning/fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) process.stderr.write(`browser CORS test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)\n`);

describe.skipIf(!haveChromium)('CORS of the session status route, from a page on another origin (Chromium)', () => {
  vi.setConfig({ testTimeout: 90_000 });
  let t: TestApp;
  let browser: Browser;
  let page: Server;
  let api: string;
  let pageOrigin: string;
  let session: string;

  beforeAll(async () => {
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: api } });
    await t.app.listen({ host: '127.0.0.1', port });
    const w = await createWorld(t);
    session = (
      await createSession(t, {
        providerId: w.provider.id,
        planVersionId: w.plan.id,
        unitId: w.second.units[0]!.id,
        buildingId: w.second.id,
      })
    ).id;
    // The partner's hosted checkout page: another origin (localhost, another port).
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>checkout</title>'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://localhost:${(page.address() as AddressInfo).port}`;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
    await t?.close();
  });

  it('the page reads the status (simple GET and with a preflight) on both mounts, and cannot read the authenticated session read', async () => {
    const tab = await browser.newPage();
    await tab.goto(`${pageOrigin}/checkout`);
    const results = await tab.evaluate(
      async ({ api, session }) => {
        const read = async (url: string, init?: RequestInit) => {
          try {
            const r = await fetch(url, init);
            return { ok: true, status: r.status, body: await r.json() };
          } catch (e) {
            return { ok: false, error: String(e) };
          }
        };
        return {
          simple: await read(`${api}/external-checkout/sessions/${session}/status`),
          mirror: await read(`${api}/api/v1/external-checkout/sessions/${session}/status`),
          preflighted: await read(`${api}/external-checkout/sessions/${session}/status`, { headers: { 'x-checkout-page': '1' } }),
          withCredentials: await read(`${api}/external-checkout/sessions/${session}/status`, { credentials: 'include' }),
          other: await read(`${api}/external-checkout/sessions/${session}`),
        };
      },
      { api, session },
    );
    expect(results.simple).toMatchObject({ ok: true, status: 200, body: { status: 'redirected' } });
    expect(results.mirror).toMatchObject({ ok: true, status: 200, body: { status: 'redirected' } });
    expect(results.preflighted).toMatchObject({ ok: true, status: 200 });
    // No credentials: a request that sends cookies is refused by the browser (wildcard origin).
    expect(results.withCredentials).toMatchObject({ ok: false });
    expect(results.other).toMatchObject({ ok: false });
    await tab.close();
  });
});
