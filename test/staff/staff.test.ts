import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { sha256 } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';
import { createProvider, createSubscriber, createUser } from '../helpers/factories.js';
import { bearerFor, customer, jobsOf, mailsTo, tokenIn } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function admin(spRole: string | null = 'sp_admin') {
  const provider = await createProvider(t.db);
  const u = await createUser(t.db, { role: 'service_provider', spRole, providerId: provider.id });
  return { provider, user: u, headers: await bearerFor(t, { id: u.id, role: 'service_provider', spRole, providerId: provider.id }) };
}
const invite = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/v1/provider/users/invite', headers, payload: payload as object });
const setPassword = (token: string, password: string) =>
  t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password } });
const userByEmail = (email: string) => t.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();

describe('POST /api/v1/provider/users/invite', () => {
  it("creates an invited service_provider user under the caller's provider (201 summary) and queues the set-password mail in the same transaction", async () => {
    const a = await admin();
    const r = await invite(a.headers, { email: 'new.staff@provider.test', sp_role: 'support', first_name: 'Nora', last_name: 'Neu' });
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toEqual({
      id: expect.any(String),
      email: 'new.staff@provider.test',
      first_name: 'Nora',
      last_name: 'Neu',
      sp_role: 'support',
      status: 'invited',
      created_at: '2026-11-16T10:00:00.000Z',
    });
    const u = await userByEmail('new.staff@provider.test');
    expect(u).toMatchObject({ id: body.id, role: 'service_provider', sp_role: 'support', provider_id: a.provider.id, password_hash: null });
    const link = await t.db.selectFrom('link_tokens').selectAll().where('user_id', '=', body.id).executeTakeFirstOrThrow();
    expect(link.purpose).toBe('staff_invite');
    expect(link.expires_at.toISOString()).toBe('2026-11-30T10:00:00.000Z');
    const [mail] = await mailsTo(t, 'new.staff@provider.test');
    expect(mail!.tag).toBe('staff_invite');
    const job = (await jobsOf(t, 'mail.send')).find((j) => (j.payload as { to: string }).to === 'new.staff@provider.test')!;
    expect(job.status).toBe('queued'); // sent asynchronously by the worker

    // the link sets the password, and the user becomes active
    const token = tokenIn(mail!.text, 'token=');
    const set = await t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'a-long-staff-password' } });
    expect(set.statusCode).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'new.staff@provider.test', password: 'a-long-staff-password' },
    });
    expect(login.statusCode).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: a.headers });
    expect(list.json().find((x: { id: string }) => x.id === body.id).status).toBe('active');
  });

  it('with an Idempotency-Key, a retried invite replays the 201 (one user, one mail) instead of 409', async () => {
    const a = await admin();
    const h = { ...a.headers, 'idempotency-key': 'invite-retry-1' };
    const first = await invite(h, { email: 'retry@provider.test', sp_role: 'support' });
    const retry = await invite(h, { email: 'retry@provider.test', sp_role: 'support' });
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(await mailsTo(t, 'retry@provider.test')).toHaveLength(1);
    expect((await invite(a.headers, { email: 'retry@provider.test', sp_role: 'support' })).statusCode).toBe(409);
  });

  it('an admin account without a sub-role (sp_role null) may invite too', async () => {
    const a = await admin(null);
    expect((await invite(a.headers, { email: 'by-null-role@provider.test', sp_role: 'sales' })).statusCode).toBe(201);
  });

  it('answers 422 for an sp_role outside sp_admin, support, sales, bookkeeping (no platform_admin escalation) and for a bad email', async () => {
    const a = await admin();
    for (const sp_role of ['platform_admin', 'admin', 'owner', '', null]) {
      const r = await invite(a.headers, { email: `x-${String(sp_role)}@provider.test`, sp_role });
      expect(r.statusCode, String(sp_role)).toBe(422);
      expect(r.json().detail).toMatch(/^sp_role: /);
    }
    expect((await invite(a.headers, { email: 'not-an-email', sp_role: 'support' })).statusCode).toBe(422);
    expect(await userByEmail('x-platform_admin@provider.test')).toBeUndefined();
  });

  it("ignores any attempt to choose role or provider: the invitee is always service_provider of the caller's provider", async () => {
    const a = await admin();
    const other = await createProvider(t.db);
    const r = await invite(a.headers, {
      email: 'sneaky@provider.test',
      sp_role: 'sp_admin',
      role: 'platform_admin',
      provider_id: other.id,
    });
    expect(r.statusCode).toBe(201);
    expect(await userByEmail('sneaky@provider.test')).toMatchObject({ role: 'service_provider', provider_id: a.provider.id });
  });

  it("an email with a login elsewhere (another provider's staff, a subscriber, the platform admin; any case) answers exactly like a new invitation, creates nothing, and mails that address a notice naming only the inviting provider", async () => {
    const a = await admin();
    await t.db.updateTable('providers').set({ name: 'Inviting Fibre GmbH' }).where('id', '=', a.provider.id).execute();
    const elsewhere = await admin();
    const logins = [
      await createUser(t.db, { email: 'Subscriber.Taken@Example.test' }),
      await createUser(t.db, {
        email: 'staff.taken@example.test',
        role: 'service_provider',
        spRole: 'support',
        providerId: elsewhere.provider.id,
      }),
      await createUser(t.db, { email: 'operator.taken@example.test', role: 'platform_admin' }),
    ];
    const usersBefore = await t.db.selectFrom('users').select('id').execute();
    const fresh = await invite(a.headers, { email: 'brand.new@provider.test', sp_role: 'support', first_name: 'Nina' });
    expect(fresh.statusCode).toBe(201);
    for (const login of logins) {
      const r = await invite(a.headers, { email: login.email.toLowerCase(), sp_role: 'support', first_name: 'Nina' });
      expect(r.statusCode, login.email).toBe(fresh.statusCode);
      expect(Object.keys(r.json()).sort()).toEqual(Object.keys(fresh.json()).sort());
      expect(r.json()).toEqual({ ...fresh.json(), id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: login.email.toLowerCase() });
      expect(r.json().id).not.toBe(login.id);
      expect(r.headers['content-type']).toBe(fresh.headers['content-type']);

      // Nothing created: no user, no link; the existing login is unchanged.
      const rows = await t.db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['email']), '=', login.email.toLowerCase()))
        .execute();
      expect(rows.map((x) => x.id)).toEqual([login.id]);
      expect(await t.db.selectFrom('link_tokens').select('id').where('user_id', '=', login.id).execute()).toEqual([]);

      // The address gets a notice, not an invitation: the provider's name and nothing else of it.
      const [notice, ...more] = await mailsTo(t, login.email);
      expect(more).toEqual([]);
      expect(notice!.tag).toBe('staff_invite_refused');
      expect(notice!.text).toContain('Inviting Fibre GmbH tried to invite this address');
      expect(notice!.text).not.toMatch(/token=|set-password/);
      const provider = await t.db.selectFrom('providers').selectAll().where('id', '=', a.provider.id).executeTakeFirstOrThrow();
      expect(notice!.text).not.toContain(provider.support_email);
      expect(notice!.html).not.toContain(provider.support_email);
      expect(notice!.text).not.toContain('+49 30 1234567'); // the provider's support phone
    }
    // Only the new invitation was created; the others are not listed.
    const usersAfter = await t.db.selectFrom('users').select('id').execute();
    expect(usersAfter.length).toBe(usersBefore.length + 1);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: a.headers });
    expect(
      list
        .json()
        .map((u: { email: string }) => u.email)
        .sort(),
    ).toEqual([a.user.email, 'brand.new@provider.test'].sort());
  });

  it('an email already of the own staff answers 409 and creates nothing (the admin lists them anyway)', async () => {
    const a = await admin();
    const own = await createUser(t.db, {
      email: 'Own.Staff@Example.test',
      role: 'service_provider',
      spRole: 'sales',
      providerId: a.provider.id,
    });
    const r = await invite(a.headers, { email: 'own.staff@example.test', sp_role: 'support' });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toEqual({ detail: 'A user with this email already exists' });
    const rows = await t.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', 'own.staff@example.test'))
      .execute();
    expect(rows.map((x) => x.id)).toEqual([own.id]);
    expect(await mailsTo(t, 'own.staff@example.test')).toHaveLength(0);
    expect(await mailsTo(t, 'Own.Staff@Example.test')).toHaveLength(0);
  });

  it("refuses escalation: a support user, a subscriber, and an sp_admin of another provider managing this provider's staff", async () => {
    const a = await admin();
    const support = await admin('support');
    for (const role of ['support', 'sales', 'bookkeeping']) {
      const u = await createUser(t.db, { role: 'service_provider', spRole: role, providerId: a.provider.id });
      const h = await bearerFor(t, { id: u.id, role: 'service_provider', spRole: role, providerId: a.provider.id });
      const r = await invite(h, { email: `by-${role}@provider.test`, sp_role: 'sp_admin' });
      expect(r.statusCode, role).toBe(403);
      expect(r.json()).toEqual({ detail: 'Only the provider admin (sp_admin) may manage staff' });
      expect((await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: h })).statusCode).toBe(403);
    }
    expect((await invite(support.headers, { email: 'by-support2@provider.test', sp_role: 'support' })).statusCode).toBe(403);
    const sub = await customer(t);
    expect((await invite(sub.headers, { email: 'by-subscriber@provider.test', sp_role: 'sp_admin' })).statusCode).toBe(403);
    const platform = await createUser(t.db, { role: 'platform_admin' });
    expect(
      (
        await invite(await bearerFor(t, { id: platform.id, role: 'platform_admin' }), {
          email: 'by-platform@provider.test',
          sp_role: 'support',
        })
      ).statusCode,
    ).toBe(403);
    // another provider's admin: acts only on its own provider (never this one's users)
    const foreign = await admin();
    const invited = (await invite(a.headers, { email: 'mine@provider.test', sp_role: 'support' })).json();
    const resend = await t.app.inject({
      method: 'POST',
      url: `/api/v1/provider/users/${invited.id}/resend-invite`,
      headers: foreign.headers,
    });
    expect(resend.statusCode).toBe(404);
    const foreignList = (await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: foreign.headers })).json();
    expect(foreignList.map((x: { id: string }) => x.id)).not.toContain(invited.id);
    for (const email of [
      'by-support@provider.test',
      'by-support2@provider.test',
      'by-subscriber@provider.test',
      'by-platform@provider.test',
    ]) {
      expect(await userByEmail(email)).toBeUndefined();
    }
  });

  it('uses the account as stored now: a demoted admin with an old token is refused', async () => {
    const a = await admin();
    await t.db.updateTable('users').set({ sp_role: 'support' }).where('id', '=', a.user.id).execute();
    expect((await invite(a.headers, { email: 'after-demotion@provider.test', sp_role: 'support' })).statusCode).toBe(403);
  });

  it('answers 401 without a token and exists only under /api/v1', async () => {
    const a = await admin();
    expect((await invite({}, { email: 'x@provider.test', sp_role: 'support' })).statusCode).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/provider/users/invite',
          headers: a.headers,
          payload: { email: 'x@provider.test', sp_role: 'support' },
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('GET /api/v1/provider/users', () => {
  it("returns a bare list of the own provider's staff summaries only", async () => {
    const a = await admin();
    const other = await admin();
    await invite(a.headers, { email: 'list-one@provider.test', sp_role: 'bookkeeping' });
    await invite(other.headers, { email: 'list-other@provider.test', sp_role: 'support' });
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: a.headers });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body.map((u: { email: string }) => u.email).sort()).toEqual([a.user.email, 'list-one@provider.test'].sort());
    expect(body.find((u: { id: string }) => u.id === a.user.id)).toEqual({
      id: a.user.id,
      email: a.user.email,
      first_name: 'Test',
      last_name: 'User',
      sp_role: 'sp_admin',
      status: 'active',
      created_at: expect.any(String),
    });
    expect(r.body).not.toMatch(/password|provider_id/);
  });
});

describe('POST /api/v1/provider/users/{user_id}/resend-invite', () => {
  it('sends a new 14-day link ({ok: true}); the earlier link stops working', async () => {
    const a = await admin();
    const invited = (await invite(a.headers, { email: 'resend@provider.test', sp_role: 'sales' })).json();
    const firstToken = tokenIn((await mailsTo(t, 'resend@provider.test'))[0]!.text, 'token=');
    t.clock.advance(60_000);
    const r = await t.app.inject({ method: 'POST', url: `/api/v1/provider/users/${invited.id}/resend-invite`, headers: a.headers });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true });
    const mails = await mailsTo(t, 'resend@provider.test');
    expect(mails).toHaveLength(2);
    const links = await t.db.selectFrom('link_tokens').selectAll().where('user_id', '=', invited.id).orderBy('created_at').execute();
    expect(links).toHaveLength(2);
    expect(links[0]!.used_at).not.toBeNull();
    expect(links[1]).toMatchObject({ purpose: 'staff_invite', used_at: null });
    const old = await t.app.inject({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: firstToken, password: 'a-long-staff-password' },
    });
    expect(old.statusCode).toBe(400);
    const fresh = await t.app.inject({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: tokenIn(mails[1]!.text, 'token='), password: 'a-long-staff-password' },
    });
    expect(fresh.json()).toEqual({ success: true, message: expect.any(String) });
    expect(fresh.statusCode).toBe(200);
    t.clock.advance(-60_000);
  });

  it('answers 409 for a user who already chose a password, 404 for an unknown user or a subscriber account', async () => {
    const a = await admin();
    const active = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: a.provider.id });
    const r = await t.app.inject({ method: 'POST', url: `/api/v1/provider/users/${active.id}/resend-invite`, headers: a.headers });
    expect(r.statusCode).toBe(409);
    expect(r.json().detail).toMatch(/already set a password/);
    const sub = await createUser(t.db);
    for (const id of [sub.id, '00000000-0000-4000-8000-000000000000']) {
      expect(
        (await t.app.inject({ method: 'POST', url: `/api/v1/provider/users/${id}/resend-invite`, headers: a.headers })).statusCode,
      ).toBe(404);
    }
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/provider/users/not-a-uuid/resend-invite', headers: a.headers })).statusCode,
    ).toBe(422);
  });
});

describe('DELETE /api/v1/provider/users/{user_id} (withdraw an invitation)', () => {
  const withdraw = (headers: Record<string, string>, id: string) =>
    t.app.inject({ method: 'DELETE', url: `/api/v1/provider/users/${id}`, headers });

  it('removes an invited user and its links ({ok: true}): the invite link stops working, the user is no longer listed, the email can be invited again', async () => {
    const a = await admin();
    const invited = (await invite(a.headers, { email: 'withdrawn@provider.test', sp_role: 'support' })).json();
    const token = tokenIn((await mailsTo(t, 'withdrawn@provider.test'))[0]!.text, 'token=');
    const r = await withdraw(a.headers, invited.id);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ ok: true });
    expect(await userByEmail('withdrawn@provider.test')).toBeUndefined();
    expect(await t.db.selectFrom('link_tokens').select('id').where('user_id', '=', invited.id).execute()).toEqual([]);
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: a.headers })).json();
    expect(list.map((u: { id: string }) => u.id)).not.toContain(invited.id);
    const set = await setPassword(token, 'a-long-staff-password');
    expect(set.statusCode).toBe(400);
    expect((await withdraw(a.headers, invited.id)).statusCode).toBe(404);
    expect((await invite(a.headers, { email: 'withdrawn@provider.test', sp_role: 'sales' })).statusCode).toBe(201);
  });

  it('answers 409 for an active user (kept), 404 for another provider’s invitation or an unknown id, 403 for a non-admin', async () => {
    const a = await admin();
    const active = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: a.provider.id });
    const r = await withdraw(a.headers, active.id);
    expect(r.statusCode).toBe(409);
    expect(r.json().detail).toMatch(/already set a password/);
    expect(await userByEmail(active.email)).toMatchObject({ id: active.id });

    const foreign = await admin();
    const theirs = (await invite(foreign.headers, { email: 'theirs@provider.test', sp_role: 'support' })).json();
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000']) {
      const miss = await withdraw(a.headers, id);
      expect(miss.statusCode).toBe(404);
      expect(miss.json()).toEqual({ detail: 'User not found' });
    }
    expect(await userByEmail('theirs@provider.test')).toMatchObject({ id: theirs.id });
    const support = await admin('support');
    expect((await withdraw(support.headers, theirs.id)).statusCode).toBe(403);
    expect((await withdraw(a.headers, 'not-a-uuid')).statusCode).toBe(422);
  });
});

describe("a pending invitation never blocks a subscriber's activation", () => {
  /** The /agent set-up link for a customer of `p`, under a verified session of that customer (as verify/check leaves it). */
  async function resendActivation(p: { id: string; apiKey: string }, customerId: string) {
    const session = `vs_staff__${newId()}`; // vs_ and 43 characters, the shape of a real session token
    const expires = new Date(t.clock.now().getTime() + 600_000);
    await t.db
      .insertInto('verified_sessions')
      .values({ id: newId(), provider_id: p.id, subscriber_id: customerId, token_hash: sha256(session), expires_at: expires })
      .execute();
    return t.app.inject({
      method: 'POST',
      url: `/agent/customers/${customerId}/password-reset`,
      headers: { 'x-api-key': p.apiKey, 'x-verified-session': session },
      payload: { action: 'resend_activation' },
    });
  }

  it("another provider's customer with the invited email: resend_activation withdraws the invitation and creates the customer's login", async () => {
    const a = await admin();
    const invited = (await invite(a.headers, { email: 'Shared.Person@example.test', sp_role: 'support' })).json();
    const inviteToken = tokenIn((await mailsTo(t, 'Shared.Person@example.test'))[0]!.text, 'token=');
    // Provider B's customer of the same person (case aside), without a login: completion could not link the staff login.
    const b = await createProvider(t.db);
    const c = await createSubscriber(t.db, b.id, { email: 'shared.person@example.test', userId: null });
    const r = await resendActivation(b, c.id);
    expect(r.statusCode, r.body).toBe(202);
    const login = await t.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', 'shared.person@example.test'))
      .executeTakeFirstOrThrow();
    expect(login).toMatchObject({ role: 'subscriber', password_hash: null, provider_id: null });
    expect(login.id).not.toBe(invited.id);
    const row = await t.db.selectFrom('subscribers').select('user_id').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.user_id).toBe(login.id);
    const [activation] = await mailsTo(t, 'shared.person@example.test');
    expect(activation!.tag).toBe('account_activation');
    // The invitation is gone: not listed, its link dead.
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/provider/users', headers: a.headers })).json();
    expect(list.map((u: { id: string }) => u.id)).not.toContain(invited.id);
    const set = await setPassword(inviteToken, 'a-long-staff-password');
    expect(set.statusCode).toBe(400);
    // The customer's set-up link works.
    expect((await setPassword(tokenIn(activation!.text, 'token='), 'the customer chose this')).statusCode).toBe(200);
  });

  it("an active staff login with the customer's email still answers 409 (a login is one account)", async () => {
    const a = await admin();
    const b = await createProvider(t.db);
    const c = await createSubscriber(t.db, b.id, { email: a.user.email, userId: null });
    const r = await resendActivation(b, c.id);
    expect(r.statusCode).toBe(409);
    expect(await userByEmail(a.user.email)).toMatchObject({ id: a.user.id, role: 'service_provider' });
  });
});
