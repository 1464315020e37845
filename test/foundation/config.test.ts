import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { demoStartEnv } from '../../src/demo/start-env.js';
import { productionEnv } from '../helpers/production.js';

describe('loadConfig', () => {
  it('works with an empty environment: embedded database, port 3000, derived public base URL', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      HOST: '127.0.0.1',
      EMBEDDED_DB_DIR: 'var/db',
      DEMO_SEED: true,
      RATE_LIMIT_STORE: 'memory',
      WEBHOOK_UNRESPONSIVE_CONCURRENCY: 8,
    });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:3000');
    expect(c.jwtSecret.length).toBeGreaterThanOrEqual(32);
  });

  it('the sandbox checkout page is off unless SANDBOX=true', () => {
    expect(loadConfig({}).SANDBOX).toBe(false);
    expect(loadConfig(productionEnv()).SANDBOX).toBe(false);
    expect(loadConfig({ SANDBOX: 'true' }).SANDBOX).toBe(true);
  });

  it('parses numbers and booleans, treats empty strings as unset, and strips a trailing slash of PUBLIC_BASE_URL', () => {
    const c = loadConfig({
      PORT: '8080',
      JOBS_ENABLED: 'no',
      DEMO_SEED: '0',
      RATE_LIMIT_ENABLED: 'yes',
      DATABASE_URL: '',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(c).toMatchObject({ PORT: 8080, JOBS_ENABLED: false, DEMO_SEED: false, RATE_LIMIT_ENABLED: true });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.publicBaseUrl).toBe('https://api.example.com');
  });

  it.each([
    [{ PORT: 'eighty' }, /^invalid configuration: PORT: /],
    [{ DATABASE_URL: 'mysql://x' }, /^invalid configuration: DATABASE_URL: must be a postgres:\/\/ URL$/],
    [{ RATE_LIMIT_STORE: 'memcached' }, /^invalid configuration: RATE_LIMIT_STORE: /],
    [{ RATE_LIMIT_STORE: 'redis' }, /^invalid configuration: REDIS_URL: required when RATE_LIMIT_STORE=redis /],
    [
      { RATE_LIMIT_STORE: 'redis', REDIS_URL: 'http://127.0.0.1:6379' },
      /^invalid configuration: REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL$/,
    ],
    [{ JWT_SECRET: 'short' }, /^invalid configuration: JWT_SECRET: must be at least 32 bytes$/],
    [{ JWT_SECRET: 'x'.repeat(31) }, /^invalid configuration: JWT_SECRET: must be at least 32 bytes$/],
    [{ DEMO_SEED: 'maybe' }, /^invalid configuration: DEMO_SEED: /],
    [{ DEMO_WEBHOOK_URL: 'not a url' }, /^invalid configuration: DEMO_WEBHOOK_URL: /],
    [{ WEBHOOK_UNRESPONSIVE_CONCURRENCY: '0' }, /^invalid configuration: WEBHOOK_UNRESPONSIVE_CONCURRENCY: /],
    [{ WEBHOOK_UNRESPONSIVE_CONCURRENCY: '65' }, /^invalid configuration: WEBHOOK_UNRESPONSIVE_CONCURRENCY: /],
    [productionEnv({ JWT_SECRET: '' }), /^invalid configuration: JWT_SECRET: required when NODE_ENV=production$/],
    [productionEnv({ SANDBOX: 'true' }), /^invalid configuration: SANDBOX: must not be true when NODE_ENV=production$/],
  ])('a wrong value (%o) throws ConfigError with one line naming the variable', (env, message) => {
    let err: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it('names every wrong variable in the same line', () => {
    expect(() => loadConfig({ PORT: '-1', LOG_LEVEL: 'loud' })).toThrow(/PORT: .*; LOG_LEVEL: /);
  });
});

describe('the agent search time bound', () => {
  it('defaults to 80 ms on PostgreSQL and 2 s on the embedded database (which cannot interrupt a statement); a set value wins', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://db.example:5432/app' }).SEARCH_TIMEOUT_MS).toBe(80);
    expect(loadConfig({}).SEARCH_TIMEOUT_MS).toBe(2000);
    expect(loadConfig({ SEARCH_TIMEOUT_MS: '' }).SEARCH_TIMEOUT_MS).toBe(2000);
    expect(loadConfig({ SEARCH_TIMEOUT_MS: '150', DATABASE_URL: 'postgres://db.example:5432/app' }).SEARCH_TIMEOUT_MS).toBe(150);
    expect(() => loadConfig({ SEARCH_TIMEOUT_MS: '0' })).toThrow(/^invalid configuration: SEARCH_TIMEOUT_MS: /);
  });
});

describe('the JWT signing secret (decisions.md, Safety: JWT)', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'netsvc-secret-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('JWT_SECRET is taken as given when it holds at least 32 bytes (bytes, not characters)', () => {
    expect(loadConfig({ JWT_SECRET: 'é'.repeat(16) }).jwtSecret).toBe('é'.repeat(16));
    expect(loadConfig({ JWT_SECRET: 's'.repeat(32), DATABASE_URL: 'postgres://db.example:5432/app' }).jwtSecret).toBe('s'.repeat(32));
  });

  it('with DATABASE_URL and no JWT_SECRET: tools that sign nothing still load, the secret itself is refused with one line', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://db.example:5432/app' });
    expect(c.DATABASE_URL).toBe('postgres://db.example:5432/app');
    expect(() => c.jwtSecret).toThrow(ConfigError);
    expect(() => c.jwtSecret).toThrow(/^invalid configuration: JWT_SECRET: required with DATABASE_URL \(at least 32 random bytes[^\n]*$/);
  });

  it('on the embedded database without JWT_SECRET: one random secret is generated next to the database folder, owner-only, and reused', () => {
    const dir = scratch();
    const first = loadConfig({ EMBEDDED_DB_DIR: path.join(dir, 'db') }).jwtSecret;
    const file = path.join(dir, 'jwt-secret');
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(Buffer.from(first, 'base64url')).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadConfig({ EMBEDDED_DB_DIR: path.join(dir, 'db') }).jwtSecret).toBe(first);
    // Another database folder, another random secret: nothing about it is derived.
    expect(loadConfig({ EMBEDDED_DB_DIR: path.join(scratch(), 'db') }).jwtSecret).not.toBe(first);
    const a = loadConfig({ EMBEDDED_DB_DIR: 'memory://' }).jwtSecret;
    expect(a).not.toBe(loadConfig({ EMBEDDED_DB_DIR: 'memory://' }).jwtSecret);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
  });

  it('a kept secret file that others may read is narrowed to the owner; a truncated one is refused with one line', () => {
    const dir = scratch();
    writeFileSync(path.join(dir, 'jwt-secret'), 'k'.repeat(40), { mode: 0o644 });
    expect(loadConfig({ EMBEDDED_DB_DIR: path.join(dir, 'db') }).jwtSecret).toBe('k'.repeat(40));
    expect(statSync(path.join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    const bad = scratch();
    writeFileSync(path.join(bad, 'jwt-secret'), 'short', { mode: 0o600 });
    expect(() => loadConfig({ EMBEDDED_DB_DIR: path.join(bad, 'db') }).jwtSecret).toThrow(
      /^invalid configuration: JWT_SECRET: .*jwt-secret holds fewer than 32 bytes/,
    );
  });
});

describe('npm start', () => {
  it('turns the sandbox checkout page on only for the embedded demo database outside production, and never overrides SANDBOX', () => {
    expect(demoStartEnv({}).env.SANDBOX).toBe('true');
    expect(demoStartEnv({ NODE_ENV: 'production' }).env.SANDBOX).toBeUndefined();
    expect(demoStartEnv({ DATABASE_URL: 'postgres://x/y' }).env.SANDBOX).toBeUndefined();
    expect(demoStartEnv({ SANDBOX: 'false' }).env.SANDBOX).toBe('false');
    expect(() => loadConfig(demoStartEnv(productionEnv()).env)).not.toThrow();
  });
});

describe('documentation of the configuration', () => {
  // Every variable the schema reads, taken from the source so a new one cannot be forgotten.
  const variables = [...readFileSync('src/config.ts', 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((m) => m[1]);

  it('finds the variables of src/config.ts', () => {
    expect(variables).toEqual(expect.arrayContaining(['DATABASE_URL', 'PORT', 'DEMO_SEED', 'RATE_LIMIT_STORE']));
    expect(
      Object.keys(loadConfig({}))
        .filter((k) => /^[A-Z]/.test(k))
        .every((k) => variables.includes(k)),
    ).toBe(true);
  });

  it("no JWT signing key is written in the deployment files: compose requires the environment's, .env.example leaves it empty", () => {
    const compose = readFileSync('docker-compose.yml', 'utf8');
    expect([...compose.matchAll(/^\s*JWT_SECRET:\s*(.*)$/gm)].map((m) => m[1])).toEqual([
      expect.stringMatching(/^\$\{JWT_SECRET:\?set JWT_SECRET[^}]*\}$/),
    ]);
    expect(readFileSync('.env.example', 'utf8')).toMatch(/^JWT_SECRET=$/m);
  });

  it('docs/configuration.md has a configuration table row and .env.example an entry for every variable', () => {
    const readme = readFileSync('docs/configuration.md', 'utf8');
    const example = readFileSync('.env.example', 'utf8');
    expect(variables.filter((v) => !readme.includes(`| \`${v}\` |`))).toEqual([]);
    expect(variables.filter((v) => !new RegExp(`^${v}=`, 'm').test(example))).toEqual([]);
  });
});
