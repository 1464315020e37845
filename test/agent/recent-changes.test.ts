// Undo the agent can see (issue 31 §3): recent changes with whether each can still be undone and
// until when, a resend of the confirmation mail to the address that received it, and a
// plan_change_limit 409 that says when the next change is possible and points at the undo link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/lib/crypto.js';
import { ROLLBACK_PATH } from '../../src/mail/links.js';
import { createPlanVersion } from '../helpers/factories.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let c: SeededCustomer & { session: string };
let faster: { id: string };

beforeAll(async () => {
  kit = await setupAgent();
  const seeded = await seedCustomer(kit, { firstName: 'Rita', lastName: 'Recent', email: 'rita.old@example.com' });
  c = { ...seeded, session: await verify(kit, seeded) };
  faster = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Faster 1000', priceCents: 6999 });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const recent = () => kit.call('GET', `/agent/customers/${c.id}/recent-changes`, { session: c.session });
const resend = (changeId: string) =>
  kit.call('POST', `/agent/customers/${c.id}/recent-changes/${changeId}/resend-confirmation`, { session: c.session });
const links = () => kit.t.db.selectFrom('rollback_links').selectAll().where('subscriber_id', '=', c.id).orderBy('created_at').execute();

describe('recent changes and their undo links', () => {
  it('after a plan change and a contact change, lists both newest first: undoable until 24 hours after, and where the mail went', async () => {
    const applied = await kit.call('POST', `/agent/customers/${c.id}/plan-change`, {
      session: c.session,
      payload: { subscription_id: c.subscriptionId, plan_version_id: faster.id, confirm: true },
    });
    expect(applied.status).toBe(200);
    kit.t.clock.advance(60_000);
    const edited = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, {
      session: c.session,
      payload: { email: 'rita.new@example.com' },
    });
    expect(edited.status).toBe(200);
    const r = await recent();
    expect(r.status).toBe(200);
    const [contact, plan] = r.body.changes;
    expect(r.body.changes).toHaveLength(2);
    expect(contact).toMatchObject({
      kind: 'contact',
      summary: 'Contract contact changed: email',
      undo_state: 'available',
      can_undo: true,
      confirmation_sent_to_masked: 'r***@e***.com',
    });
    expect(plan).toMatchObject({
      kind: 'plan',
      summary: `Plan changed from Fibre 250 to Faster 1000`,
      undo_state: 'available',
      can_undo: true,
      undo_until: '2026-11-17T10:00:00.000Z',
      changed_at: '2026-11-16T10:00:00.000Z',
    });
    // the contact link's mail went to the address held before the change
    const rows = await links();
    expect(rows.map((l) => l.mailed_to)).toEqual(['rita.old@example.com', 'rita.old@example.com']);
  });

  it('a second plan change the same day: 409 plan_change_limit with when the next change is possible, in UTC and local time, and the undo link', async () => {
    const r = await kit.call('POST', `/agent/customers/${c.id}/plan-change/preview`, {
      session: c.session,
      payload: { subscription_id: c.subscriptionId, plan_version_id: c.plan.id },
    });
    expectError(r, 409, 'plan_change_limit');
    expect(r.body.error).toMatchObject({
      next_change_at: '2026-11-17T00:00:00.000Z',
      next_change_local: '2026-11-17 01:00 (Europe/Berlin)',
    });
    expect(r.body.error.message).toMatch(/Next step: .*undo link in its confirmation mail/);
    const a = await kit.call('POST', `/agent/customers/${c.id}/plan-change`, {
      session: c.session,
      payload: { subscription_id: c.subscriptionId, plan_version_id: c.plan.id, confirm: true },
    });
    expectError(a, 409, 'plan_change_limit');
    expect(a.body.error.next_change_at).toBe('2026-11-17T00:00:00.000Z');
  });

  it('resends the plan confirmation to the address that received it (not the new one) with a fresh link; the old link stops working', async () => {
    const planLink = (await links())[0]!;
    const sent = await resend(planLink.id);
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({
      sent: true,
      change_id: planLink.id,
      destination_masked: 'r***@e***.com',
      undo_until: '2026-11-17T10:00:00.000Z',
    });
    await kit.t.deps.jobs.drain();
    const mails = kit.sink.messages.filter((m) => m.tag === 'plan_change_confirmation');
    expect(mails.map((m) => m.to)).toEqual([['rita.old@example.com'], ['rita.old@example.com']]);
    const token = decodeURIComponent(new RegExp(`${ROLLBACK_PATH}/([^\\s"<&?)\\]]+)`).exec(mails[1]!.text)![1]!);
    kit.mailedSecrets.add(token);
    const after = (await links())[0]!;
    expect(Buffer.from(after.token_hash).equals(Buffer.from(planLink.token_hash))).toBe(false);
    expect(Buffer.from(after.token_hash).equals(sha256(token))).toBe(true);
    expect(after.expires_at).toEqual(planLink.expires_at);
    const audit = await kit.t.db.selectFrom('audit_entries').selectAll().where('action', '=', 'agent.change_confirmation.resend').execute();
    expect(audit).toHaveLength(1);
  });

  it('after 24 hours the change shows expired and a resend answers 409 conflict, sending nothing; an unknown change is 404', async () => {
    kit.t.clock.advance(25 * 3600_000);
    const session = await verify(kit, { id: c.id, email: 'rita.new@example.com' });
    c.session = session;
    const r = await recent();
    expect(r.body.changes.map((x: { undo_state: string; can_undo: boolean }) => [x.undo_state, x.can_undo])).toEqual([
      ['expired', false],
      ['expired', false],
    ]);
    const before = kit.sink.messages.length;
    expectError(await resend(r.body.changes[1].change_id), 409, 'conflict');
    expectError(await resend('00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    await kit.t.deps.jobs.drain();
    expect(kit.sink.messages.filter((m) => m.tag === 'plan_change_confirmation')).toHaveLength(2);
    expect(kit.sink.messages.length).toBeGreaterThanOrEqual(before);
  });

  it('needs a verified session', async () => {
    expectError(await kit.call('GET', `/agent/customers/${c.id}/recent-changes`), 401, 'verification_required');
  });
});
