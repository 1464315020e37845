import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { createCustomer, createVerifiedSession, createWorld, type World } from './fixtures.js';

// Agent document rule 7: "Only a platform administrator can override" the one-change-per-day rule.
let t: TestApp;
let w: World;
let other: World;
let platformJwt: string;
let staffJwt: string;
let subscriberJwt: string;
let platformUserId: string;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t.db);
  other = await createWorld(t.db);
  const jwt = async (role: 'platform_admin' | 'service_provider' | 'subscriber', spRole: string | null, providerId: string | null) => {
    const u = await createUser(t.db, { role, spRole, providerId });
    return {
      id: u.id,
      bearer: `Bearer ${(await t.services.auth.issueJwt({ id: u.id, role, sp_role: spRole, provider_id: providerId })).access_token}`,
    };
  };
  const platform = await jwt('platform_admin', null, null);
  platformJwt = platform.bearer;
  platformUserId = platform.id;
  staffJwt = (await jwt('service_provider', 'sp_admin', w.provider.id)).bearer;
  subscriberJwt = (await jwt('subscriber', null, null)).bearer;
});
afterAll(() => t.close());
afterEach(() => t.clock.set('2026-11-16T10:00:00.000Z'));

const override = (subscriptionId: string, body: Record<string, unknown>, authorization: string | null = platformJwt) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/admin/subscriptions/${subscriptionId}/change-plan`,
    headers: authorization ? { authorization } : {},
    payload: body,
  });
const partnerChange = (subscriptionId: string, planVersionId: string) =>
  t.app.inject({
    method: 'POST',
    url: `/partner/subscriptions/${subscriptionId}/change-plan`,
    headers: { 'x-api-key': w.provider.apiKey },
    payload: { plan_version_id: planVersionId },
  });
const changesOf = (subscriptionId: string) =>
  t.db
    .selectFrom('plan_changes')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('created_at')
    .orderBy('source')
    .execute();
const planOf = async (subscriptionId: string) =>
  (await t.db.selectFrom('subscriptions').select('plan_version_id').where('id', '=', subscriptionId).executeTakeFirstOrThrow())
    .plan_version_id;

describe('platform administrator override of the one-change-per-day rule', () => {
  it('a second change of the day by a platform administrator answers 200, with the reason on the change and in the audit entry', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    expect((await partnerChange(c.subscriptionId, w.plans.faster.id)).statusCode).toBe(200);
    expect((await partnerChange(c.subscriptionId, w.plans.basic.id)).statusCode).toBe(409);

    const reason = 'Customer picked the wrong plan; ticket T-4711';
    const r = await override(c.subscriptionId, { plan_version_id: w.plans.basic.id, override_reason: `  ${reason} ` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      subscription_id: c.subscriptionId,
      plan_version_id: w.plans.basic.id,
      bandwidth_updated: true,
      effective_date: '2026-11-16',
    });
    expect(await planOf(c.subscriptionId)).toBe(w.plans.basic.id);

    const rows = await changesOf(c.subscriptionId);
    expect(rows.map((p) => [p.source, p.change_date, p.override_reason])).toEqual([
      ['admin', '2026-11-16', reason],
      ['partner', '2026-11-16', null],
    ]);
    const admin = rows.find((p) => p.source === 'admin')!;
    expect(admin).toMatchObject({ actor: platformUserId, from_plan_version_id: w.plans.faster.id, to_plan_version_id: w.plans.basic.id });

    const audit = await t.db
      .selectFrom('audit_entries')
      .selectAll()
      .where('entity_id', '=', c.subscriptionId)
      .where('action', '=', 'subscription.plan_change_override')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor_type: 'user',
      actor: platformUserId,
      provider_id: w.provider.id,
      request_id: r.headers['x-request-id'],
    });
    expect(audit[0]!.after).toMatchObject({
      plan_version_id: w.plans.basic.id,
      source: 'admin',
      override_reason: reason,
      plan_change_id: admin.id,
    });

    const hooks = await t.db.selectFrom('webhook_deliveries').select('payload').where('subscription_id', '=', c.subscriptionId).execute();
    expect(hooks.map((h) => (h.payload as { data: { source: string } }).data.source).sort()).toEqual(['admin', 'partner']);
  });

  it('the override counts for the limits that follow: the partner and the agent are refused that day', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    expect(
      (await override(c.subscriptionId, { plan_version_id: w.plans.faster.id, override_reason: 'Goodwill upgrade after outage' }))
        .statusCode,
    ).toBe(200);
    expect((await partnerChange(c.subscriptionId, w.plans.basic.id)).statusCode).toBe(409);
    const session = await createVerifiedSession(t.db, w.provider.id, c.subscriberId, t.clock.now());
    const agent = await t.app.inject({
      method: 'POST',
      url: `/agent/customers/${c.subscriberId}/plan-change`,
      headers: { 'x-api-key': w.provider.apiKey, 'x-verified-session': session },
      payload: { subscription_id: c.subscriptionId, plan_version_id: w.plans.basic.id, confirm: true },
    });
    expect(agent.statusCode).toBe(409);
    expect(agent.json().error.code).toBe('plan_change_limit');
    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
  });

  it("works on any provider's subscription; the plan version must be of that provider (404 otherwise)", async () => {
    const c = await createCustomer(t.db, other);
    const foreign = await override(c.subscriptionId, {
      plan_version_id: w.plans.faster.id,
      override_reason: 'Cross-provider plan, must fail',
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual({ detail: 'Plan version not found' });
    expect(
      (await override(c.subscriptionId, { plan_version_id: other.plans.faster.id, override_reason: 'Operator correction' })).statusCode,
    ).toBe(200);
    expect(await planOf(c.subscriptionId)).toBe(other.plans.faster.id);
  });

  it('overrides only the daily limit: a subscription that is not ACTIVE or the current plan still answers 409', async () => {
    const suspended = await createCustomer(t.db, w, { status: 'SUSPENDED' });
    const r1 = await override(suspended.subscriptionId, { plan_version_id: w.plans.faster.id, override_reason: 'Trying a suspended one' });
    expect(r1.statusCode).toBe(409);
    expect(r1.json().detail).toMatch(/SUSPENDED/);
    const active = await createCustomer(t.db, w);
    const r2 = await override(active.subscriptionId, { plan_version_id: w.plans.fast.id, override_reason: 'Same plan again' });
    expect(r2.statusCode).toBe(409);
    expect(await changesOf(suspended.subscriptionId)).toHaveLength(0);
    expect(await changesOf(active.subscriptionId)).toHaveLength(0);
  });

  it('no one else can override: provider staff and subscribers 403, no token 401, an API key 401; nothing changes', async () => {
    const c = await createCustomer(t.db, w, { records: 'invoiced' });
    expect((await partnerChange(c.subscriptionId, w.plans.faster.id)).statusCode).toBe(200);
    const body = { plan_version_id: w.plans.basic.id, override_reason: 'Not my call to make' };
    for (const jwt of [staffJwt, subscriberJwt]) {
      const r = await override(c.subscriptionId, body, jwt);
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({ detail: 'Not permitted for this account' });
    }
    const none = await override(c.subscriptionId, body, null);
    expect(none.statusCode).toBe(401);
    const key = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/subscriptions/${c.subscriptionId}/change-plan`,
      headers: { 'x-api-key': w.provider.apiKey },
      payload: body,
    });
    expect(key.statusCode).toBe(401);
    // the route exists only in the internal API (under /api/v1)
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/admin/subscriptions/${c.subscriptionId}/change-plan`,
          headers: { authorization: platformJwt },
          payload: body,
        })
      ).statusCode,
    ).toBe(404);
    expect((await changesOf(c.subscriptionId)).map((p) => p.source)).toEqual(['partner']);
    expect(await planOf(c.subscriptionId)).toBe(w.plans.faster.id);
  });

  it('a reason is required: missing, blank, too short or with control characters answers 422 naming override_reason', async () => {
    const c = await createCustomer(t.db, w);
    for (const override_reason of [undefined, '', '     ', 'abc', 'bad\u0000reason here']) {
      const r = await override(c.subscriptionId, {
        plan_version_id: w.plans.faster.id,
        ...(override_reason === undefined ? {} : { override_reason }),
      });
      expect(r.statusCode, JSON.stringify(override_reason)).toBe(422);
      expect(r.json().detail).toMatch(/^override_reason: /);
    }
    expect(await changesOf(c.subscriptionId)).toHaveLength(0);
  });
});

describe('the database admits an override, and only with a reason', () => {
  it('a second non-override row of a subscription and day is refused; an admin row needs a reason; other sources may not carry one', async () => {
    const c = await createCustomer(t.db, w);
    const row = (source: 'agent' | 'partner' | 'admin', override_reason: string | null) => ({
      id: crypto.randomUUID(),
      provider_id: w.provider.id,
      subscriber_id: c.subscriberId,
      subscription_id: c.subscriptionId,
      from_plan_version_id: w.plans.fast.id,
      to_plan_version_id: w.plans.faster.id,
      change_date: '2026-11-20',
      source,
      override_reason,
    });
    await t.db.insertInto('plan_changes').values(row('partner', null)).execute();
    await expect(t.db.insertInto('plan_changes').values(row('partner', null)).execute()).rejects.toThrow(
      /plan_changes_subscription_day_key/,
    );
    await expect(t.db.insertInto('plan_changes').values(row('admin', null)).execute()).rejects.toThrow(
      /plan_changes_override_reason_check/,
    );
    await expect(t.db.insertInto('plan_changes').values(row('partner', 'why')).execute()).rejects.toThrow(
      /plan_changes_override_reason_check/,
    );
    await t.db.insertInto('plan_changes').values(row('admin', 'operator correction')).execute();
    await t.db.insertInto('plan_changes').values(row('admin', 'and another one')).execute();
    expect(await t.db.selectFrom('plan_changes').select('source').where('subscription_id', '=', c.subscriptionId).execute()).toHaveLength(
      3,
    );
  });
});
