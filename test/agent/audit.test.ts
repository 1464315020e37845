// Every /agent write of this surface records an audit entry IN THE SAME TRANSACTION as the write
// (actor = the API-key prefix, the request id): when the audit insert fails, the write is undone.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvoice } from '../helpers/factories.js';
import {
  codeFromMail,
  expectError,
  expectNoLeaks,
  seedCustomer,
  setupAgent,
  verify,
  type AgentKit,
  type SeededCustomer,
} from './helpers.js';

let kit: AgentKit;
let c: SeededCustomer;
let session: string;
let invoiceId: string;

beforeAll(async () => {
  kit = await setupAgent();
  c = await seedCustomer(kit, { login: 'active' });
  session = await verify(kit, c);
  invoiceId = (await createInvoice(kit.t.db, { providerId: kit.main.id, subscriberId: c.id })).id;
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

interface WriteCase {
  action: string;
  call: () => ReturnType<AgentKit['call']>;
}

const WRITES: WriteCase[] = [
  { action: 'agent.verify.issue', call: () => kit.call('POST', '/agent/verify/issue', { payload: { customer_id: c.id } }) },
  { action: 'agent.verify.check', call: () => kit.call('POST', '/agent/verify/check', { payload: { customer_id: c.id, code: '000000' } }) },
  {
    action: 'agent.contact.update',
    call: () => kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session, payload: { last_name: 'Audited' } }),
  },
  {
    action: 'agent.portal_link.password_reset',
    call: () => kit.call('POST', `/agent/customers/${c.id}/password-reset`, { session, payload: { action: 'password_reset' } }),
  },
  { action: 'agent.invoice.resend', call: () => kit.call('POST', `/agent/customers/${c.id}/invoices/${invoiceId}/resend`, { session }) },
  {
    action: 'agent.note.create',
    call: () => kit.call('POST', `/agent/customers/${c.id}/notes`, { session, payload: { note: 'audited note' } }),
  },
  {
    action: 'agent.ticket.create',
    call: () =>
      kit.call('POST', '/agent/tickets', {
        payload: { customer_id: c.id, priority: 'low', ai_summary: 'audited ticket', transcript: 'audited transcript' },
      }),
  },
];

/** Everything an /agent write can leave behind for this customer. */
async function footprint() {
  const db = kit.t.db;
  const count = async (q: Promise<unknown[]>) => (await q).length;
  const code = await db.selectFrom('verification_codes').select(['attempts', 'superseded']).where('subscriber_id', '=', c.id).execute();
  return {
    codes: JSON.stringify(code),
    sessions: await count(db.selectFrom('verified_sessions').select('id').where('subscriber_id', '=', c.id).execute()),
    subscriber: JSON.stringify(
      await db.selectFrom('subscribers').select(['last_name', 'updated_at']).where('id', '=', c.id).executeTakeFirst(),
    ),
    links: await count(db.selectFrom('link_tokens').select('id').where('subscriber_id', '=', c.id).execute()),
    notes: await count(db.selectFrom('customer_notes').select('id').where('subscriber_id', '=', c.id).execute()),
    tickets: await count(db.selectFrom('tickets').select('id').where('subscriber_id', '=', c.id).execute()),
    comments: await count(db.selectFrom('ticket_comments').select('id').execute()),
    jobs: await count(db.selectFrom('jobs').select('id').execute()),
    audits: await count(db.selectFrom('audit_entries').select('id').execute()),
  };
}

describe('audit trail of /agent writes', () => {
  it('when the audit entry cannot be written, the write itself is rolled back (500 internal_error): it is not fire-and-forget', async () => {
    await kit.call('POST', '/agent/verify/issue', { payload: { customer_id: c.id } }); // an outstanding code for the check case
    await sql`CREATE FUNCTION agent_test_fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit store down'; END $$`.execute(
      kit.t.db,
    );
    await sql`CREATE TRIGGER agent_test_fail_audit BEFORE INSERT ON audit_entries FOR EACH ROW WHEN (NEW.action LIKE 'agent.%') EXECUTE FUNCTION agent_test_fail_audit()`.execute(
      kit.t.db,
    );
    try {
      for (const w of WRITES) {
        const before = await footprint();
        const r = await w.call();
        expect({ action: w.action, status: r.status, code: r.body?.error?.code }).toEqual({
          action: w.action,
          status: 500,
          code: 'internal_error',
        });
        expect({ action: w.action, after: await footprint() }).toEqual({ action: w.action, after: before });
      }
    } finally {
      await sql`DROP TRIGGER agent_test_fail_audit ON audit_entries`.execute(kit.t.db);
      await sql`DROP FUNCTION agent_test_fail_audit()`.execute(kit.t.db);
    }
  });

  it('each write records one entry: action, entity, actor = API-key prefix, the request id', async () => {
    for (const w of WRITES) {
      const r = await w.call();
      expect(r.status).toBeLessThan(500);
      const rows = await kit.t.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('request_id', '=', String(r.headers['x-request-id']))
        .execute();
      expect({
        action: w.action,
        rows: rows.map((a) => ({ action: a.action, actor_type: a.actor_type, actor: a.actor, provider_id: a.provider_id })),
      }).toEqual({
        action: w.action,
        rows: [{ action: w.action, actor_type: 'api_key', actor: kit.main.keyPrefix, provider_id: kit.main.id }],
      });
    }
  });

  it("a wrong code's attempt and its audit entry commit together even though the request fails", async () => {
    const d = await seedCustomer(kit);
    await kit.call('POST', '/agent/verify/issue', { payload: { customer_id: d.id } });
    const { code } = await codeFromMail(kit, d.email);
    const bad = String((Number(code) + 7) % 1_000_000).padStart(6, '0');
    const r = await kit.call('POST', '/agent/verify/check', { payload: { customer_id: d.id, code: bad } });
    expectError(r, 401, 'invalid_code');
    const [row] = await kit.t.db.selectFrom('verification_codes').select('attempts').where('subscriber_id', '=', d.id).execute();
    expect(row!.attempts).toBe(1);
    const [a] = await kit.t.db
      .selectFrom('audit_entries')
      .selectAll()
      .where('request_id', '=', String(r.headers['x-request-id']))
      .execute();
    expect(a).toMatchObject({ action: 'agent.verify.check', after: expect.objectContaining({ result: 'invalid_code', attempts: 1 }) });
  });
});
