import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';
import { maskEmail } from '../../src/lib/mask.js';
import { invoicePdf } from '../../src/documents/index.js';
import { INVOICE_COPY_JOB } from '../../src/mail/invoice-copy.js';
import { createInvoice, createUser } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf-text.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent();
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

async function verified(o: Parameters<typeof seedCustomer>[1] = {}): Promise<SeededCustomer & { session: string }> {
  const c = await seedCustomer(kit, o);
  return { ...c, session: await verify(kit, c) };
}
const subscriber = (id: string) => kit.t.db.selectFrom('subscribers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const audits = (entityId: string, action: string) =>
  kit.t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', entityId).where('action', '=', action).execute();

/** The link token in the newest mail of this tag to this address. */
async function mailedToken(to: string, tag: string) {
  await kit.t.deps.jobs.drain();
  const m = await kit.sink.waitFor((x) => x.to.includes(to.toLowerCase()) && x.tag === tag);
  const token = decodeURIComponent(/set-password\?token=([^\s"<&]+)/.exec(m.text)![1]!);
  kit.mailedSecrets.add(token);
  return { token, message: m };
}

describe('PATCH /agent/customers/{id}/contact', () => {
  it('changes only the sent contract fields, at once, normalises the phone for search, and audits before/after', async () => {
    const c = await verified({ firstName: 'Paula', lastName: 'Patch', phone: '+49 151 10101010' });
    const r = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, {
      session: c.session,
      payload: { last_name: 'Patched', phone: '0151 2020 3030' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      customer_id: c.id,
      contact_type: 'contract',
      contact: { first_name: 'Paula', last_name: 'Patched', email: c.email, phone: '0151 2020 3030' },
      changed_fields: ['last_name', 'phone'],
      applied_at: '2026-11-16T10:00:00.000Z',
      confirmation_sent_to_masked: maskEmail(c.email),
    });
    const row = await subscriber(c.id);
    expect(row).toMatchObject({
      first_name: 'Paula',
      last_name: 'Patched',
      email: c.email,
      phone: '0151 2020 3030',
      phone_e164: '+4915120203030',
      invoice_first_name: null,
    });
    const [a] = await audits(c.id, 'agent.contact.update');
    expect(a).toMatchObject({
      actor: kit.main.keyPrefix,
      request_id: r.headers['x-request-id'],
      before: { contact_type: 'contract', last_name: 'Patch', phone: '+49 151 10101010' },
      after: { contact_type: 'contract', last_name: 'Patched', phone: '0151 2020 3030' },
    });
    // The new number is searchable at once.
    const s = await kit.call('GET', '/agent/customers/search?q=%2B49%20151%202020%203030');
    expect(s.body.matches.map((m: any) => m.customer_id)).toEqual([c.id]);
  });

  it('contact_type invoice writes the invoice_* columns only', async () => {
    const c = await verified();
    const r = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, {
      session: c.session,
      payload: { contact_type: 'invoice', first_name: 'Inge', email: 'inge@billing.example', phone: '+49 30 9876543' },
    });
    expect(r.status).toBe(200);
    expect(r.body.contact).toEqual({ first_name: 'Inge', last_name: null, email: 'inge@billing.example', phone: '+49 30 9876543' });
    const row = await subscriber(c.id);
    expect(row).toMatchObject({
      invoice_first_name: 'Inge',
      invoice_email: 'inge@billing.example',
      invoice_phone: '+49 30 9876543',
      first_name: 'Erika',
      email: c.email,
    });
  });

  it('a field sent with its current value is not listed as changed', async () => {
    const c = await verified({ firstName: 'Same' });
    const r = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session: c.session, payload: { first_name: 'Same' } });
    expect(r.body.changed_fields).toEqual([]);
  });

  it('400 validation_error with details: no field, bad email, bad phone, unknown contact_type, blank name', async () => {
    const c = await verified();
    const before = await subscriber(c.id);
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ contact_type: 'invoice' }, 'body'],
      [{ email: 'not-an-email' }, 'email'],
      [{ phone: '12' }, 'phone'],
      [{ phone: 'call me maybe' }, 'phone'],
      [{ contact_type: 'billing', first_name: 'X' }, 'contact_type'],
      [{ first_name: '   ' }, 'first_name'],
    ];
    for (const [payload, field] of cases) {
      const r = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session: c.session, payload });
      expectError(r, 400, 'validation_error');
      expect({ payload, fields: r.body.error.details.map((d: any) => d.field) }).toEqual({
        payload,
        fields: expect.arrayContaining([field]),
      });
    }
    expect(await subscriber(c.id)).toEqual(before);
  });

  it('409 conflict when another customer of the provider already uses the email; nothing changes', async () => {
    const a = await verified();
    const b = await seedCustomer(kit);
    const r = await kit.call('PATCH', `/agent/customers/${a.id}/contact`, {
      session: a.session,
      payload: { email: b.email.toUpperCase(), first_name: 'Nope' },
    });
    expectError(r, 409, 'conflict');
    expect((await subscriber(a.id)).first_name).toBe('Erika');
    expect(await audits(a.id, 'agent.contact.update')).toHaveLength(0);
  });
});

describe('POST /agent/customers/{id}/password-reset', () => {
  it('password_reset mails a 15-minute single-use reset link to the login email; the link sets the password', async () => {
    const c = await verified({ login: 'active' });
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'password_reset' },
    });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      sent: true,
      action: 'password_reset',
      destination_masked: expect.stringMatching(/^u\*\*\*@e\*\*\*\.test$/),
      expires_at: '2026-11-16T10:15:00.000Z',
    });
    const { token } = await mailedToken(c.user!.email, 'password_reset');
    const [link] = await kit.t.db.selectFrom('link_tokens').selectAll().where('user_id', '=', c.user!.id).execute();
    expect(link).toMatchObject({ purpose: 'password_reset', subscriber_id: c.id, used_at: null });
    expect(Buffer.from(link!.token_hash).equals(sha256(token))).toBe(true);
    expect(await audits(c.id, 'agent.portal_link.password_reset')).toHaveLength(1);
    const set = await kit.t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'a brand new password' } });
    expect(set.statusCode).toBe(200);
    const login = await kit.t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: c.user!.email, password: 'a brand new password' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('the action defaults to password_reset', async () => {
    const c = await verified({ login: 'active' });
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, { session: c.session, payload: {} });
    expect(r.status).toBe(202);
    expect(r.body.action).toBe('password_reset');
  });

  it('resend_activation mails a 14-day set-up link while no password was chosen; after the customer sets one, 409 already_activated', async () => {
    const c = await verified({ login: 'not_activated' });
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'resend_activation' },
    });
    expect(r.status).toBe(202);
    expect(r.body.expires_at).toBe('2026-11-30T10:00:00.000Z');
    const { token } = await mailedToken(c.user!.email, 'account_activation');
    expect(
      (await kit.t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'my first password!' } }))
        .statusCode,
    ).toBe(200);
    const again = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'resend_activation' },
    });
    expectError(again, 409, 'already_activated');
  });

  it('resend_activation for an activated account answers 409 already_activated and sends nothing', async () => {
    const c = await verified({ login: 'active' });
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'resend_activation' },
    });
    expectError(r, 409, 'already_activated');
    expect(await kit.t.db.selectFrom('link_tokens').select('id').where('subscriber_id', '=', c.id).execute()).toHaveLength(0);
  });

  it('a customer without a login: password_reset answers 409 portal_account_missing; resend_activation creates the login (no password) and mails the set-up link', async () => {
    const c = await verified({ login: 'none' });
    expectError(
      await kit.call('POST', `/agent/customers/${c.id}/password-reset`, { session: c.session, payload: { action: 'password_reset' } }),
      409,
      'portal_account_missing',
    );
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'resend_activation' },
    });
    expect(r.status).toBe(202);
    const row = await subscriber(c.id);
    expect(row.user_id).not.toBeNull();
    const user = await kit.t.db.selectFrom('users').selectAll().where('id', '=', row.user_id!).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ email: c.email, role: 'subscriber', password_hash: null, first_name: 'Erika' });
    const { token } = await mailedToken(c.email, 'account_activation');
    expect(
      (await kit.t.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token, password: 'set up at last' } })).statusCode,
    ).toBe(200);
    expect((await kit.call('GET', `/agent/customers/${c.id}`, { session: c.session })).body.portal_account).toBe('active');
    const [a] = await audits(c.id, 'agent.portal_link.resend_activation');
    expect(a!.after).toMatchObject({ link_purpose: 'activation', login_created: true });
  });

  it('resend_activation without a login, when the email already belongs to another login: 409 conflict, nothing created', async () => {
    const c = await verified({ login: 'none' });
    await createUser(kit.t.db, { email: c.email.toUpperCase(), role: 'service_provider', providerId: kit.other.id, spRole: 'support' });
    expectError(
      await kit.call('POST', `/agent/customers/${c.id}/password-reset`, { session: c.session, payload: { action: 'resend_activation' } }),
      409,
      'conflict',
    );
    expect((await subscriber(c.id)).user_id).toBeNull();
  });

  it('400 validation_error for an unknown action', async () => {
    const c = await verified({ login: 'active' });
    const r = await kit.call('POST', `/agent/customers/${c.id}/password-reset`, {
      session: c.session,
      payload: { action: 'delete_account' },
    });
    expectError(r, 400, 'validation_error');
    expect(r.body.error.details[0].field).toBe('action');
  });
});

describe('POST /agent/customers/{id}/invoices/{invoiceId}/resend', () => {
  it('mails the invoice as a real PDF attachment to the invoice email, and audits', async () => {
    const c = await verified();
    await kit.t.db.updateTable('subscribers').set({ invoice_email: 'ap@customer.example' }).where('id', '=', c.id).execute();
    const inv = await createInvoice(kit.t.db, {
      providerId: kit.main.id,
      subscriberId: c.id,
      subscriptionId: c.subscriptionId,
      status: 'paid',
      totalCents: 4599,
      periodStart: '2026-10-01',
      lines: [{ description: 'Fibre 250 – October 2026', amountCents: 4599 }],
    });
    const r = await kit.call('POST', `/agent/customers/${c.id}/invoices/${inv.id}/resend`, { session: c.session });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ sent: true, invoice_id: inv.id, invoice_number: inv.invoiceNumber, destination_masked: 'a***@c***.example' });
    await kit.t.deps.jobs.drain();
    const m = await kit.sink.waitFor((x) => x.to.includes('ap@customer.example') && x.tag === 'invoice_copy');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]).toMatchObject({ contentType: 'application/pdf', filename: `invoice-${inv.invoiceNumber}.pdf` });
    const pdf = await pdfText(m.attachments[0]!.content);
    expect(pdf.text).toContain(inv.invoiceNumber);
    expect(pdf.text).toContain('45.99');
    expect(pdf.text).toContain('Fibre 250');
    const [a] = await audits(inv.id, 'agent.invoice.resend');
    expect(a).toMatchObject({ entity_type: 'invoice', actor: kit.main.keyPrefix, request_id: r.headers['x-request-id'] });
  });

  it("the copy is the invoice's one PDF: the provider's address lines and the customer's full invoice address are printed", async () => {
    const c = await verified();
    const { branding } = await kit.t.db.selectFrom('providers').select('branding').where('id', '=', kit.main.id).executeTakeFirstOrThrow();
    const before = (branding ?? {}) as Record<string, unknown>;
    await kit.t.db
      .updateTable('providers')
      .set({ branding: JSON.stringify({ ...before, address_lines: ['Hafenstraße 9', '24103 Kiel'] }) })
      .where('id', '=', kit.main.id)
      .execute();
    try {
      await kit.t.db
        .updateTable('subscribers')
        .set({
          invoice_email: 'copy@customer.example',
          invoice_street: 'Lindenweg',
          invoice_house_number: '4a',
          invoice_postal_code: '10115',
          invoice_city: 'Berlin',
          invoice_country: 'DE',
        })
        .where('id', '=', c.id)
        .execute();
      const inv = await createInvoice(kit.t.db, {
        providerId: kit.main.id,
        subscriberId: c.id,
        subscriptionId: c.subscriptionId,
        status: 'open',
        totalCents: 2999,
        lines: [{ description: 'Fibre 100', amountCents: 2999 }],
      });
      const r = await kit.call('POST', `/agent/customers/${c.id}/invoices/${inv.id}/resend`, { session: c.session });
      expect(r.status).toBe(202);
      await kit.t.deps.jobs.drain();
      const m = await kit.sink.waitFor((x) => x.to.includes('copy@customer.example') && x.tag === 'invoice_copy');
      const text = (await pdfText(m.attachments[0]!.content)).text;
      for (const s of ['Hafenstraße 9', '24103 Kiel', 'Lindenweg 4a', '10115 Berlin', 'DE']) expect(text).toContain(s);
      expect(m.attachments[0]!.content.equals((await invoicePdf(kit.t.db, inv.id))!)).toBe(true);
    } finally {
      await kit.t.db
        .updateTable('providers')
        .set({ branding: JSON.stringify(before) })
        .where('id', '=', kit.main.id)
        .execute();
    }
  });

  it('an invoice of another customer, a draft, an unknown or malformed id answers 404 not_found and sends nothing', async () => {
    const c = await verified();
    const other = await seedCustomer(kit);
    const theirs = await createInvoice(kit.t.db, { providerId: kit.main.id, subscriberId: other.id });
    const draft = await createInvoice(kit.t.db, { providerId: kit.main.id, subscriberId: c.id, status: 'draft' });
    const jobsBefore = (await kit.t.db.selectFrom('jobs').select('id').where('kind', '=', INVOICE_COPY_JOB).execute()).length;
    for (const id of [theirs.id, draft.id, newId(), 'nope']) {
      expectError(await kit.call('POST', `/agent/customers/${c.id}/invoices/${id}/resend`, { session: c.session }), 404, 'not_found');
    }
    expect((await kit.t.db.selectFrom('jobs').select('id').where('kind', '=', INVOICE_COPY_JOB).execute()).length).toBe(jobsBefore);
  });
});

describe('POST /agent/customers/{id}/notes', () => {
  it('stores an internal note attributed to the AI agent, answers without the text, and audits', async () => {
    const c = await verified();
    const text = 'Internal: caller sounded unsure about the new plan (note-7731)';
    const r = await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, payload: { note: text } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ note_id: expect.any(String), customer_id: c.id, author: 'ai_agent', created_at: '2026-11-16T10:00:00.000Z' });
    expect(r.raw).not.toContain('note-7731');
    const row = await kit.t.db.selectFrom('customer_notes').selectAll().where('id', '=', r.body.note_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      subscriber_id: c.id,
      provider_id: kit.main.id,
      author: 'ai_agent',
      author_key_prefix: kit.main.keyPrefix,
      body: text,
    });
    const [a] = await audits(c.id, 'agent.note.create');
    expect(a).toMatchObject({ actor: kit.main.keyPrefix, request_id: r.headers['x-request-id'], after: { note_id: r.body.note_id } });
    // Never returned on /agent: not in the profile either.
    expect((await kit.call('GET', `/agent/customers/${c.id}`, { session: c.session })).raw).not.toContain('note-7731');
  });

  it('Idempotency-Key: the same key and body replay the first answer (one note); another body answers 422', async () => {
    const c = await verified();
    const headers = { 'idempotency-key': 'note-key-1' };
    const first = await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, headers, payload: { note: 'once only' } });
    const again = await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, headers, payload: { note: 'once only' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await kit.t.db.selectFrom('customer_notes').select('id').where('subscriber_id', '=', c.id).execute()).toHaveLength(1);
    expect(await audits(c.id, 'agent.note.create')).toHaveLength(1);
    expectError(
      await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, headers, payload: { note: 'something else' } }),
      422,
      'idempotency_key_reused',
    );
  });

  it('400 validation_error for an empty, blank or over-long note', async () => {
    const c = await verified();
    for (const note of ['', '   ', 'x'.repeat(5001)]) {
      const r = await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, payload: { note } });
      expectError(r, 400, 'validation_error');
      expect(r.body.error.details[0].field).toBe('note');
    }
    expect(
      (await kit.call('POST', `/agent/customers/${c.id}/notes`, { session: c.session, payload: { note: 'y'.repeat(5000) } })).status,
    ).toBe(201);
  });
});
