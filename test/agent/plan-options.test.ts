// Plans the agent can offer (issue 31 §1): with a verified session, the plan versions the
// customer's subscription can change to, from which the preview takes its plan_version_id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlanVersion } from '../helpers/factories.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let c: SeededCustomer & { session: string };
let basic: { id: string };
let faster: { id: string };
let samePrice: { id: string };

beforeAll(async () => {
  kit = await setupAgent();
  const db = kit.t.db;
  const seeded = await seedCustomer(kit, { firstName: 'Olga', lastName: 'Options', priceCents: 4499 });
  c = { ...seeded, session: await verify(kit, seeded) };
  basic = await createPlanVersion(db, kit.main.id, { name: 'Basic 100', priceCents: 2999, down: 100, up: 20 });
  faster = await createPlanVersion(db, kit.main.id, { name: 'Faster 1000', priceCents: 6999, down: 1000, up: 300 });
  samePrice = await createPlanVersion(db, kit.main.id, { name: 'Twin 500', priceCents: 4499, down: 500, up: 500 });
  const retired = await createPlanVersion(db, kit.main.id, { name: 'Retired', priceCents: 1999 });
  await db.updateTable('plan_versions').set({ active: false }).where('id', '=', retired.id).execute();
  await createPlanVersion(db, kit.main.id, { name: 'Dollar plan', priceCents: 5000, currency: 'USD' });
  await createPlanVersion(db, kit.other.id, { name: 'Other provider', priceCents: 3000 });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const options = (customerId: string, subscriptionId: string, session: string | null) =>
  kit.call('GET', `/agent/customers/${customerId}/plan-options?subscription_id=${subscriptionId}`, { session });

describe('GET /agent/customers/{customerId}/plan-options', () => {
  it("lists the provider's active plans in the subscription's currency, the current one excluded, cheapest first, with speeds and direction", async () => {
    const r = await options(c.id, c.subscriptionId, c.session);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      subscription_id: c.subscriptionId,
      subscription_status: 'ACTIVE',
      can_change_plan: true,
      current_plan: {
        plan_version_id: c.plan.id,
        name: 'Fibre 250',
        download_mbps: 250,
        upload_mbps: 50,
        monthly_price: '44.99',
        currency: 'EUR',
      },
      plans: [
        {
          plan_version_id: basic.id,
          name: 'Basic 100',
          download_mbps: 100,
          upload_mbps: 20,
          monthly_price: '29.99',
          currency: 'EUR',
          change: 'downgrade',
        },
        {
          plan_version_id: samePrice.id,
          name: 'Twin 500',
          download_mbps: 500,
          upload_mbps: 500,
          monthly_price: '44.99',
          currency: 'EUR',
          change: 'same_price',
        },
        {
          plan_version_id: faster.id,
          name: 'Faster 1000',
          download_mbps: 1000,
          upload_mbps: 300,
          monthly_price: '69.99',
          currency: 'EUR',
          change: 'upgrade',
        },
      ],
    });
  });

  it('a listed plan_version_id is what the preview takes (200), and nothing changed', async () => {
    const r = await options(c.id, c.subscriptionId, c.session);
    const upgrade = r.body.plans.find((p: { change: string }) => p.change === 'upgrade');
    const p = await kit.call('POST', `/agent/customers/${c.id}/plan-change/preview`, {
      session: c.session,
      payload: { subscription_id: c.subscriptionId, plan_version_id: upgrade.plan_version_id },
    });
    expect(p.status).toBe(200);
    expect(p.body.new_plan.plan_version_id).toBe(faster.id);
    const sub = await kit.t.db
      .selectFrom('subscriptions')
      .select('plan_version_id')
      .where('id', '=', c.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.plan_version_id).toBe(c.plan.id);
    expect(await kit.t.db.selectFrom('plan_changes').select('id').where('subscription_id', '=', c.subscriptionId).execute()).toEqual([]);
  });

  it('needs a verified session of this customer (401), and answers 404 for a subscription that is not theirs', async () => {
    expectError(await options(c.id, c.subscriptionId, null), 401, 'verification_required');
    const stranger = await seedCustomer(kit, { firstName: 'Stan', lastName: 'Stranger' });
    expectError(await options(c.id, stranger.subscriptionId, c.session), 404, 'not_found');
    // the session of one customer does not read another's options
    expectError(await options(stranger.id, stranger.subscriptionId, c.session), 403, 'session_customer_mismatch');
    const bad = await kit.call('GET', `/agent/customers/${c.id}/plan-options?subscription_id=nope`, { session: c.session });
    expectError(bad, 400, 'validation_error');
  });

  it('a suspended subscription lists its options with can_change_plan false', async () => {
    const s = await seedCustomer(kit, { firstName: 'Susi', lastName: 'Suspended', status: 'SUSPENDED' });
    const session = await verify(kit, s);
    const r = await options(s.id, s.subscriptionId, session);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ subscription_status: 'SUSPENDED', can_change_plan: false });
  });
});
