// Five callers played through the official MCP client (issue 31 §6), each asserting the safe
// outcome and the number of tool calls it took.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuilding, createPlanVersion } from '../helpers/factories.js';
import { setMonthRecords } from '../plan-change/fixtures.js';
import { connectMcp, codeFromMail, expectNoLeaks, seedCustomer, setupAgent, type AgentKit } from './helpers.js';

let kit: AgentKit;
let client: Client;
let calls = 0;

beforeAll(async () => {
  kit = await setupAgent();
  client = await connectMcp(kit, 'five-callers');
});
afterAll(async () => {
  await client.close();
  await expectNoLeaks(kit);
  await kit.close();
});

async function tool(name: string, args: Record<string, unknown> = {}) {
  calls++;
  const r = await client.callTool({ name, arguments: args });
  const data = r.structuredContent as any;
  kit.recorded.push({ method: 'MCP', url: name, status: r.isError ? 0 : 200, body: JSON.stringify(data) });
  return { isError: Boolean(r.isError), data, code: r.isError ? (data?.error?.code as string) : undefined };
}
async function verified(c: { id: string; email: string }) {
  const before = kit.sink.messages.filter((m) => m.to.includes(c.email.toLowerCase()) && m.tag === 'verification_code').length;
  expect((await tool('issue_verification_code', { customer_id: c.id })).isError).toBe(false);
  const { code } = await codeFromMail(kit, c.email, before);
  const r = await tool('check_verification_code', { customer_id: c.id, code });
  expect(r.isError).toBe(false);
  return r.data.verified_session as string;
}
const changes = (subscriptionId: string) =>
  kit.t.db.selectFrom('plan_changes').select('id').where('subscription_id', '=', subscriptionId).execute();

describe('five callers through MCP', () => {
  it('1. an ambiguous name is resolved by the unit, never by picking a match (2 calls)', async () => {
    const b = await createBuilding(kit.t.db, kit.main.id, { street: 'Sonnenweg', houseNumber: '7', units: ['3A', '4B'] });
    await seedCustomer(kit, { firstName: 'Erika', lastName: 'Zwilling', building: b, unit: '3A' });
    const want = await seedCustomer(kit, { firstName: 'Erika', lastName: 'Zwilling', building: b, unit: '4B' });
    calls = 0;
    const first = await tool('search_customers', { q: 'Erika Zwilling' });
    expect(first.data).toMatchObject({ ambiguous: true, match_count: 2 });
    const second = await tool('search_customers', { q: 'Erika Zwilling 4B' });
    expect(second.data).toMatchObject({ ambiguous: false, match_count: 1 });
    expect(second.data.matches[0].customer_id).toBe(want.id);
    expect(calls).toBe(2);
  });

  it('2. a phone number in another format finds the one customer (1 call)', async () => {
    const c = await seedCustomer(kit, { lastName: 'Phoneformat', phone: '+49 151 44445555' });
    calls = 0;
    const r = await tool('search_customers', { q: '0151 4444 5555' });
    expect(r.data.matches.map((m: { customer_id: string }) => m.customer_id)).toEqual([c.id]);
    expect(calls).toBe(1);
  });

  it('3. a caller who fails verification three times gets no data (5 calls, every read refused)', async () => {
    const c = await seedCustomer(kit, { lastName: 'Failsthree' });
    calls = 0;
    expect((await tool('issue_verification_code', { customer_id: c.id })).isError).toBe(false);
    for (let i = 0; i < 3; i++) {
      const r = await tool('check_verification_code', { customer_id: c.id, code: '000000' });
      expect(r.isError).toBe(true);
      expect(['invalid_code', 'too_many_attempts']).toContain(r.code);
    }
    const read = await tool('get_customer_profile', { customer_id: c.id });
    expect(read.code).toBe('verification_required');
    expect(JSON.stringify(read.data)).not.toContain(c.email);
    expect(calls).toBe(5);
  });

  it('4. a second change the same day is refused with when the next is possible; 6. the first can be undone (8 calls)', async () => {
    const c = await seedCustomer(kit, { lastName: 'Twicetoday', priceCents: 3999 });
    await setMonthRecords(kit.t.db, c.provider.id, c.id, c.subscriptionId, '2026-11-01', 'invoiced');
    const faster = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Faster', priceCents: 4999 });
    calls = 0;
    const session = await verified(c);
    const args = { customer_id: c.id, verified_session: session, subscription_id: c.subscriptionId };
    const options = await tool('list_plan_options', args);
    expect(options.data.plans.map((p: { plan_version_id: string }) => p.plan_version_id)).toContain(faster.id);
    const quote = await tool('preview_plan_change', { ...args, plan_version_id: faster.id });
    const applied = await tool('apply_plan_change', {
      ...args,
      plan_version_id: faster.id,
      confirm: true,
      quote_token: quote.data.quote_token,
    });
    expect(applied.data).toMatchObject({ quote_matched: true });
    const again = await tool('preview_plan_change', { ...args, plan_version_id: c.plan.id });
    expect(again.code).toBe('plan_change_limit');
    expect(again.data.error).toMatchObject({ next_change_at: '2026-11-17T00:00:00.000Z' });
    expect(again.data.error.message).toContain('undo link');
    const recent = await tool('list_recent_changes', args);
    expect(recent.data.changes[0]).toMatchObject({ kind: 'plan', can_undo: true });
    const resent = await tool('resend_change_confirmation', { ...args, change_id: recent.data.changes[0].change_id });
    expect(resent.isError).toBe(false);
    expect(await changes(c.subscriptionId)).toHaveLength(1);
    expect(calls).toBe(8);
  });

  it('5. an escalation state: no quote, no apply, a ticket instead (5 calls, nothing changed)', async () => {
    const c = await seedCustomer(kit, { lastName: 'Escalate' });
    await setMonthRecords(kit.t.db, c.provider.id, c.id, c.subscriptionId, '2026-11-01', 'missing_invoice');
    const faster = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Faster E', priceCents: 4999 });
    calls = 0;
    const session = await verified(c);
    const args = { customer_id: c.id, verified_session: session, subscription_id: c.subscriptionId, plan_version_id: faster.id };
    const p = await tool('preview_plan_change', args);
    expect(p.data).toMatchObject({ escalation_required: true, quote_token: null, one_time_adjustment: null });
    const a = await tool('apply_plan_change', { ...args, confirm: true });
    expect(a.code).toBe('quote_required');
    const t = await tool('create_ticket', {
      customer_id: c.id,
      verified_session: session,
      priority: 'normal',
      ai_summary: 'Plan change blocked: billing records incomplete',
    });
    expect(t.isError).toBe(false);
    expect(await changes(c.subscriptionId)).toHaveLength(0);
    expect(calls).toBe(5);
  });
});
