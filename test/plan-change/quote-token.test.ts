import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createCustomer, createVerifiedSession, createWorld, setMonthRecords, writeCounts, type World } from './fixtures.js';

let t: TestApp;
let w: World;
let other: World;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
  other = await createWorld(t.db);
});
afterAll(() => t.close());
afterEach(() => t.clock.set('2026-11-16T10:00:00.000Z'));

async function verifiedCustomer(world: World = w, o: Parameters<typeof createCustomer>[2] = {}) {
  const c = await createCustomer(t.db, world, o);
  const session = await createVerifiedSession(t.db, world.provider.id, c.subscriberId, t.clock.now(), 30 * 24 * 3600_000);
  return { ...c, session, world };
}
type Customer = Awaited<ReturnType<typeof verifiedCustomer>>;

const call = (path: string, c: Customer, body: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: `/agent/customers/${c.subscriberId}/${path}`,
    headers: { 'x-api-key': c.world.provider.apiKey, 'x-verified-session': c.session },
    payload: body,
  });
const preview = (c: Customer, planVersionId: string) =>
  call('plan-change/preview', c, { subscription_id: c.subscriptionId, plan_version_id: planVersionId });
const apply = (c: Customer, planVersionId: string, quoteToken?: string) =>
  call('plan-change', c, {
    subscription_id: c.subscriptionId,
    plan_version_id: planVersionId,
    confirm: true,
    ...(quoteToken === undefined ? {} : { quote_token: quoteToken }),
  });

async function quoted(c: Customer, planVersionId: string): Promise<string> {
  const r = await preview(c, planVersionId);
  expect(r.statusCode).toBe(200);
  return r.json().quote_token;
}
const planOf = async (subscriptionId: string) =>
  (await t.db.selectFrom('subscriptions').select('plan_version_id').where('id', '=', subscriptionId).executeTakeFirstOrThrow())
    .plan_version_id;
const expectCode = (r: { statusCode: number; json(): { error: { code: string } } }, status: number, code: string) => {
  expect({ status: r.statusCode, code: r.json().error?.code }).toEqual({ status, code });
};
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const partsOf = (token: string) => token.split('.') as [string, string, string];

describe('signed quote: the preview issues it', () => {
  it('a preview answers a quote_token, a signed JWT of its own type (quote+jwt), valid 15 minutes', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    const [header, payload] = partsOf(token)
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'quote+jwt' });
    expect(payload.exp - payload.iat).toBe(15 * 60);
    expect(payload.q).toMatchObject({
      providerId: w.provider.id,
      customerId: c.subscriberId,
      subscriptionId: c.subscriptionId,
      toPlanVersionId: w.plans.faster.id,
      fromPlanVersionId: w.plans.fast.id,
      billingState: 'invoiced',
      adjustmentType: 'next_invoice_line',
      adjustmentCents: 500,
      day: '2026-11-16',
    });
  });

  it('a quote is not a login: sent as a Bearer token it is refused (403), and a refused preview issues none (409)', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me', headers: { authorization: `Bearer ${token}` } });
    expect(r.statusCode).toBe(403);
    const same = await preview(c, w.plans.fast.id);
    expectCode(same, 409, 'same_plan');
  });
});

describe('signed quote: apply with the token applies exactly the quote', () => {
  it('applies the quoted change: the same amount, the plan moved, the adjustment written', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    t.clock.advance(14 * 60_000);
    const r = await apply(c, w.plans.faster.id, token);
    expect(r.statusCode).toBe(200);
    expect(r.json().one_time_adjustment).toMatchObject({ type: 'next_invoice_line', amount: '5.00' });
    // The answer says the quote matched and what was charged (issue 31 §2).
    expect(r.json().quote_matched).toBe(true);
    expect(r.json().charge_summary).toMatch(
      /^Nothing was charged today: 5\.00 EUR .* next monthly invoice\. The new monthly price is 49\.99 EUR/,
    );
    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
  });

  it('the price moved since the preview: 409 quote_changed, nothing written', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    await t.db.updateTable('plan_versions').set({ monthly_price_cents: 5999 }).where('id', '=', w.plans.faster.id).execute();
    try {
      const before = await writeCounts(t.db);
      const r = await apply(c, w.plans.faster.id, token);
      expectCode(r, 409, 'quote_changed');
      expect(r.json().error.message).toContain('the price');
      expect(await writeCounts(t.db)).toEqual(before);
      expect(await planOf(c.subscriptionId)).toBe(w.plans.fast.id);
    } finally {
      await t.db.updateTable('plan_versions').set({ monthly_price_cents: 4999 }).where('id', '=', w.plans.faster.id).execute();
    }
  });

  it('the billing state moved (the month got invoiced): 409 quote_changed, nothing written', async () => {
    const c = await verifiedCustomer(w, { records: 'not_invoiced' });
    const p = await preview(c, w.plans.faster.id);
    expect(p.json().one_time_adjustment).toBeNull();
    await setMonthRecords(t.db, w.provider.id, c.subscriberId, c.subscriptionId, '2026-11-01', 'invoiced');
    const before = await writeCounts(t.db);
    const r = await apply(c, w.plans.faster.id, p.json().quote_token);
    expectCode(r, 409, 'quote_changed');
    expect(r.json().error.message).toContain('the billing state');
    expect(await writeCounts(t.db)).toEqual(before);
  });

  it('the day moved (quoted 23:55, applied 00:05 UTC): 409 quote_changed', async () => {
    t.clock.set('2026-11-16T23:55:00Z');
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    t.clock.set('2026-11-17T00:05:00Z');
    const r = await apply(c, w.plans.faster.id, token);
    expectCode(r, 409, 'quote_changed');
    expect(r.json().error.message).toContain('the day');
    expect(await planOf(c.subscriptionId)).toBe(w.plans.fast.id);
  });

  it('after 15 minutes: 401 quote_expired, nothing written', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    t.clock.advance(15 * 60_000 + 1000);
    const before = await writeCounts(t.db);
    expectCode(await apply(c, w.plans.faster.id, token), 401, 'quote_expired');
    expect(await writeCounts(t.db)).toEqual(before);
  });
});

describe("signed quote: a token that is not this change's quote answers 401 quote_invalid", () => {
  it('an altered amount (payload changed, signature kept), a garbage string, another secret, alg none', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    const [h, p, s] = partsOf(token);
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload.q.adjustmentCents = 1;
    const altered = `${h}.${b64(payload)}.${s}`;
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const foreign = await new SignJWT({ q: payload.q })
      .setProtectedHeader({ alg: 'HS256', typ: 'quote+jwt' })
      .setIssuer('netsvc-api/plan-change-quote')
      .setAudience('agent:plan-change')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode('x'.repeat(48)));
    const none = `${b64({ alg: 'none', typ: 'quote+jwt' })}.${p}.`;
    for (const bad of [altered, 'not-a-token', foreign, none, `${token}x`]) {
      expectCode(await apply(c, w.plans.faster.id, bad), 401, 'quote_invalid');
    }
    expect(await planOf(c.subscriptionId)).toBe(w.plans.fast.id);
  });

  it('the quote is a standard HS256 JWT (what jose signs for the same claims); signed with the key but of another type, issuer or audience it is refused', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const token = await quoted(c, w.plans.faster.id);
    const payload = JSON.parse(Buffer.from(partsOf(token)[1], 'base64url').toString());
    const key = new TextEncoder().encode(t.config.JWT_SECRET);
    const sign = (typ: string, iss: string, aud: string) =>
      new SignJWT({ q: payload.q })
        .setProtectedHeader({ alg: 'HS256', typ })
        .setIssuer(iss)
        .setAudience(aud)
        .setIssuedAt(payload.iat)
        .setExpirationTime(payload.exp)
        .sign(key);
    expect(await sign('quote+jwt', 'netsvc-api/plan-change-quote', 'agent:plan-change')).toBe(token);
    for (const bad of [
      await sign('JWT', 'netsvc-api/plan-change-quote', 'agent:plan-change'),
      await sign('quote+jwt', 'netsvc-api', 'agent:plan-change'),
      await sign('quote+jwt', 'netsvc-api/plan-change-quote', 'agent:other'),
    ]) {
      expectCode(await apply(c, w.plans.faster.id, bad), 401, 'quote_invalid');
    }
    expect(await planOf(c.subscriptionId)).toBe(w.plans.fast.id);
  });

  it('a genuine quote of another customer, another plan version, or another provider', async () => {
    const a = await verifiedCustomer(w, { records: 'invoiced' });
    const b = await verifiedCustomer(w, { records: 'invoiced' });
    const x = await verifiedCustomer(other, { records: 'invoiced' });
    const ofA = await quoted(a, w.plans.faster.id);
    expectCode(await apply(b, w.plans.faster.id, ofA), 401, 'quote_invalid');
    expectCode(await apply(a, w.plans.basic.id, ofA), 401, 'quote_invalid');
    const ofOther = await quoted(x, other.plans.faster.id);
    expectCode(await apply(a, w.plans.faster.id, ofOther), 401, 'quote_invalid');
    expect(await planOf(a.subscriptionId)).toBe(w.plans.fast.id);
    expect(await planOf(b.subscriptionId)).toBe(w.plans.fast.id);
  });

  it('a dashboard login JWT is not a quote', async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    const login = await t.services.auth.issueJwt({ id: c.subscriberId, role: 'subscriber', sp_role: null, provider_id: null });
    expectCode(await apply(c, w.plans.faster.id, login.access_token), 401, 'quote_invalid');
  });
});

describe('without a quote token apply behaves as before', () => {
  it("the price moved since the preview: the change applies at today's computed price", async () => {
    const c = await verifiedCustomer(w, { records: 'invoiced' });
    await quoted(c, w.plans.faster.id);
    const pricier = await t.db
      .updateTable('plan_versions')
      .set({ monthly_price_cents: 5999 })
      .where('id', '=', w.plans.faster.id)
      .execute();
    expect(pricier).toBeTruthy();
    try {
      const r = await apply(c, w.plans.faster.id);
      expect(r.statusCode).toBe(200);
      expect(r.json().one_time_adjustment).toMatchObject({ type: 'next_invoice_line', amount: '10.00' });
      // No token: quote_matched null, and the answer says the price actually charged.
      expect(r.json().quote_matched).toBeNull();
      expect(r.json().charge_summary).toContain('10.00 EUR');
    } finally {
      await t.db.updateTable('plan_versions').set({ monthly_price_cents: 4999 }).where('id', '=', w.plans.faster.id).execute();
    }
  });
});
