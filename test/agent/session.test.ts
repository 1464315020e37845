// Guarantees 1 and 3 of agent-surface.md on every customer route of the /agent surface:
// provider scoping (another provider's customer is indistinguishable from an unknown id) and
// verification gating (the session must be live and belong to exactly this customer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../src/lib/ids.js';
import { createInvoice } from '../helpers/factories.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let mine: SeededCustomer;
let sibling: SeededCustomer;
let foreign: SeededCustomer;
let invoiceId: string;
let mySession: string;
let siblingSession: string;
let foreignSession: string;

interface RouteCase {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: (customerId: string) => string;
  payload?: unknown;
  ok: number;
}

const ROUTES: RouteCase[] = [
  { name: 'profile', method: 'GET', path: (id) => `/agent/customers/${id}`, ok: 200 },
  { name: 'billing-summary', method: 'GET', path: (id) => `/agent/customers/${id}/billing-summary`, ok: 200 },
  { name: 'payments', method: 'GET', path: (id) => `/agent/customers/${id}/payments`, ok: 200 },
  { name: 'network-health', method: 'GET', path: (id) => `/agent/customers/${id}/network-health`, ok: 200 },
  { name: 'tickets', method: 'GET', path: (id) => `/agent/customers/${id}/tickets`, ok: 200 },
  { name: 'contact', method: 'PATCH', path: (id) => `/agent/customers/${id}/contact`, payload: { first_name: 'Changed' }, ok: 200 },
  {
    name: 'password-reset',
    method: 'POST',
    path: (id) => `/agent/customers/${id}/password-reset`,
    payload: { action: 'password_reset' },
    ok: 202,
  },
  { name: 'invoice resend', method: 'POST', path: (id) => `/agent/customers/${id}/invoices/${invoiceId}/resend`, ok: 202 },
  { name: 'notes', method: 'POST', path: (id) => `/agent/customers/${id}/notes`, payload: { note: 'gating test note' }, ok: 201 },
];

const WRITE_ACTIONS = ['agent.contact.update', 'agent.portal_link.password_reset', 'agent.invoice.resend', 'agent.note.create'];

async function writesOf(customerId: string) {
  const db = kit.t.db;
  const [audits, notes, sub, jobs] = await Promise.all([
    db.selectFrom('audit_entries').select('id').where('action', 'in', WRITE_ACTIONS).where('entity_id', '=', customerId).execute(),
    db.selectFrom('customer_notes').select('id').where('subscriber_id', '=', customerId).execute(),
    db.selectFrom('subscribers').select(['first_name', 'updated_at']).where('id', '=', customerId).executeTakeFirstOrThrow(),
    db.selectFrom('link_tokens').select('id').where('subscriber_id', '=', customerId).execute(),
  ]);
  return { audits: audits.length, notes: notes.length, first_name: sub.first_name, links: jobs.length };
}

beforeAll(async () => {
  kit = await setupAgent();
  mine = await seedCustomer(kit, { firstName: 'Gated', login: 'active' });
  sibling = await seedCustomer(kit, { firstName: 'Sibling' });
  foreign = await seedCustomer(kit, { provider: kit.other, firstName: 'Foreign', login: 'active' });
  invoiceId = (await createInvoice(kit.t.db, { providerId: kit.main.id, subscriberId: mine.id, subscriptionId: mine.subscriptionId })).id;
  mySession = await verify(kit, mine);
  siblingSession = await verify(kit, sibling);
  foreignSession = await verify(kit, foreign, kit.other.apiKey);
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe.each(ROUTES)('$method $name', (route) => {
  it("another provider's customer answers 404 customer_not_found exactly like an unknown or malformed id, before any session check", async () => {
    const before = await writesOf(foreign.id);
    const answers = [];
    for (const id of [foreign.id, newId(), 'not-a-uuid', 'ABCD-1234']) {
      for (const session of [undefined, mySession, foreignSession]) {
        const r = await kit.call(route.method, route.path(id), { session, payload: route.payload });
        expectError(r, 404, 'customer_not_found');
        answers.push({ ...r.body.error, request_id: null });
      }
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(await writesOf(foreign.id)).toEqual(before);
  });

  it("the other provider's key with its own verified session cannot reach this provider's customer (404)", async () => {
    const r = await kit.call(route.method, route.path(mine.id), { key: kit.other.apiKey, session: foreignSession, payload: route.payload });
    expectError(r, 404, 'customer_not_found');
  });

  it('without X-Verified-Session answers 401 verification_required and changes nothing', async () => {
    const before = await writesOf(mine.id);
    expectError(await kit.call(route.method, route.path(mine.id), { payload: route.payload }), 401, 'verification_required');
    expect(await writesOf(mine.id)).toEqual(before);
  });

  it('an unknown or malformed session answers 401 session_invalid', async () => {
    const before = await writesOf(mine.id);
    for (const session of ['garbage', `vs_${randomToken(32)}`, mySession.slice(0, -1)]) {
      expectError(await kit.call(route.method, route.path(mine.id), { session, payload: route.payload }), 401, 'session_invalid');
    }
    expect(await writesOf(mine.id)).toEqual(before);
  });

  it("a session of another customer (same provider, or another provider's) answers 403 session_customer_mismatch", async () => {
    const before = await writesOf(mine.id);
    expectError(
      await kit.call(route.method, route.path(mine.id), { session: siblingSession, payload: route.payload }),
      403,
      'session_customer_mismatch',
    );
    expectError(
      await kit.call(route.method, route.path(mine.id), { session: foreignSession, payload: route.payload }),
      403,
      'session_customer_mismatch',
    );
    expect(await writesOf(mine.id)).toEqual(before);
  });

  it("the customer's own live session is accepted", async () => {
    const r = await kit.call(route.method, route.path(mine.id), { session: mySession, payload: route.payload });
    expect(r.status).toBe(route.ok);
  });
});

describe('session lifetime and binding', () => {
  it('an expired session answers 401 session_invalid on every verified route', async () => {
    const c = await seedCustomer(kit);
    const session = await verify(kit, c);
    kit.t.clock.advance(15 * 60_000);
    try {
      for (const route of ROUTES) {
        expectError(await kit.call(route.method, route.path(c.id), { session, payload: route.payload }), 401, 'session_invalid');
      }
    } finally {
      kit.t.clock.set('2026-11-16T10:00:00.000Z');
    }
  });

  it('the session is stored only as a hash, bound to the provider and customer it was issued for', async () => {
    const rows = await kit.t.db.selectFrom('verified_sessions').selectAll().where('subscriber_id', 'in', [mine.id, foreign.id]).execute();
    expect(rows.find((r) => r.subscriber_id === mine.id)).toMatchObject({ provider_id: kit.main.id });
    expect(rows.find((r) => r.subscriber_id === foreign.id)).toMatchObject({ provider_id: kit.other.id });
    expect(JSON.stringify(rows)).not.toContain(mySession);
  });
});
