import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlanVersion } from '../helpers/factories.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import { expectNoLeaks, seedCustomer, setupAgent, type AgentKit } from '../agent/helpers.js';
import { createVerifiedSession, setMonthRecords } from './fixtures.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent();
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});
afterEach(() => kit.t.clock.set('2026-11-16T10:00:00.000Z'));

async function verified(o: Parameters<typeof seedCustomer>[1] = {}) {
  const c = await seedCustomer(kit, o);
  return { ...c, session: await createVerifiedSession(kit.t.db, kit.main.id, c.id, kit.t.clock.now(), 30 * 24 * 3600_000) };
}
type Customer = Awaited<ReturnType<typeof verified>>;

/** The rollback token in the newest confirmation mail of this tag to this address (read from the SMTP sink). */
async function mailedRollback(to: string, tag: 'contact_change_confirmation' | 'plan_change_confirmation', skip = 0) {
  await kit.t.deps.jobs.drain();
  const mine = () => kit.sink.messages.filter((m) => m.to.includes(to.toLowerCase()) && m.tag === tag);
  await kit.sink.waitFor(() => mine().length > skip);
  const message = mine()[mine().length - 1]!;
  const m = /\/rollback\/([A-Za-z0-9_%-]+)/.exec(message.text);
  expect(m, message.text).not.toBeNull();
  const token = decodeURIComponent(m![1]!);
  expect(message.html).toContain(`/rollback/${m![1]}`);
  kit.mailedSecrets.add(token);
  return { token, message };
}

const page = (method: 'GET' | 'POST', token: string) =>
  kit.t.app.inject({
    method,
    url: `/rollback/${encodeURIComponent(token)}`,
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'confirm=yes' } : {}),
  });
const subscriber = (id: string) => kit.t.db.selectFrom('subscribers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const linkOf = (subscriberId: string) =>
  kit.t.db.selectFrom('rollback_links').selectAll().where('subscriber_id', '=', subscriberId).orderBy('created_at').execute();
const audits = (entityId: string, action: string) =>
  kit.t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', entityId).where('action', '=', action).execute();
const editContact = (c: Customer, payload: Record<string, unknown>) =>
  kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session: c.session, payload });

describe('rollback link after an /agent contact edit', () => {
  it('the confirmation mail goes to the email on file before the edit; GET shows a form and changes nothing; POST restores, audits and uses the link', async () => {
    const c = await verified({
      firstName: 'Rita',
      lastName: 'Rollback',
      email: `rita.${Date.now()}@example.com`,
      phone: '+49 151 11112222',
    });
    const before = await subscriber(c.id);
    const r = await editContact(c, { last_name: 'Changed', email: `new.${before.email}`, phone: '+49 151 33334444' });
    expect(r.status).toBe(200);
    const { token, message } = await mailedRollback(before.email, 'contact_change_confirmation');
    expect(message.text).toContain('last name, email address, phone number');

    const g = await page('GET', token);
    expect(g.statusCode).toBe(200);
    expectPageHeaders(g, { token: true });
    expect(g.body).toContain('<form method="post"');
    expect((await linkOf(c.id))[0]!.used_at).toBeNull();
    expect((await subscriber(c.id)).last_name).toBe('Changed');

    const p = await page('POST', token);
    expect(p.statusCode).toBe(200);
    expectPageHeaders(p, { token: true });
    expect(p.body).toContain('Change undone');
    const after = await subscriber(c.id);
    expect({ last_name: after.last_name, email: after.email, phone: after.phone, phone_e164: after.phone_e164 }).toEqual({
      last_name: before.last_name,
      email: before.email,
      phone: before.phone,
      phone_e164: before.phone_e164,
    });
    expect((await linkOf(c.id))[0]!.used_at).not.toBeNull();
    const [audit] = await audits(c.id, 'customer.contact.rollback');
    expect(audit).toMatchObject({ actor_type: 'system', actor: 'rollback_link', request_id: p.headers['x-request-id'] });

    const again = await page('POST', token);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already used');
    expect((await page('GET', token)).statusCode).toBe(410);
  });

  it('a link whose field was edited again by a later /agent edit undoes both: the first value returns and the later link is used (issue 30 §3)', async () => {
    const c = await verified({ firstName: 'Anna' });
    expect((await editContact(c, { first_name: 'Berta' })).status).toBe(200);
    const first = await mailedRollback(c.email, 'contact_change_confirmation');
    expect((await editContact(c, { first_name: 'Carla' })).status).toBe(200);
    const second = await mailedRollback(c.email, 'contact_change_confirmation', 1);
    const g = await page('GET', first.token);
    expect(g.statusCode).toBe(200);
    expect((await subscriber(c.id)).first_name).toBe('Carla');
    expect((await page('POST', first.token)).statusCode).toBe(200);
    expect((await subscriber(c.id)).first_name).toBe('Anna');
    const links = await linkOf(c.id);
    expect(links.map((l) => l.used_at !== null)).toEqual([true, true]);
    expect((await page('POST', second.token)).statusCode).toBe(410);
    expect((await subscriber(c.id)).first_name).toBe('Anna');
    const [audit] = await audits(c.id, 'customer.contact.rollback');
    expect(audit!.after).toMatchObject({ first_name: 'Anna', undone_later_links: [links[1]!.id] });
  });

  it("the hijack chain: email changed to mallory.one, then to mallory.two; the undo link mailed to the victim restores the victim's email and uses the link mailed to mallory.one", async () => {
    const victim = `victim.${Date.now()}@example.com`;
    const c = await verified({ firstName: 'Vera', email: victim, phone: '+49 151 55556666' });
    const one = `mallory.one.${Date.now()}@example.net`;
    const two = `mallory.two.${Date.now()}@example.net`;
    expect((await editContact(c, { email: one })).status).toBe(200);
    const toVictim = await mailedRollback(victim, 'contact_change_confirmation');
    expect((await editContact(c, { email: two, phone: '+49 151 99990000' })).status).toBe(200);
    const toMallory = await mailedRollback(one, 'contact_change_confirmation');
    expect((await subscriber(c.id)).email).toBe(two);

    const g = await page('GET', toVictim.token);
    expect(g.statusCode).toBe(200);
    expect(g.body).toContain('email address');
    const p = await page('POST', toVictim.token);
    expect(p.statusCode).toBe(200);
    const after = await subscriber(c.id);
    // What the victim had before the first edit, every field the chain changed.
    expect({ email: after.email, phone: after.phone }).toEqual({ email: victim, phone: '+49 151 55556666' });
    expect((await page('POST', toMallory.token)).statusCode).toBe(410);
    expect((await subscriber(c.id)).email).toBe(victim);
  });

  it('a change by another path since (no link of its own) breaks the chain: 409, nothing changes, the link stays unused', async () => {
    const c = await verified({ firstName: 'Dana' });
    expect((await editContact(c, { first_name: 'Edda' })).status).toBe(200);
    const first = await mailedRollback(c.email, 'contact_change_confirmation');
    // e.g. the operator corrected the name in the database
    await kit.t.db.updateTable('subscribers').set({ first_name: 'Frida' }).where('id', '=', c.id).execute();
    expect((await page('GET', first.token)).statusCode).toBe(409);
    expect((await page('POST', first.token)).statusCode).toBe(409);
    expect((await subscriber(c.id)).first_name).toBe('Frida');
    expect((await linkOf(c.id))[0]!.used_at).toBeNull();
  });

  it('after 24 hours the link answers 410 expired and changes nothing; an unknown link 404; an unchanged edit mails nothing', async () => {
    const c = await verified({ firstName: 'Dora' });
    expect((await editContact(c, { first_name: 'Doris' })).status).toBe(200);
    const { token } = await mailedRollback(c.email, 'contact_change_confirmation');
    kit.t.clock.advance(24 * 3600_000 + 1000);
    const g = await page('GET', token);
    expect(g.statusCode).toBe(410);
    expect(g.body).toContain('expired');
    expect((await page('POST', token)).statusCode).toBe(410);
    expect((await subscriber(c.id)).first_name).toBe('Doris');
    const unknown = await page('GET', 'x'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expectPageHeaders(unknown, { token: true });

    const links = (await linkOf(c.id)).length;
    expect((await editContact(c, { first_name: 'Doris' })).status).toBe(200);
    expect((await linkOf(c.id)).length).toBe(links);
  });
});

describe('rollback link after an /agent plan change', () => {
  async function planCustomer() {
    const c = await verified();
    await setMonthRecords(kit.t.db, kit.main.id, c.id, c.subscriptionId, '2026-11-01', 'invoiced');
    const faster = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Fibre 1000', priceCents: 4999 });
    return { ...c, faster };
  }
  const changePlan = async (c: Customer, planVersionId: string) => {
    const body = { subscription_id: c.subscriptionId, plan_version_id: planVersionId };
    const p = await kit.call('POST', `/agent/customers/${c.id}/plan-change/preview`, { session: c.session, payload: body });
    expect(p.status).toBe(200);
    return kit.call('POST', `/agent/customers/${c.id}/plan-change`, {
      session: c.session,
      payload: { ...body, confirm: true, quote_token: p.body.quote_token },
    });
  };
  const planOf = async (id: string) =>
    (await kit.t.db.selectFrom('subscriptions').select('plan_version_id').where('id', '=', id).executeTakeFirstOrThrow()).plan_version_id;
  const changes = (id: string) =>
    kit.t.db.selectFrom('plan_changes').selectAll().where('subscription_id', '=', id).orderBy('created_at').orderBy('source').execute();

  it("the same day: restores the plan, reverses the upgrade line with the billing engine's credit, audits, uses the link; the day's limit still holds", async () => {
    const c = await planCustomer();
    const r = await changePlan(c, c.faster.id);
    expect(r.status).toBe(200);
    expect(r.body.one_time_adjustment).toMatchObject({ type: 'next_invoice_line', amount: '5.00' });
    const { token, message } = await mailedRollback(c.email, 'plan_change_confirmation');
    expect(message.text).toContain('Fibre 1000');
    expect(message.text).toContain('5.00 EUR added to your next invoice');

    const g = await page('GET', token);
    expect(g.statusCode).toBe(200);
    expect(g.body).toContain('Return from Fibre 1000');
    expect(await planOf(c.subscriptionId)).toBe(c.faster.id);

    const p = await page('POST', token);
    expect(p.statusCode).toBe(200);
    expect(await planOf(c.subscriptionId)).toBe(c.plan.id);
    const [original, rollback] = await changes(c.subscriptionId);
    expect(original).toMatchObject({ source: 'agent', adjustment_type: 'next_invoice_line', adjustment_cents: 500 });
    expect(rollback).toMatchObject({
      source: 'rollback',
      rolls_back_plan_change_id: original!.id,
      from_plan_version_id: c.faster.id,
      to_plan_version_id: c.plan.id,
      adjustment_type: 'credit',
      adjustment_cents: -500,
      change_date: '2026-11-16',
    });
    const notes = await kit.t.db.selectFrom('credit_notes').selectAll().where('plan_change_id', '=', rollback!.id).execute();
    expect(notes).toEqual([expect.objectContaining({ amount_cents: 500, state: 'open' })]);
    expect(await audits(c.subscriptionId, 'subscription.plan_change_rollback')).toEqual([
      expect.objectContaining({ actor_type: 'system', actor: 'rollback_link', request_id: p.headers['x-request-id'] }),
    ]);
    expect((await linkOf(c.id))[0]!.used_at).not.toBeNull();
    // No second confirmation mail (a rollback sends none), and the undone change still counts for today.
    expect((await page('POST', token)).statusCode).toBe(410);
    const again = await kit.call('POST', `/agent/customers/${c.id}/plan-change/preview`, {
      session: c.session,
      payload: { subscription_id: c.subscriptionId, plan_version_id: c.faster.id },
    });
    expect(again.body.error.code).toBe('plan_change_limit');
  });

  it('the plan changed again since (next day, within 24 hours): 409, nothing changes', async () => {
    const c = await planCustomer();
    expect((await changePlan(c, c.faster.id)).status).toBe(200);
    const { token } = await mailedRollback(c.email, 'plan_change_confirmation');
    kit.t.clock.set('2026-11-17T08:00:00Z');
    const third = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Fibre 2000', priceCents: 5999 });
    expect((await changePlan(c, third.id)).status).toBe(200);
    expect((await page('GET', token)).statusCode).toBe(409);
    const p = await page('POST', token);
    expect(p.statusCode).toBe(409);
    expect(await planOf(c.subscriptionId)).toBe(third.id);
    expect((await changes(c.subscriptionId)).map((x) => x.source)).toEqual(['agent', 'agent']);
  });

  it("the next day, within 24 hours: the rollback is a change of that day (not refused by the day's limit, not counted by it)", async () => {
    const c = await planCustomer();
    expect((await changePlan(c, c.faster.id)).status).toBe(200);
    const { token } = await mailedRollback(c.email, 'plan_change_confirmation');
    kit.t.clock.set('2026-11-17T08:00:00Z');
    expect((await page('POST', token)).statusCode).toBe(200);
    expect(await planOf(c.subscriptionId)).toBe(c.plan.id);
    const rollback = (await changes(c.subscriptionId))[1];
    // 14 days of November at -10.00 / 30: the day spent on the faster plan stays billed.
    expect(rollback).toMatchObject({ source: 'rollback', change_date: '2026-11-17', adjustment_type: 'credit', adjustment_cents: -467 });
    expect((await changePlan(c, c.faster.id)).status).toBe(200);
  });
});
