import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf-text.js';
import { resetAllFaults } from '../../src/adapters/index.js';
import { bearerFor, customer, insertCreditNote } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterEach(() => resetAllFaults(t.deps.adapters));
afterAll(() => t.close());

async function withNotes() {
  const c = await customer(t);
  const base = { providerId: c.provider.id, subscriberId: c.subscriber.id, subscriptionId: c.subscription.id };
  const notes = {
    open: await insertCreditNote(t, { ...base, state: 'open', amountCents: 1250, issuedAt: '2026-11-02T10:00:00Z' }),
    refunded: await insertCreditNote(t, { ...base, state: 'refunded', amountCents: 500, issuedAt: '2026-09-02T10:00:00Z' }),
    paidOut: await insertCreditNote(t, { ...base, state: 'paid_out', amountCents: 700, issuedAt: '2026-08-02T10:00:00Z' }),
    applied: await insertCreditNote(t, { ...base, state: 'applied', amountCents: 999, issuedAt: '2026-10-02T10:00:00Z' }),
    draft: await insertCreditNote(t, { ...base, state: 'draft', amountCents: 100, issuedAt: '2026-11-10T10:00:00Z' }),
    archived: await insertCreditNote(t, { ...base, state: 'archived', amountCents: 100, issuedAt: '2026-11-11T10:00:00Z' }),
    voided: await insertCreditNote(t, { ...base, state: 'voided', amountCents: 100, issuedAt: '2026-11-12T10:00:00Z' }),
  };
  return { c, notes };
}

describe('GET /subscriber/me/credit-notes', () => {
  it('answers 404 without a subscriber record', async () => {
    const u = await createUser(t.db);
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: await bearerFor(t, { id: u.id }) });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toEqual({ detail: 'No subscriber record for this account' });
  });

  it('lists the notes read live from the billing system, newest first, never drafts, archived or voided, with state and gross amount', async () => {
    const { c, notes } = await withNotes();
    const other = await customer(t, { provider: c.provider });
    await insertCreditNote(t, {
      providerId: c.provider.id,
      subscriberId: other.subscriber.id,
      subscriptionId: other.subscription.id,
      state: 'open',
      amountCents: 1,
      issuedAt: '2026-11-15T10:00:00Z',
    });
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: c.headers });
    expect(r.statusCode).toBe(200);
    const body = r.json();
    expect(body.map((n: { id: string }) => n.id)).toEqual([notes.open.id, notes.applied.id, notes.refunded.id, notes.paidOut.id]);
    expect(body[0]).toEqual({
      id: notes.open.id,
      number: notes.open.number,
      state: 'open',
      amount: '12.50',
      currency: 'EUR',
      reason: 'Plan change Faster → Fast',
      issued_at: '2026-11-02T10:00:00.000Z',
      subscription_id: c.subscription.id,
      pdf_url: `/api/v1/credit-notes/${notes.open.id}/pdf`,
    });
    expect(body.map((n: { state: string }) => n.state)).toEqual(['open', 'applied', 'refunded', 'paid_out']);
  });

  it('reads live: a state changed in the billing system shows on the next call', async () => {
    const { c, notes } = await withNotes();
    await t.db.updateTable('credit_notes').set({ state: 'voided' }).where('id', '=', notes.open.id).execute();
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: c.headers });
    expect(r.json().map((n: { id: string }) => n.id)).not.toContain(notes.open.id);
  });

  it('answers 502 {detail} (never an empty list) when the billing system is unreachable, and lists again once it is back', async () => {
    const { c } = await withNotes();
    t.deps.adapters.billingSystem.faults.set('unreachable');
    const r = await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: c.headers });
    expect(r.statusCode).toBe(502);
    expect(r.json()).toEqual({ detail: expect.stringContaining('billing system is unreachable') });
    t.deps.adapters.billingSystem.faults.set('failing');
    expect((await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: c.headers })).statusCode).toBe(502);
    t.deps.adapters.billingSystem.faults.reset();
    const ok = await t.app.inject({ method: 'GET', url: '/subscriber/me/credit-notes', headers: c.headers });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toHaveLength(4);
  });
});

describe('GET /api/v1/credit-notes/{id}/pdf', () => {
  it("serves the subscriber's own note as application/pdf with its number and amount", async () => {
    const { c, notes } = await withNotes();
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/credit-notes/${notes.open.id}/pdf`, headers: c.headers });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/pdf/);
    expect(r.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await pdfText(r.rawPayload);
    expect(pdf.text).toContain(notes.open.number);
    expect(pdf.text).toContain('12.50');
    expect(pdf.text).toContain(c.subscriber.customerNumber!);
  });

  it("answers 404 for another subscriber's note, an unknown id, and drafts, archived or voided notes", async () => {
    const { notes } = await withNotes();
    const intruder = await customer(t);
    for (const id of [notes.open.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1/credit-notes/${id}/pdf`, headers: intruder.headers });
      expect(r.statusCode, id).toBe(404);
      expect(r.json()).toEqual({ detail: 'Credit note not found' });
    }
    const { c: owner, notes: own } = await withNotes();
    for (const id of [own.draft.id, own.archived.id, own.voided.id]) {
      expect((await t.app.inject({ method: 'GET', url: `/api/v1/credit-notes/${id}/pdf`, headers: owner.headers })).statusCode).toBe(404);
    }
  });

  it("accepts a dashboard JWT of the note's provider staff, refuses staff of another provider (404), and exists only under /api/v1", async () => {
    const { c, notes } = await withNotes();
    const staff = await createUser(t.db, { role: 'service_provider', spRole: 'support', providerId: c.provider.id });
    const ok = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credit-notes/${notes.open.id}/pdf`,
      headers: await bearerFor(t, { id: staff.id, role: 'service_provider', spRole: 'support', providerId: c.provider.id }),
    });
    expect(ok.statusCode).toBe(200);
    const p2 = await createProvider(t.db);
    const foreign = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p2.id });
    const no = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credit-notes/${notes.open.id}/pdf`,
      headers: await bearerFor(t, { id: foreign.id, role: 'service_provider', spRole: 'sp_admin', providerId: p2.id }),
    });
    expect(no.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/credit-notes/${notes.open.id}/pdf`, headers: c.headers })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/api/v1/credit-notes/${notes.open.id}/pdf` })).statusCode).toBe(401);
  });

  it('answers 502 when the billing system is unreachable', async () => {
    const { c, notes } = await withNotes();
    t.deps.adapters.billingSystem.faults.set('unreachable');
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/credit-notes/${notes.open.id}/pdf`, headers: c.headers });
    expect(r.statusCode).toBe(502);
    expect(r.json().detail).toMatch(/billing system is unreachable/);
  });
});
