// Issue 28 §4: the partner explorer lists real server addresses (not {base_url} / {api_v1_base}), the
// landing page names the MCP endpoint, and the explorers tell a reader where the demo's mails are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.test/netsvc' } });
});
afterAll(() => t.close());

const doc = async (url: string) => (await t.app.inject({ method: 'GET', url })).json();

describe('the explorers', () => {
  it('the partner document lists the base and /api/v1 as absolute addresses of this server, no placeholder', async () => {
    const d = await doc('/openapi.json');
    expect(d.servers.map((s: { url: string }) => s.url)).toEqual([
      'https://api.example.test/netsvc',
      'https://api.example.test/netsvc/api/v1',
    ]);
    for (const s of d.servers as { url: string; description: string }[]) expect(`${s.url} ${s.description}`).not.toMatch(/[{}]/);
    const internal = Object.values<Record<string, { servers?: { url: string }[] }>>(d.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => op.servers ?? []);
    expect(internal.length).toBeGreaterThan(0);
    for (const s of internal) expect(s.url).toBe('https://api.example.test/netsvc');
  });

  it('the agent document lists this server too', async () => {
    const d = await doc('/agent/openapi.json');
    expect(d.servers.map((s: { url: string }) => s.url)).toEqual(['https://api.example.test/netsvc']);
  });

  it('both documents say where the mails are: the outbox folder and demo:verify while SMTP_URL is unset', async () => {
    for (const url of ['/openapi.json', '/agent/openapi.json']) {
      const text = (await doc(url)).info.description as string;
      expect(text, url).toContain(t.config.MAIL_OUTBOX_DIR);
      expect(text, url).toContain('demo:verify');
    }
  });

  it('with SMTP_URL set they say the mails go out by SMTP', async () => {
    const smtp = await buildTestApp({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
    try {
      const text = (await smtp.app.inject({ url: '/openapi.json' })).json().info.description as string;
      expect(text).toContain('SMTP server');
      expect(text).not.toContain('demo:verify');
    } finally {
      await smtp.close();
    }
  });

  it('the landing page names the MCP endpoint and where the mails are', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('MCP endpoint: <code>POST /agent/mcp</code>');
    expect(page.body).toContain('var/outbox');
  });
});
