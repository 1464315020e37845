import * as argon2 from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.js';

// Pass-through spy: counts the hash checks without changing them.
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...actual, verify: vi.fn(actual.verify) };
});

// The suite shares modules between files (vitest.config.ts, isolate: false): an earlier file may
// have loaded the server with the real argon2, so the server's modules are loaded afresh here.
vi.resetModules();
const { createLinkToken } = await import('../../src/modules/auth/link-tokens.js');
const { createCredentialGuard, slowdownMs, subjects } = await import('../../src/modules/auth/credential-guard.js');
const { buildTestApp } = await import('../helpers/app.js');
const { createUser } = await import('../helpers/factories.js');

const MIN = 60_000;
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const login = (email: string, password: string, ip: string) =>
  t.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password }, remoteAddress: ip });
const failuresOf = async (subject: string) =>
  (await t.db.selectFrom('credential_failures').select('id').where('subject', '=', subject).execute()).length;
/** `n` wrong passwords from one client address. */
async function fail(email: string, ip: string, n = 10) {
  for (let i = 0; i < n; i++) expect((await login(email, `wrong-${i}`, ip)).statusCode).toBe(401);
}
const argonParams = (hash: string) => hash.split('$').slice(1, 4).join('$');
const LOCKED = { detail: 'Too many failed logins for this account from this network; retry in 15 minutes' };

describe('login lockout: per account and client network', () => {
  it('10 failed logins of one account from one network lock its logins from that network for 15 minutes: the right password there answers 429 {detail} with Retry-After, then works after 15 minutes', async () => {
    const u = await createUser(t.db);
    await fail(u.email, '10.0.0.1');
    expect(await failuresOf(subjects.account(u.id))).toBe(10);

    const locked = await login(u.email, u.password!, '10.0.0.1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toEqual(LOCKED);
    expect(locked.headers['retry-after']).toBe('900');
    expect(await failuresOf(subjects.account(u.id))).toBe(10); // a refused attempt is not a failure

    t.clock.advance(15 * MIN - 1000);
    const stillLocked = await login(u.email, u.password!, '10.0.0.1');
    expect(stillLocked.statusCode).toBe(429);
    expect(stillLocked.headers['retry-after']).toBe('1');

    t.clock.advance(1000);
    const ok = await login(u.email, u.password!, '10.0.0.1');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().access_token).toEqual(expect.any(String));
  });

  it('an attacker on one network cannot lock the platform admin out from another network', async () => {
    const admin = await createUser(t.db, { role: 'platform_admin' });
    await fail(admin.email, '203.0.113.66');
    expect((await login(admin.email, 'still guessing', '203.0.113.66')).statusCode).toBe(429);
    expect((await login(admin.email, admin.password!, '203.0.113.66')).statusCode).toBe(429);

    const fromOffice = await login(admin.email, admin.password!, '198.51.100.20');
    expect(fromOffice.statusCode).toBe(200);
    expect(fromOffice.json().role).toBe('platform_admin');
    // 10 failures spread over 10 networks lock none of them.
    const u = await createUser(t.db);
    for (let i = 0; i < 10; i++) expect((await login(u.email, 'wrong', `10.9.${i}.1`)).statusCode).toBe(401);
    expect((await login(u.email, u.password!, '10.9.0.1')).statusCode).toBe(200);
    t.clock.advance(15 * MIN);
  });

  it('an IPv6 client network is its /64: failures from fresh addresses of one /64 lock it, another /64 is not locked', async () => {
    const u = await createUser(t.db);
    for (let i = 1; i <= 10; i++) expect((await login(u.email, 'wrong', `2001:db8:5:5::${i.toString(16)}`)).statusCode).toBe(401);
    expect((await login(u.email, u.password!, '2001:db8:5:5:ffff::1')).statusCode).toBe(429);
    expect((await login(u.email, u.password!, '2001:db8:5:6::1')).statusCode).toBe(200);
    t.clock.advance(15 * MIN);
  });

  it('failures older than 15 minutes no longer count: 9 failures, 15 minutes later one more does not lock', async () => {
    const u = await createUser(t.db);
    await fail(u.email, '10.1.0.1', 9);
    t.clock.advance(15 * MIN);
    expect((await login(u.email, 'wrong', '10.1.0.1')).statusCode).toBe(401);
    expect((await login(u.email, u.password!, '10.1.0.1')).statusCode).toBe(200);
  });

  it('a successful login does not clear earlier failures: 9 failures, a success and 1 more failure lock the account from that network', async () => {
    const u = await createUser(t.db);
    await fail(u.email, '10.2.0.1', 9);
    expect((await login(u.email, u.password!, '10.2.0.1')).statusCode).toBe(200);
    expect(await failuresOf(subjects.account(u.id))).toBe(9);
    expect((await login(u.email, 'wrong', '10.2.0.1')).statusCode).toBe(401);
    expect((await login(u.email, u.password!, '10.2.0.1')).statusCode).toBe(429);
    t.clock.advance(15 * MIN);
  });

  it('an unknown email locks exactly like an account, so a lock does not tell which accounts exist', async () => {
    const email = 'nobody-here@example.test';
    await fail(email, '192.0.2.10');
    const r = await login(email.toUpperCase(), 'anything', '192.0.2.10');
    expect(r.statusCode).toBe(429);
    expect(r.json()).toEqual(LOCKED);
    expect(r.headers['retry-after']).toBe('900');
    expect((await login(email, 'anything', '192.0.2.11')).statusCode).toBe(401);
    t.clock.advance(15 * MIN);
  });

  it('concurrent wrong guesses cannot slip past the count: of 16 at once from one network, 10 are checked (401) and 6 refused (429)', async () => {
    const u = await createUser(t.db);
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => login(u.email, `wrong-${i}`, '10.3.0.1')));
    expect(results.map((r) => r.statusCode).sort()).toEqual([...Array(10).fill(401), ...Array(6).fill(429)]);
    expect(await failuresOf(subjects.account(u.id))).toBe(10);
    t.clock.advance(15 * MIN);
  });
});

describe('login slowdown: past 50 failures of one account within an hour, from any networks', () => {
  it('the delay is nothing up to 50 failures, then 200 ms a failure past 50, at most 10 s', () => {
    expect([0, 50, 51, 52, 60, 99, 100, 101, 5000].map(slowdownMs)).toEqual([0, 0, 200, 400, 2000, 9800, 10_000, 10_000, 10_000]);
  });

  it('every further attempt of the account waits the growing delay (the right password from a network that never failed too) and is not refused; after an hour the failures no longer count', async () => {
    const u = await createUser(t.db);
    const waits: number[] = [];
    const guard = createCredentialGuard({ db: t.db, clock: t.clock, pause: async (ms) => void waits.push(ms) });
    const attempt = (ip: string) => guard.begin(subjects.account(u.id), ip, 'locked');
    // 54 failures from six networks, 9 each: no network is locked.
    for (let n = 0; n < 6; n++) for (let i = 0; i < 9; i++) await attempt(`100.64.${n}.1`);
    expect(await failuresOf(subjects.account(u.id))).toBe(54);
    expect(waits).toEqual([200, 400, 600]); // the 52nd, 53rd and 54th attempts waited

    waits.length = 0;
    const owner = await attempt('192.0.2.200');
    expect(waits).toEqual([800]);
    await owner.succeeded();
    expect(await failuresOf(subjects.account(u.id))).toBe(54);

    t.clock.advance(60 * MIN);
    waits.length = 0;
    await (await attempt('192.0.2.200')).succeeded();
    expect(waits).toEqual([]);
  });

  it('through POST /auth/login: after 51 failures over six networks the right password from a network that has not failed answers 200', async () => {
    const u = await createUser(t.db);
    for (let n = 0; n < 6; n++) await fail(u.email, `100.65.${n}.1`, n < 5 ? 9 : 6);
    expect(await failuresOf(subjects.account(u.id))).toBe(51);
    const ok = await login(u.email, u.password!, '192.0.2.201');
    expect(ok.statusCode).toBe(200);
    expect(ok.json().access_token).toEqual(expect.any(String));
    t.clock.advance(60 * MIN);
  });
});

describe('login timing: an unknown email costs one hash check like a wrong password', () => {
  it('a wrong password, an unknown email and an account without a password each run exactly one argon2 check with the same parameters', async () => {
    const u = await createUser(t.db);
    const stored = (await t.db.selectFrom('users').select('password_hash').where('id', '=', u.id).executeTakeFirstOrThrow()).password_hash!;
    const noPassword = await createUser(t.db, { password: null });
    const verify = vi.mocked(argon2.verify);
    const hashesChecked = async (email: string) => {
      verify.mockClear();
      expect((await login(email, 'not-the-password', '10.4.0.1')).statusCode).toBe(401);
      return verify.mock.calls.map((c) => String(c[0]));
    };
    const wrong = await hashesChecked(u.email);
    const unknown = await hashesChecked('no-such-account@example.test');
    const unset = await hashesChecked(noPassword.email);
    expect(wrong).toEqual([stored]);
    expect(unknown).toHaveLength(1);
    expect(unset).toEqual(unknown); // the one dummy hash, made once
    expect(unknown[0]).not.toBe(stored);
    expect(argonParams(unknown[0]!)).toBe(argonParams(stored));
    expect(argonParams(stored)).toMatch(/^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
  });
});

describe("PATCH /subscriber/me/password shares the account's count", () => {
  it('wrong current passwords and failed logins from one network count together: 5 + 5 lock both from that network, and the right current password there then answers 429 without changing anything', async () => {
    const u = await createUser(t.db);
    const jwt = (await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null })).access_token;
    const change = (current: string, ip: string) =>
      t.app.inject({
        method: 'PATCH',
        url: '/subscriber/me/password',
        remoteAddress: ip,
        headers: { authorization: `Bearer ${jwt}` },
        payload: { current_password: current, new_password: 'a brand new password' },
      });
    const before = await t.db.selectFrom('users').select('password_hash').where('id', '=', u.id).executeTakeFirstOrThrow();
    for (let i = 0; i < 5; i++) expect((await login(u.email, 'wrong', '10.5.0.1')).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) {
      const r = await change('wrong', '10.5.0.1');
      expect(r.statusCode).toBe(400);
      expect(r.json()).toEqual({ detail: 'Current password is incorrect' });
    }
    const locked = await change(u.password!, '10.5.0.1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toEqual({ detail: 'Too many wrong passwords for this account from this network; retry in 15 minutes' });
    expect(locked.headers['retry-after']).toBe('900');
    expect((await login(u.email, u.password!, '10.5.0.1')).statusCode).toBe(429);
    // From another network the account is not locked.
    expect((await login(u.email, u.password!, '10.8.0.1')).statusCode).toBe(200);
    const after = await t.db.selectFrom('users').select('password_hash').where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(after.password_hash).toBe(before.password_hash);

    t.clock.advance(15 * MIN);
    expect((await change(u.password!, '10.5.0.1')).statusCode).toBe(200);
    expect((await login(u.email, 'a brand new password', '10.7.0.2')).statusCode).toBe(200);
  });
});

describe('POST /auth/set-password token guesses', () => {
  it('10 unusable tokens from one client network lock that network out for 15 minutes (429 even with a valid token, which stays unused); another IP is not locked', async () => {
    const u = await createUser(t.db, { password: null });
    const { token } = await createLinkToken(t.db, t.clock, { purpose: 'activation', userId: u.id });
    const setPassword = (tok: string, ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/auth/set-password',
        payload: { token: tok, password: 'a long enough password' },
        remoteAddress: ip,
      });
    const ip = '198.51.100.4';
    for (let i = 0; i < 10; i++) {
      const r = await setPassword(`guessed-token-${i}-${'x'.repeat(30)}`, ip);
      expect(r.statusCode).toBe(400);
    }
    expect(await failuresOf(subjects.tokenGuesses(ip))).toBe(10);
    const locked = await setPassword(token, ip);
    expect(locked.statusCode).toBe(429);
    expect(locked.json()).toEqual({ detail: 'Too many invalid links from this address; retry in 15 minutes' });
    expect(locked.headers['retry-after']).toBe('900');
    const row = await t.db.selectFrom('link_tokens').select('used_at').where('user_id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();

    const elsewhere = await setPassword(token, '198.51.100.5');
    expect(elsewhere.statusCode).toBe(200);
    expect(await failuresOf(subjects.tokenGuesses('198.51.100.5'))).toBe(0);
    t.clock.advance(15 * MIN);
    expect((await setPassword(`guessed-token-x-${'x'.repeat(30)}`, ip)).statusCode).toBe(400);
  });
});
