// decisions.md, Safety, JWT: a password change, a disabled account or a changed role revokes the
// tokens issued before it. The database bumps users.token_version on exactly those changes (trigger
// users_revoke_tokens), whichever code makes them; the HTTP refusals on every route are in
// test/reliability/authorization-matrix.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import type { Updateable } from 'kysely';
import type { Users } from '../../src/db/types.js';
import { hashPassword } from '../../src/lib/crypto.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const version = async (id: string) =>
  (await t.db.selectFrom('users').select('token_version').where('id', '=', id).executeTakeFirstOrThrow()).token_version;

describe('users.token_version', () => {
  it('is bumped by a password, role, sp_role, provider or disabled change, and by nothing else', async () => {
    const p = await createProvider(t.db);
    const u = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: p.id });
    expect(await version(u.id)).toBe(0);
    const set = async (values: Updateable<Users>) => {
      await t.db.updateTable('users').set(values).where('id', '=', u.id).execute();
      return version(u.id);
    };
    expect(await set({ first_name: 'Renamed', last_name: 'Person', email: `renamed-${u.id}@example.test` })).toBe(0);
    expect(await set({ sp_role: 'support' })).toBe(0); // the same value is no change
    expect(await set({ password_hash: await hashPassword('a-new-password-1') })).toBe(1);
    expect(await set({ sp_role: 'sales' })).toBe(2);
    expect(await set({ provider_id: (await createProvider(t.db)).id })).toBe(3);
    expect(await set({ role: 'platform_admin', sp_role: null, provider_id: null })).toBe(4);
    expect(await set({ disabled: true })).toBe(5);
    expect(await set({ disabled: false })).toBe(6);
  });
});

describe('authenticateBearer', () => {
  it('takes the role and provider from the user row, and refuses the token once the row moved on', async () => {
    const p = await createProvider(t.db);
    const u = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    const row = await t.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    const { access_token } = await t.services.auth.issueJwt(row);
    expect(await t.services.auth.authenticateBearer(`Bearer ${access_token}`)).toEqual({
      ok: true,
      principal: { userId: u.id, role: 'service_provider', spRole: 'sp_admin', providerId: p.id },
    });
    await t.db.updateTable('users').set({ sp_role: 'bookkeeping' }).where('id', '=', u.id).execute();
    expect(await t.services.auth.authenticateBearer(`Bearer ${access_token}`)).toEqual({ ok: false, failure: 'invalid' });
  });

  it('a token issued for a disabled row is refused as disabled', async () => {
    const u = await createUser(t.db);
    await t.db.updateTable('users').set({ disabled: true }).where('id', '=', u.id).execute();
    const row = await t.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    const { access_token } = await t.services.auth.issueJwt(row);
    expect(await t.services.auth.authenticateBearer(`Bearer ${access_token}`)).toEqual({ ok: false, failure: 'disabled' });
  });

  it('staff tokens of a disabled provider account are refused on the dashboard routes (403), like its API keys', async () => {
    const p = await createProvider(t.db);
    const u = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    const row = await t.db.selectFrom('users').selectAll().where('id', '=', u.id).executeTakeFirstOrThrow();
    const { access_token } = await t.services.auth.issueJwt(row);
    const list = () => t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: { authorization: `Bearer ${access_token}` } });
    expect((await list()).statusCode).toBe(200);
    await t.db.updateTable('providers').set({ disabled: true }).where('id', '=', p.id).execute();
    const r = await list();
    expect(r.statusCode).toBe(403);
    expect(r.json()).toEqual({ detail: 'Invalid credentials' });
  });
});
