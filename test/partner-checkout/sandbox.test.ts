import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import {
  createBuilding,
  createCheckoutSession,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createUser,
} from '../helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { SANDBOX: 'true' } });
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const form = (o: Record<string, string>) => new URLSearchParams(o).toString();

async function sandboxWorld(url?: string) {
  const p = await createProvider(t.db, { externalCheckoutUrl: url ?? `${t.config.publicBaseUrl}/sandbox/checkout` });
  const plan = await createPlanVersion(t.db, p.id, { name: 'Fibre 500', priceCents: 4999 });
  const b = await createBuilding(t.db, p.id, { lineType: 'first_line', street: 'Hauptstraße', houseNumber: '12a', units: ['4B'] });
  const loc = await createLocation(t.db, p.id, b.id, b.units[0]!.id);
  const created = await t.app.inject({
    method: 'POST',
    url: '/external-checkout/sessions',
    payload: { provider_id: p.id, plan_version_id: plan.id, location_hash: loc.locationHash },
  });
  expect(created.statusCode).toBe(201);
  return { p, plan, b, loc, session: created.json<{ session_id: string; checkout_url: string }>() };
}
const row = (id: string) => t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('sandbox checkout page', () => {
  it("the demo checkout URL is the server's fake payment page: it reads the session (pending → redirected) and offers Pay", async () => {
    const w = await sandboxWorld();
    expect(w.session.checkout_url).toBe(`http://api.test/sandbox/checkout?session_id=${w.session.session_id}`);
    const r = await t.app.inject({ method: 'GET', url: w.session.checkout_url.replace('http://api.test', '') });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.body).toContain('Fibre 500');
    expect(r.body).toContain('49.99 EUR');
    expect(r.body).toContain('Hauptstraße 12a');
    expect(r.body).toContain('action="/sandbox/checkout/pay"');
    expect(r.body).toMatch(/<button type="submit">Pay /);
    expect((await row(w.session.session_id)).status).toBe('redirected');
    expectPageHeaders(r, { token: true });
    expect(String(r.headers['content-security-policy'])).not.toContain('script-src');
  });

  it("Pay completes the session on the provider's behalf: subscription created, session completed, status shows it", async () => {
    const w = await sandboxWorld();
    await t.app.inject({ method: 'GET', url: `/sandbox/checkout?session_id=${w.session.session_id}` });
    const r = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'pay@example.test', first_name: 'Paula', last_name: 'Payer', phone: '' }),
    });
    expect(r.statusCode).toBe(201);
    expect(r.body).toContain('Payment successful');
    const s = await row(w.session.session_id);
    expect(s.status).toBe('completed');
    expect(s.subscription_id).not.toBeNull();
    const sub = await t.db
      .selectFrom('subscriptions')
      .select(['status', 'checkout_session_id', 'provider_id', 'origin'])
      .where('id', '=', s.subscription_id!)
      .executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ checkout_session_id: w.session.session_id, provider_id: w.p.id, origin: 'checkout_session' });
    const status = await t.app.inject({ method: 'GET', url: `/external-checkout/sessions/${w.session.session_id}/status` });
    expect(status.json()).toEqual({ session_id: w.session.session_id, status: 'completed', subscription_status: sub.status });
    // A second Pay is an idempotent replay, not a second subscription.
    const again = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'pay@example.test', first_name: 'Paula', last_name: 'Payer' }),
    });
    expect(again.statusCode).toBe(200);
    expect(again.body).toContain('Already paid');
    const n = await t.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('checkout_session_id', '=', w.session.session_id)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it('the page after Pay shows no subscriber or subscription id', async () => {
    const w = await sandboxWorld();
    const r = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'noids@example.test', first_name: 'Nora', last_name: 'Ids' }),
    });
    expect(r.statusCode).toBe(201);
    const s = await row(w.session.session_id);
    const sub = await t.db
      .selectFrom('subscriptions')
      .select('subscriber_id')
      .where('id', '=', s.subscription_id!)
      .executeTakeFirstOrThrow();
    expect(r.body).not.toContain(s.subscription_id!);
    expect(r.body).not.toContain(sub.subscriber_id);
    expect(r.body).not.toMatch(/Subscriber|Subscription</);
  });

  it('never attaches a subscription to an existing account by email: 409, session still pending, no subscription for that customer', async () => {
    const w = await sandboxWorld();
    const victim = await createSubscriber(t.db, w.p.id, { email: 'Victim@Example.test' });
    const r = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'victim@example.test', first_name: 'Eve', last_name: 'Attacker' }),
    });
    expect(r.statusCode).toBe(409);
    expect(r.body).toContain('only opens new accounts');
    expect(r.body).not.toContain(victim.id);
    expect((await row(w.session.session_id)).subscription_id).toBeNull();
    const subs = await t.db.selectFrom('subscriptions').select('id').where('subscriber_id', '=', victim.id).execute();
    expect(subs).toEqual([]);
  });

  it("never attaches a subscription to a login of another provider's customer by email: 409, no subscriber created, the session still open", async () => {
    const w = await sandboxWorld();
    const elsewhere = await createProvider(t.db);
    const login = await createUser(t.db, { role: 'subscriber', email: 'Shared.Login@Example.test' });
    await createSubscriber(t.db, elsewhere.id, { email: 'shared.login@example.test', userId: login.id });
    const r = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'shared.login@example.test', first_name: 'Eve', last_name: 'Attacker' }),
    });
    expect(r.statusCode).toBe(409);
    expect((await row(w.session.session_id)).subscription_id).toBeNull();
    expect(await t.db.selectFrom('subscribers').select('id').where('provider_id', '=', w.p.id).execute()).toEqual([]);
  });

  it('never acts for a provider that runs its own checkout page (404, session untouched)', async () => {
    const w = await sandboxWorld('https://checkout.provider.test/pay');
    const page = await t.app.inject({ method: 'GET', url: `/sandbox/checkout?session_id=${w.session.session_id}` });
    expect(page.statusCode).toBe(404);
    const pay = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      payload: { session_id: w.session.session_id, email: 'x@example.test', first_name: 'X', last_name: 'Y' },
    });
    expect(pay.statusCode).toBe(404);
    expect(await row(w.session.session_id)).toMatchObject({ status: 'pending', subscription_id: null });
  });

  it('an expired session shows 410; a form without email answers 422 and completes nothing', async () => {
    const w = await sandboxWorld();
    const stale = await createCheckoutSession(t.db, {
      providerId: w.p.id,
      planVersionId: w.plan.id,
      buildingId: w.b.id,
      createdAt: new Date(t.clock.now().getTime() - 3 * HOUR),
    });
    const gone = await t.app.inject({ method: 'GET', url: `/sandbox/checkout?session_id=${stale.id}` });
    expect(gone.statusCode).toBe(410);
    expect(gone.body).toContain('Session expired');
    expect((await row(stale.id)).status).toBe('expired');

    const bad = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: '', first_name: 'A', last_name: 'B' }),
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Please check email');
    expect((await row(w.session.session_id)).subscription_id).toBeNull();
  });

  it('the page\'s Cancel button cancels the session it read (redirected → cancelled); the page then answers 410 "Session cancelled" and Pay completes nothing', async () => {
    const w = await sandboxWorld();
    const page = await t.app.inject({ method: 'GET', url: `/sandbox/checkout?session_id=${w.session.session_id}` });
    expect(page.body).toContain('action="/sandbox/checkout/cancel"');
    const r = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/cancel',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id }),
    });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('Checkout cancelled');
    expectPageHeaders(r, { token: true });
    expect((await row(w.session.session_id)).status).toBe('cancelled');
    const again = await t.app.inject({ method: 'GET', url: `/sandbox/checkout?session_id=${w.session.session_id}` });
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('Session cancelled');
    const pay = await t.app.inject({
      method: 'POST',
      url: '/sandbox/checkout/pay',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ session_id: w.session.session_id, email: 'late@example.test', first_name: 'L', last_name: 'Ate' }),
    });
    expect(pay.statusCode).toBe(410);
    expect(await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', w.loc.id).execute()).toEqual([]);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/sandbox/checkout/cancel',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form({ session_id: 'x' }),
        })
      ).statusCode,
    ).toBe(422);
  });

  it('is hidden from the OpenAPI document', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(spec.paths).some((p) => p.startsWith('/sandbox'))).toBe(false);
    expect(Object.keys(spec.paths)).toContain('/external-checkout/sessions/{session_id}');
  });
});

describe('sandbox off', () => {
  it.each([
    ['unset', {}],
    ['SANDBOX=false', { SANDBOX: 'false' }],
  ])('with SANDBOX %s there is no fake payment page (404 for the page and for Pay)', async (_name, env) => {
    const off = await buildTestApp({ env });
    try {
      const r = await off.app.inject({ method: 'GET', url: '/sandbox/checkout?session_id=00000000-0000-4000-8000-000000000000' });
      expect(r.statusCode).toBe(404);
      const pay = await off.app.inject({
        method: 'POST',
        url: '/sandbox/checkout/pay',
        payload: { session_id: '00000000-0000-4000-8000-000000000000', email: 'x@example.test', first_name: 'X', last_name: 'Y' },
      });
      expect(pay.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
