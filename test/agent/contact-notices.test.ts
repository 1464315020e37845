// Contact changes the caller can trust (issue 31 §4): every change notice goes to the address that
// held the changed value before the change, whatever order the two contacts are changed in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit } from './helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent();
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

async function customer(email: string, invoiceEmail: string | null) {
  const c = await seedCustomer(kit, { lastName: 'Notice', email });
  if (invoiceEmail) await kit.t.db.updateTable('subscribers').set({ invoice_email: invoiceEmail }).where('id', '=', c.id).execute();
  return { ...c, session: await verify(kit, c) };
}
const patch = (c: { id: string; session: string }, payload: object) =>
  kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session: c.session, payload });
async function noticesTo() {
  await kit.t.deps.jobs.drain();
  return kit.sink.messages.filter((m) => m.tag === 'contact_change_confirmation').map((m) => m.to[0]);
}

describe('contact change notices go to the address that held the changed value', () => {
  it('contract email, then invoice email: each notice to its own old address, none to the one just set', async () => {
    const c = await customer('a.old@example.com', 'inv.old@example.com');
    const before = (await noticesTo()).length;
    const r1 = await patch(c, { email: 'a.new@example.com' });
    expect(r1.status).toBe(200);
    expect(r1.body.confirmation_sent_to_masked).toBe('a***@e***.com');
    const r2 = await patch(c, { contact_type: 'invoice', email: 'inv.new@example.com' });
    expect(r2.status).toBe(200);
    expect((await noticesTo()).slice(before)).toEqual(['a.old@example.com', 'inv.old@example.com']);
    const links = await kit.t.db
      .selectFrom('rollback_links')
      .select('mailed_to')
      .where('subscriber_id', '=', c.id)
      .orderBy('created_at')
      .execute();
    expect(links.map((l) => l.mailed_to)).toEqual(['a.old@example.com', 'inv.old@example.com']);
  });

  it('no invoice email of its own: the invoice notice goes to the contract email as it was before the agent changed it', async () => {
    const c = await customer('b.old@example.com', null);
    const before = (await noticesTo()).length;
    expect((await patch(c, { email: 'b.new@example.com' })).status).toBe(200);
    const r = await patch(c, { contact_type: 'invoice', email: 'b.invoice@example.com' });
    expect(r.status).toBe(200);
    expect(r.body.confirmation_sent_to_masked).toBe('b***@e***.com');
    expect((await noticesTo()).slice(before)).toEqual(['b.old@example.com', 'b.old@example.com']);
    const row = await kit.t.db
      .selectFrom('subscribers')
      .select(['email', 'invoice_email'])
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email: 'b.new@example.com', invoice_email: 'b.invoice@example.com' });
  });

  it('the other order (invoice first, then contract) reaches the old addresses too', async () => {
    const c = await customer('d.old@example.com', 'dinv.old@example.com');
    const before = (await noticesTo()).length;
    expect((await patch(c, { contact_type: 'invoice', email: 'dinv.new@example.com' })).status).toBe(200);
    expect((await patch(c, { email: 'd.new@example.com' })).status).toBe(200);
    expect((await noticesTo()).slice(before)).toEqual(['dinv.old@example.com', 'd.old@example.com']);
  });
});
