// Issue 30 §3: TRUST_PROXY names the proxies (addresses, CIDRs) or a hop count and never believes
// every X-Forwarded-For hop: a value a client writes before the real one buys no fresh per-IP budget.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { trustProxyOption } from '../../src/lib/trust-proxy.js';
import { RATE_LIMITS } from '../../src/plugins/rate-limit.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { productionEnv } from '../helpers/production.js';
import { overrideRateLimits } from '../helpers/rate-limits.js';

// A small login budget: every login runs a password hash. The rule is the same at the real 20 a minute.
overrideRateLimits({ 'auth.login': 4 });
const LOGIN_LIMIT = RATE_LIMITS['auth.login'];
const appWith = (trustProxy: string) =>
  buildTestApp({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STORE: 'memory', TRUST_PROXY: trustProxy } });

/** The client address Fastify derives under a TRUST_PROXY value (as app.ts configures it). */
async function clientIpUnder(trustProxy: string, remoteAddress: string, forwardedFor: string) {
  const app = Fastify({ trustProxy: trustProxyOption(loadConfig({ TRUST_PROXY: trustProxy }).TRUST_PROXY) });
  app.get('/ip', async (request) => ({ ip: request.ip }));
  try {
    const r = await app.inject({ method: 'GET', url: '/ip', remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });
    return r.json().ip as string;
  } finally {
    await app.close();
  }
}

// Another unknown email each time, so the account lockout never answers before the per-IP limit.
let n = 0;
const login = (t: TestApp, remoteAddress: string, forwardedFor?: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/login',
    remoteAddress,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    payload: { email: `proxy-${++n}@example.test`, password: 'irrelevant' },
  });

/** The statuses of `count` logins, each with a fresh made-up first hop before `realChain`. */
async function spoofedLogins(t: TestApp, remoteAddress: string, realChain: string, count = LOGIN_LIMIT + 5) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await login(t, remoteAddress, `198.18.${i}.${i + 1}, ${realChain}`)).statusCode);
  return statuses;
}
const spentAfterLimit = [...Array(LOGIN_LIMIT).fill(401), ...Array(5).fill(429)];

describe('TRUST_PROXY: the per-IP login budget behind a proxy', () => {
  let listed: TestApp;
  let trueOutsideProduction: TestApp;
  beforeAll(async () => {
    listed = await appWith('203.0.113.10');
    trueOutsideProduction = await appWith('true');
  });
  afterAll(() => Promise.all([listed?.close(), trueOutsideProduction?.close()]));

  it("the proxy's address: a client-supplied X-Forwarded-For value before the real one buys no fresh budget (the reported 25 of 25 past the limit: here every login past it is refused); a direct client is counted by its own address", async () => {
    expect(await spoofedLogins(listed, '203.0.113.10', '192.0.2.77')).toEqual(spentAfterLimit);
    // The real client behind the proxy is what was counted: another client through the same proxy has its own budget.
    expect((await login(listed, '203.0.113.10', '192.0.2.78')).statusCode).toBe(401);

    // A client reaching the server directly (not from the listed proxy) is counted by its own address, whatever it forwards.
    const direct: number[] = [];
    for (let i = 0; i < LOGIN_LIMIT + 1; i++) direct.push((await login(listed, '192.0.2.99', `198.18.0.${i + 1}`)).statusCode);
    expect(direct).toEqual([...Array(LOGIN_LIMIT).fill(401), 429]);
  });

  it('true outside production is one hop, never every hop (it gave 25 of 25 logins past the limit)', async () => {
    expect(await spoofedLogins(trueOutsideProduction, '127.0.0.1', '192.0.2.55')).toEqual(spentAfterLimit);
  });
});

describe('TRUST_PROXY: which address is the client', () => {
  it('a CIDR list: each trusted hop is skipped, the first untrusted one from the right is the client', async () => {
    expect(await clientIpUnder('10.0.0.0/8, ::1', '10.0.0.1', '198.18.0.1, 192.0.2.88, 10.0.0.2')).toBe('192.0.2.88');
    expect(await clientIpUnder('loopback', '127.0.0.1', '198.18.0.1, 192.0.2.89')).toBe('192.0.2.89');
  });

  it('a hop count: the N nearest hops are proxies, anything a client wrote before them is ignored', async () => {
    expect(await clientIpUnder('2', '10.0.0.1', '198.18.0.1, 192.0.2.66, 10.0.0.2')).toBe('192.0.2.66');
    expect(await clientIpUnder('1', '10.0.0.1', '198.18.0.1, 192.0.2.67')).toBe('192.0.2.67');
  });

  it('false: the socket address, X-Forwarded-For ignored; a client not from a listed proxy is its own address', async () => {
    expect(await clientIpUnder('false', '192.0.2.70', '198.18.0.1')).toBe('192.0.2.70');
    expect(await clientIpUnder('203.0.113.10', '192.0.2.71', '198.18.0.1')).toBe('192.0.2.71');
  });

  it('production refuses true with a line that says what to set instead', () => {
    expect(() => loadConfig(productionEnv({ TRUST_PROXY: 'true' }))).toThrow(
      /^invalid configuration: TRUST_PROXY: true would believe whatever a client writes first in X-Forwarded-For; set the proxies' addresses or CIDRs[^\n]*$/,
    );
    expect(loadConfig(productionEnv({ TRUST_PROXY: '10.0.0.0/8' })).TRUST_PROXY).toEqual(['10.0.0.0/8']);
  });

  it('parses false, hop counts, addresses, CIDRs and range names; refuses anything else with one line', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8,loopback' }).TRUST_PROXY).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1,', '11', '::1/129', '10.0.0.0/8/1']) {
      let err: unknown;
      try {
        loadConfig({ TRUST_PROXY: bad });
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^invalid configuration: TRUST_PROXY: /);
      expect((err as Error).message).not.toContain('\n');
    }
  });
});
