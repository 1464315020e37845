// Issue 30 §1: a checkout session created with a subscriber's Bearer token attaches the completing
// subscriber to that login only when the subscriber is that login's person (same email, any case).
// The reported takeover end to end: Helga creates the session with her token and passes the link on;
// the buyer completes it with their own email.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuilding, createLocation, createPlanVersion, createProvider } from '../helpers/factories.js';
import { expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit } from '../agent/helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent({ env: { SANDBOX: 'true' } });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const inject = (o: InjectOptions) => kit.t.app.inject(o);

/** Helga: an activated subscriber of the main provider, logged in. */
async function helga() {
  const c = await seedCustomer(kit, {
    login: 'active',
    firstName: 'Helga',
    email: `helga-${Math.random().toString(36).slice(2, 8)}@example.test`,
  });
  const login = await inject({ method: 'POST', url: '/auth/login', payload: { email: c.user!.email, password: c.user!.password } });
  expect(login.statusCode).toBe(200);
  return { ...c, bearer: { authorization: `Bearer ${login.json().access_token}` } };
}

/** A first-line port of the main provider with a plan: what a session is created for. */
async function place(providerId = kit.main.id) {
  const plan = await createPlanVersion(kit.t.db, providerId, { name: 'Fibre 500', priceCents: 4999 });
  const b = await createBuilding(kit.t.db, providerId, { lineType: 'first_line', units: ['7C'] });
  const loc = await createLocation(kit.t.db, providerId, b.id, b.units[0]!.id);
  return { plan, loc };
}

async function sessionWithToken(bearer: Record<string, string>) {
  const { plan, loc } = await place();
  const r = await inject({
    method: 'POST',
    url: '/external-checkout/sessions',
    headers: bearer,
    payload: { provider_id: kit.main.id, plan_version_id: plan.id, location_hash: loc.locationHash },
  });
  expect(r.statusCode).toBe(201);
  return r.json().session_id as string;
}

const buyer = (email: string) => ({ email, first_name: 'Bruno', last_name: 'Buyer', phone: '030 7654321' });
const subscriberRow = (id: string) => kit.t.db.selectFrom('subscribers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const userByEmail = (email: string) =>
  kit.t.db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();

/** The link token of the newest mail of `tag` to `to`, and who else got one of that tag. */
async function mailedLink(to: string, tag: string) {
  await kit.t.deps.jobs.drain();
  const m = await kit.sink.waitFor((x) => x.to.includes(to.toLowerCase()) && x.tag === tag);
  const token = decodeURIComponent(/set-password\?token=([^\s"<&]+)/.exec(m.text)![1]!);
  kit.mailedSecrets.add(token);
  return token;
}

describe("a session created with a subscriber's token, completed by someone else", () => {
  it("the buyer gets a login of their own: resend_activation and the password reset reach the buyer, and Helga's /subscriber/me shows nothing of the buyer's subscription", async () => {
    const h = await helga();
    const sessionId = await sessionWithToken(h.bearer);
    const buyerEmail = `Bruno.Buyer-${Math.random().toString(36).slice(2, 8)}@Example.test`;

    const done = await inject({
      method: 'POST',
      url: '/external-checkout/complete',
      headers: { 'x-webhook-secret': kit.main.webhookSecret },
      payload: { session_id: sessionId, subscriber: buyer(buyerEmail) },
    });
    expect(done.statusCode).toBe(201);
    const { subscriber_id: buyerId, subscription_id: subscriptionId } = done.json();

    // The buyer's record has the buyer's own login (created without a password), never Helga's.
    const login = await userByEmail(buyerEmail);
    expect(login).toMatchObject({ role: 'subscriber', password_hash: null });
    expect(await subscriberRow(buyerId)).toMatchObject({ user_id: login!.id, email: buyerEmail });
    expect(login!.id).not.toBe(h.user!.id);

    // Helga sees her own record and subscription; the session she created shows no subscription of someone else.
    const me = await inject({ method: 'GET', url: '/subscriber/me', headers: h.bearer });
    expect(me.statusCode).toBe(200);
    expect(me.json().subscriptions.map((s: { id: string }) => s.id)).toEqual([h.subscriptionId]);
    expect(me.json().checkout_sessions).toEqual([expect.objectContaining({ id: sessionId, status: 'completed', subscription_id: null })]);
    expect(me.body).not.toContain(subscriptionId);
    expect(me.body).not.toContain(buyerId);

    // The buyer can activate their own login: the set-up link goes to the buyer and sets the buyer's password.
    const session = await verify(kit, { id: buyerId, email: buyerEmail });
    const activation = await kit.call('POST', `/agent/customers/${buyerId}/password-reset`, {
      session,
      payload: { action: 'resend_activation' },
    });
    expect(activation.status).toBe(202);
    const setUp = await mailedLink(buyerEmail, 'account_activation');
    const set = await inject({ method: 'POST', url: '/auth/set-password', payload: { token: setUp, password: 'the buyer chose this' } });
    expect(set.statusCode).toBe(200);
    const buyerLogin = await inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: buyerEmail, password: 'the buyer chose this' },
    });
    expect(buyerLogin.statusCode).toBe(200);

    // A password reset for the buyer goes to the buyer, and Helga receives nothing of it.
    const reset = await kit.call('POST', `/agent/customers/${buyerId}/password-reset`, { session, payload: { action: 'password_reset' } });
    expect(reset.status).toBe(202);
    await mailedLink(buyerEmail, 'password_reset');
    expect(kit.sink.messages.filter((m) => m.to.includes(h.user!.email.toLowerCase()))).toEqual([]);

    // The buyer's own token reads the buyer's subscription; Helga's password still works and is unchanged.
    const buyerMe = await inject({
      method: 'GET',
      url: '/subscriber/me',
      headers: { authorization: `Bearer ${buyerLogin.json().access_token}` },
    });
    expect(buyerMe.json().subscriptions.map((s: { id: string }) => s.id)).toEqual([subscriptionId]);
    expect(
      (await inject({ method: 'POST', url: '/auth/login', payload: { email: h.user!.email, password: h.user!.password } })).statusCode,
    ).toBe(200);
  });

  it('the same person (the email of the login, in any case) completing the session is attached to that login', async () => {
    const h = await helga();
    const sessionId = await sessionWithToken(h.bearer);
    const done = await inject({
      method: 'POST',
      url: '/external-checkout/complete',
      headers: { 'x-webhook-secret': kit.main.webhookSecret },
      payload: { session_id: sessionId, subscriber: buyer(h.user!.email.toUpperCase()) },
    });
    expect(done.statusCode).toBe(201);
    // Helga is already a customer of this provider: her record is reused, still on her login.
    expect(done.json().subscriber_id).toBe(h.id);
    expect((await subscriberRow(h.id)).user_id).toBe(h.user!.id);
  });

  it('anonymous-complete follows the same rule: another email gets its own login, not the session creator’s', async () => {
    const h = await helga();
    const sessionId = await sessionWithToken(h.bearer);
    const email = `anon-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const r = await inject({
      method: 'POST',
      url: '/external-checkout/anonymous-complete',
      headers: { 'x-webhook-secret': kit.main.webhookSecret },
      payload: { session_id: sessionId, external_subscription_id: `ext-${sessionId}`, subscriber: buyer(email) },
    });
    expect(r.statusCode).toBe(201);
    const login = await userByEmail(email);
    expect((await subscriberRow(r.json().subscriber_id)).user_id).toBe(login!.id);
    expect(login!.id).not.toBe(h.user!.id);
  });

  it('the sandbox page (the same completion) gives a buyer with another email a login of their own', async () => {
    const h = await helga();
    const p = await createProvider(kit.t.db, { externalCheckoutUrl: `${kit.t.config.publicBaseUrl}/sandbox/checkout` });
    const { plan, loc } = await place(p.id);
    const created = await inject({
      method: 'POST',
      url: '/external-checkout/sessions',
      headers: h.bearer,
      payload: { provider_id: p.id, plan_version_id: plan.id, location_hash: loc.locationHash },
    });
    expect(created.statusCode).toBe(201);
    const email = `sandbox-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const pay = await inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        session_id: created.json().session_id,
        email,
        first_name: 'Sandy',
        last_name: 'Box',
        phone: '',
      }).toString(),
    });
    expect(pay.statusCode).toBe(201);
    const sub = await kit.t.db.selectFrom('subscribers').selectAll().where('provider_id', '=', p.id).executeTakeFirstOrThrow();
    expect(sub.email).toBe(email);
    expect(sub.user_id).toBe((await userByEmail(email))!.id);
    expect(sub.user_id).not.toBe(h.user!.id);
  });
});
