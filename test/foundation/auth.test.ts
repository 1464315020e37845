import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import { createLinkToken } from '../../src/modules/auth/link-tokens.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('POST /auth/login', () => {
  it('returns a bearer JWT with the role for correct credentials, on both mounts', async () => {
    const u = await createUser(t.db, { password: 'correct horse battery' });
    for (const prefix of ['', '/api/v1']) {
      const r = await t.app.inject({
        method: 'POST',
        url: `${prefix}/auth/login`,
        payload: { email: u.email.toUpperCase(), password: 'correct horse battery' },
      });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      expect(body).toMatchObject({ token_type: 'bearer', role: 'subscriber', expires_in: 3600 });
      expect(body.access_token.split('.')).toHaveLength(3);
      const principal = await t.services.auth.authenticateBearer(`Bearer ${body.access_token}`);
      expect(principal).toMatchObject({ ok: true, principal: { userId: u.id, role: 'subscriber' } });
    }
  });

  it('answers 401 Invalid credentials for a wrong password and for an unknown email alike', async () => {
    const u = await createUser(t.db);
    const wrong = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: 'nope-nope-nope' } });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'nobody@example.test', password: 'whatever1234' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ detail: 'Invalid credentials' });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toEqual({ detail: 'Invalid credentials' });
  });

  it('refuses an account that never chose a password', async () => {
    const u = await createUser(t.db, { password: null });
    const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: 'anything-at-all' } });
    expect(r.statusCode).toBe(401);
  });

  it('answers 422 naming the field for a malformed body', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'not-an-email', password: 'x' } });
    expect(r.statusCode).toBe(422);
    expect(r.json().detail).toMatch(/^email: /);
  });
});

describe('JWT verification', () => {
  it('rejects an expired token, a token signed with another key, and garbage', async () => {
    const u = await createUser(t.db);
    const tok = await t.services.auth.issueJwt({ id: u.id, role: 'subscriber', sp_role: null, provider_id: null });
    t.clock.advance(3601_000);
    expect(await t.services.auth.authenticateBearer(`Bearer ${tok.access_token}`)).toEqual({ ok: false, failure: 'invalid' });
    t.clock.advance(-3601_000);
    const [h, p] = tok.access_token.split('.');
    expect(await t.services.auth.authenticateBearer(`Bearer ${h}.${p}.c2lnbmVkLWJ5LXNvbWVvbmUtZWxzZQ`)).toEqual({
      ok: false,
      failure: 'invalid',
    });
    expect(await t.services.auth.authenticateBearer('Bearer abc')).toEqual({ ok: false, failure: 'invalid' });
    expect(await t.services.auth.authenticateBearer(undefined)).toEqual({ ok: false, failure: 'missing' });
  });
});

describe('API keys', () => {
  it('accepts the key, refuses a wrong secret with the right prefix, and reports a disabled account', async () => {
    const p = await createProvider(t.db);
    const d = await createProvider(t.db, { disabled: true });
    expect(await t.services.auth.authenticateApiKey(p.apiKey)).toMatchObject({ ok: true, principal: { providerId: p.id } });
    const forged = `${p.apiKey.slice(0, 12)}${'x'.repeat(p.apiKey.length - 12)}`;
    expect(await t.services.auth.authenticateApiKey(forged)).toEqual({ ok: false, failure: 'invalid' });
    expect(await t.services.auth.authenticateApiKey(d.apiKey)).toEqual({ ok: false, failure: 'disabled' });
    expect(await t.services.auth.authenticateApiKey('sk_short')).toEqual({ ok: false, failure: 'invalid' });
  });

  it('stores only the prefix and a hash, never the key', async () => {
    const p = await createProvider(t.db);
    const row = await t.db.selectFrom('api_keys').selectAll().where('provider_id', '=', p.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(p.apiKey.slice(12));
    expect(row.prefix).toBe(p.keyPrefix);
  });

  it('checks the webhook secret in constant time against its hash', async () => {
    const p = await createProvider(t.db);
    expect(await t.services.auth.authenticateWebhookSecret(p.webhookSecret)).toMatchObject({ ok: true, principal: { providerId: p.id } });
    expect(await t.services.auth.authenticateWebhookSecret(`${p.webhookSecret}x`)).toEqual({ ok: false, failure: 'invalid' });
  });
});

describe('POST /auth/set-password', () => {
  it('sets the password once with a valid link token, then the token is spent', async () => {
    const u = await createUser(t.db, { password: null });
    const { token } = await createLinkToken(t.db, t.clock, { purpose: 'activation', userId: u.id });
    const r = await t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'a-new-password-1' } });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ success: true });
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: u.email, password: 'a-new-password-1' } });
    expect(login.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'another-password' } });
    expect(again.statusCode).toBe(400);
    const row = await t.db.selectFrom('users').select('password_set_at').where('id', '=', u.id).executeTakeFirstOrThrow();
    expect(row.password_set_at).not.toBeNull();
  });

  it('refuses a reset token after its 15 minutes', async () => {
    const u = await createUser(t.db);
    const { token } = await createLinkToken(t.db, t.clock, { purpose: 'password_reset', userId: u.id });
    t.clock.advance(15 * 60_000 + 1000);
    const r = await t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'a-new-password-1' } });
    t.clock.advance(-(15 * 60_000 + 1000));
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({ detail: 'This link is invalid, already used, or expired' });
  });
});
