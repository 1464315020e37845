import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_BASE_URL, demoBaseUrl } from '../../scripts/demo-target.js';
import { freePort } from '../helpers/processes.js';
import { killChildren, runScript } from './server-helpers.js';

// The demo scripts against a stand-in server: they must call the address the demo document names.
vi.setConfig({ testTimeout: 120_000 });

describe('where the demo scripts call', () => {
  it("BASE_URL when set, else the document's base_url (what npm start wrote), else the default port", () => {
    expect(demoBaseUrl({ BASE_URL: 'http://h:1/' }, { base_url: 'http://doc:2' })).toBe('http://h:1');
    expect(demoBaseUrl({}, { base_url: 'http://127.0.0.1:40123/' })).toBe('http://127.0.0.1:40123');
    expect(demoBaseUrl({ BASE_URL: '' }, {})).toBe(DEFAULT_BASE_URL);
  });
});

describe('npm run demo:agent and demo:partner read base_url from the demo document', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netsvc-demo-scripts-'));
  const seen: { method: string; url: string; apiKey?: string }[] = [];
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    // Answers every request 503: the script stops at its first call, after making it.
    server = createServer((req: IncomingMessage, res) => {
      seen.push({ method: req.method!, url: req.url!, apiKey: req.headers['x-api-key'] as string | undefined });
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"detail":"stand-in"}');
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    killChildren();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const writeDoc = (name: string, doc: object) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(doc));
    return file;
  };
  // BASE_URL of the parent (if any) must not decide where the child calls.
  const env = (extra: Record<string, string>) => ({ BASE_URL: '', ...extra });

  it("demo:agent calls the document's base_url with the document's key", async () => {
    const file = writeDoc('agent.json', {
      base_url: baseUrl,
      providers: { main: { api_key: 'sk_standin_key' } },
      customers: {
        ambiguous: [
          { id: 'a', name: 'Anna Schmidt', email: 'a@example.test', subscription_id: 's' },
          { id: 'b', name: 'Anna Schmidt', email: 'b@example.test', subscription_id: 't' },
        ],
      },
    });
    seen.length = 0;
    const r = await runScript('scripts/demo-agent.ts', [], dir, env({ DEMO_JSON: file })).done;
    expect(r.stdout).toContain(`Support agent demo against ${baseUrl}`);
    expect(r.code).toBe(1);
    expect(seen[0]).toEqual({ method: 'GET', url: '/agent/customers/search?q=Anna%20Schmidt', apiKey: 'sk_standin_key' });
  });

  it("demo:partner calls the document's base_url", async () => {
    const receiverPort = await freePort();
    const file = writeDoc('partner.json', {
      base_url: baseUrl,
      webhook_url: `http://127.0.0.1:${receiverPort}/webhooks`,
      providers: {
        main: {
          id: 'p',
          api_key: 'sk_standin_key',
          webhook_secret: 'whs',
          webhook_signing_secret: `whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`,
        },
      },
      plans: { basic: { plan_version_id: 'b' }, fast: { plan_version_id: 'f' } },
      buildings: {
        first_line: { id: 'bl', address: 'A', location_hash: 'h', spare_location_hashes: ['h1', 'h2'] },
        second_line: { id: 'b2', free_unit_id: 'u' },
      },
    });
    seen.length = 0;
    const r = await runScript('scripts/demo-partner.ts', [], dir, env({ DEMO_JSON: file, DEMO_RECEIVER_PORT: String(receiverPort) })).done;
    expect(r.stdout).toContain(`Partner demo against ${baseUrl}`);
    expect(r.code).toBe(1);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('without a document both stop with exit code 2 and a line saying how to get one', async () => {
    for (const script of ['scripts/demo-agent.ts', 'scripts/demo-partner.ts']) {
      const r = await runScript(script, [], dir, env({ DEMO_JSON: path.join(dir, 'missing.json') })).done;
      expect(r.code, script).toBe(2);
      expect(r.stderr, script).toMatch(/cannot read .*missing\.json \(ENOENT\): start the server once \(npm start\)/);
    }
  });
});
