import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect, runScript, useChildDb, waitForOutput } from './server-helpers.js';

// `npm start` end to end: a real process, a real port, a real signal.
const childDb = useChildDb();

type Started = ReturnType<typeof collect> & { url: string };

let firstStartToken = '';
const embedded = !process.env.DATABASE_URL;

async function start(env: Record<string, string> = {}): Promise<Started> {
  const p = runScript('scripts/start.ts', [], childDb().dir, {
    ...childDb().env,
    PORT: '0',
    HOST: '127.0.0.1',
    NODE_ENV: 'development',
    ...env,
  });
  try {
    const m = await waitForOutput(p, /ready at (http:\/\/\S+)/);
    return Object.assign(p, { url: m[1]! });
  } catch (err) {
    p.child.kill('SIGKILL');
    throw err;
  }
}

async function stop(p: Started) {
  p.child.kill('SIGTERM');
  const r = await p.done;
  expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
}

describe('npm start', () => {
  it('on an empty database: loads the demo, writes var/demo.json, prints how to call it, serves both specs, exits cleanly on SIGTERM', async () => {
    const p = await start();
    try {
      const file = path.join(childDb().dir, 'var/demo.json');
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(statSync(file).mode & 0o077).toBe(0); // secrets: owner only
      // Where this server answers (PORT=0 here): what npm run demo:agent / demo:partner call.
      expect(doc.base_url).toBe(p.url);
      const key = doc.providers.main.api_key;
      expect(p.out.stdout).toContain(`${p.url}/agent/docs`);
      expect(p.out.stdout).toContain(`${p.url}/docs`);
      expect(p.out.stdout).toContain(`Main provider API key ${key}`);
      expect(p.out.stdout).toMatch(/demo dataset loaded in/);
      // Issue 28 §4: never silent: progress lines in order before the banner (migrating, loading the demo with counts, listening).
      const order = [
        /applying migrations \.\.\./,
        /Database ready \(migrated\) after \d+\.\d s/,
        /Loading the demo dataset into the empty database/,
        /Demo dataset loaded in \d+\.\d s: 4 providers, \d+ subscribers, \d+ subscriptions, [\d,]+ invoices, .* \([\d,]+ rows in \d+ tables\)/,
        /Listening on /,
        /netsvc API ready at \S+ \(started in \d+\.\d s\)/,
      ].map((re) => p.out.stdout.search(re));
      expect(
        order.every((at) => at >= 0),
        JSON.stringify(order),
      ).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      expect(p.out.stdout.match(/^ {2}curl -s .*X-API-Key: sk_/gm)).toHaveLength(2);

      const agent = await fetch(`${p.url}/agent/openapi.json`);
      expect(agent.status).toBe(200);
      expect(Object.keys(((await agent.json()) as { paths: object }).paths).every((k) => k.startsWith('/agent/'))).toBe(true);
      expect((await fetch(`${p.url}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${p.url}/agent/docs`)).status).toBeLessThan(400);
      // The demo's checkout links go to the sandbox page: on for the embedded demo database only.
      const sandbox = await fetch(`${p.url}/sandbox/checkout?session_id=00000000-0000-4000-8000-000000000000`);
      if (childDb().env.DATABASE_URL) {
        expect(p.out.stdout).toMatch(/Sandbox checkout page off/);
        expect(sandbox.headers.get('content-type')).toMatch(/^application\/json/);
      } else {
        expect(p.out.stdout).toMatch(/Sandbox checkout page on \(SANDBOX=true/);
        expect(sandbox.headers.get('content-type')).toMatch(/^text\/html/);
      }
      // The seeded accounts are what the server serves.
      const login = await fetch(`${p.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(doc.providers.main.admin),
      });
      expect(login.status).toBe(200);
      const session = (await login.json()) as { role: string; access_token: string };
      expect(session.role).toBe('service_provider');
      firstStartToken = session.access_token;
    } finally {
      await stop(p);
    }
  });

  it('a second start on the same database keeps the loaded demo (same key, nothing reloaded)', async () => {
    const before = readFileSync(path.join(childDb().dir, 'var/demo.json'), 'utf8');
    const p = await start();
    try {
      expect(p.out.stdout).toContain('demo dataset already loaded');
      expect(p.out.stdout).toContain(JSON.parse(before).providers.main.api_key);
      // The same document, at this start's address.
      const after = JSON.parse(readFileSync(path.join(childDb().dir, 'var/demo.json'), 'utf8'));
      expect(after).toEqual({ ...JSON.parse(before), base_url: p.url });
      // The signing key survived the restart (the kept embedded secret, or the same JWT_SECRET).
      const staff = await fetch(`${p.url}/api/v1/provider/users`, { headers: { authorization: `Bearer ${firstStartToken}` } });
      expect(staff.status).toBe(200);
    } finally {
      await stop(p);
    }
  });

  it.skipIf(!embedded)(
    'on the embedded database without JWT_SECRET: signs with one random secret kept next to the database, owner-only',
    () => {
      const file = path.join(path.dirname(childDb().env.EMBEDDED_DB_DIR!), 'jwt-secret');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(Buffer.from(readFileSync(file, 'utf8'), 'base64url')).toHaveLength(32);
    },
  );

  it.each([
    [
      'DATABASE_URL without JWT_SECRET',
      { DATABASE_URL: 'postgres://127.0.0.1:1/never-reached', JWT_SECRET: '' },
      /^invalid configuration: JWT_SECRET: required with DATABASE_URL /,
    ],
    ['a JWT_SECRET under 32 bytes', { JWT_SECRET: 'x'.repeat(31) }, /^invalid configuration: JWT_SECRET: must be at least 32 bytes$/],
  ])('%s: refuses to start with one clear line on stderr and exit code 1', async (_, env, line) => {
    const r = await runScript('scripts/start.ts', [], childDb().dir, { ...childDb().env, ...env }).done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
  });

  it('a wrong configuration value stops it with one clear line on stderr and exit code 1', async () => {
    const r = await runScript('scripts/start.ts', [], childDb().dir, { ...childDb().env, PORT: 'eighty' }).done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^invalid configuration: PORT: /)]);
  });
});
