import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatedAdapters } from '../../src/adapters/index.js';
import { sha256 } from '../../src/lib/crypto.js';
import { newId } from '../../src/lib/ids.js';
import { createProvider } from '../helpers/factories.js';
import { codeFromMail, expectError, expectNoLeaks, seedCustomer, setupAgent, verify, type AgentKit } from './helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent();
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const issue = (customerId: string, body: Record<string, unknown> = {}, key?: string) =>
  kit.call('POST', '/agent/verify/issue', { key, payload: { customer_id: customerId, ...body } });
const check = (customerId: string, code: string, key?: string) =>
  kit.call('POST', '/agent/verify/check', { key, payload: { customer_id: customerId, code } });
const codesOf = (customerId: string) =>
  kit.t.db.selectFrom('verification_codes').selectAll().where('subscriber_id', '=', customerId).orderBy('created_at').execute();
const auditOf = (customerId: string, action: string) =>
  kit.t.db
    .selectFrom('audit_entries')
    .selectAll()
    .where('entity_id', '=', customerId)
    .where('action', '=', action)
    .orderBy('created_at')
    .execute();
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const sms = () => kit.t.deps.adapters as SimulatedAdapters;

describe('POST /agent/verify/issue (email)', () => {
  it('emails a 6-digit code valid 10 minutes to the contract email, stores only a keyed hash, and audits the issue', async () => {
    const c = await seedCustomer(kit, { firstName: 'Vera' });
    const r = await issue(c.id);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      sent: true,
      channel: 'email',
      destination_masked: expect.stringMatching(/^c\*\*\*@e\*\*\*\.test$/),
      expires_at: '2026-11-16T10:10:00.000Z',
    });
    const { code, message } = await codeFromMail(kit, c.email);
    expect(code).toMatch(/^\d{6}$/);
    expect(message.to).toEqual([c.email.toLowerCase()]);
    expect(message.html).toContain(code);
    const [row] = await codesOf(c.id);
    expect(row).toMatchObject({ channel: 'email', attempts: 0, superseded: false, consumed_at: null, provider_id: kit.main.id });
    expect(new Date(row!.expires_at).toISOString()).toBe('2026-11-16T10:10:00.000Z');
    expect(Buffer.from(row!.code_hash).equals(sha256(code))).toBe(false);
    expect(Buffer.from(row!.code_hash).toString('hex')).not.toContain(Buffer.from(code).toString('hex'));
    const [audit] = await auditOf(c.id, 'agent.verify.issue');
    expect(audit).toMatchObject({
      actor_type: 'api_key',
      actor: kit.main.keyPrefix,
      provider_id: kit.main.id,
      entity_type: 'customer',
      request_id: r.headers['x-request-id'],
    });
    expect(JSON.stringify(audit!.after)).not.toContain(code);
  });

  it('a new issue replaces the previous code: the old code answers 401 invalid_code, the new one works', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const first = await codeFromMail(kit, c.email, 0);
    await issue(c.id);
    const second = await codeFromMail(kit, c.email, 1);
    const rows = await codesOf(c.id);
    expect(rows.map((x) => x.superseded)).toEqual([true, false]);
    if (first.code !== second.code) expectError(await check(c.id, first.code), 401, 'invalid_code');
    const ok = await check(c.id, second.code);
    expect(ok.status).toBe(200);
  });

  it('at most 5 issues per customer in 10 minutes: the 6th answers the standard rate-limit 429 (no envelope, like every /agent 429) with Retry-After, then frees up', async () => {
    const c = await seedCustomer(kit);
    for (let i = 0; i < 5; i++) {
      expect((await issue(c.id)).status).toBe(202);
      kit.t.clock.advance(60_000);
    }
    const r = await issue(c.id);
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded, retry in 5 minutes' });
    expect(Number(r.headers['retry-after'])).toBe(300); // the first of the five leaves the window in 5 minutes
    expect(await codesOf(c.id)).toHaveLength(5);
    kit.t.clock.advance(300_000);
    expect((await issue(c.id)).status).toBe(202);
    kit.t.clock.set('2026-11-16T10:00:00.000Z');
  });

  it('the issue limit holds under concurrent issues (row lock on the customer)', async () => {
    const c = await seedCustomer(kit);
    const results = await Promise.all(Array.from({ length: 10 }, () => issue(c.id)));
    expect(results.filter((r) => r.status === 202)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(5);
    const rows = await codesOf(c.id);
    expect(rows).toHaveLength(5);
    expect(rows.filter((x) => !x.superseded)).toHaveLength(1);
  });

  it("another provider's customer and an unknown id answer the same 404 customer_not_found, with nothing stored or sent", async () => {
    const theirs = await seedCustomer(kit, { provider: kit.other });
    const a = await issue(theirs.id);
    const b = await issue(newId());
    expectError(a, 404, 'customer_not_found');
    expectError(b, 404, 'customer_not_found');
    expect({ ...a.body.error, request_id: 'x' }).toEqual({ ...b.body.error, request_id: 'x' });
    expect(await codesOf(theirs.id)).toHaveLength(0);
  });

  it('rejects a malformed body with 400 validation_error naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'customer_id'],
      [{ customer_id: 'ABCD-1234' }, 'customer_id'],
      [{ customer_id: newId(), channel: 'fax' }, 'channel'],
    ];
    for (const [payload, field] of cases) {
      const r = await kit.call('POST', '/agent/verify/issue', { payload });
      expectError(r, 400, 'validation_error');
      expect(r.body.error.details.map((d: any) => d.field)).toContain(field);
    }
  });
});

describe('POST /agent/verify/issue (sms)', () => {
  it('answers 503 dependency_unconfigured while SMS is not configured for the provider, storing no code', async () => {
    const c = await seedCustomer(kit);
    const r = await issue(c.id, { channel: 'sms' });
    expectError(r, 503, 'dependency_unconfigured');
    expect(await codesOf(c.id)).toHaveLength(0);
  });

  it('with SMS configured, texts the code to the mobile number on file; the code verifies', async () => {
    const p = await createProvider(kit.t.db, { smsConfigured: true });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 98765432' });
    const r = await issue(c.id, { channel: 'sms' }, p.apiKey);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ sent: true, channel: 'sms', destination_masked: '***32' });
    const msg = sms()
      .sms.sent.filter((m) => m.to === '+4915198765432')
      .at(-1)!;
    const code = /(\d{6})/.exec(msg.text)![1]!;
    kit.mailedSecrets.add(code);
    const ok = await check(c.id, code, p.apiKey);
    expect(ok.status).toBe(200);
  });

  it('a refused SMS answers 502 dependency_failed and leaves no usable code', async () => {
    const p = await createProvider(kit.t.db, { smsConfigured: true });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 55554444' });
    sms().sms.faults.set('failing', { times: 1 });
    const r = await issue(c.id, { channel: 'sms' }, p.apiKey);
    expectError(r, 502, 'dependency_failed');
    expect((await codesOf(c.id)).every((x) => x.superseded)).toBe(true);
    expect(await auditOf(c.id, 'agent.verify.issue_failed')).toHaveLength(1);
  });

  it('a customer without a phone number answers 422 unprocessable for sms', async () => {
    const p = await createProvider(kit.t.db, { smsConfigured: true });
    const c = await seedCustomer(kit, { provider: p, phone: null });
    expectError(await issue(c.id, { channel: 'sms' }, p.apiKey), 422, 'unprocessable');
  });
});

describe('POST /agent/verify/check', () => {
  it('the right code answers a 15-minute verified session bound to (provider, customer), consumes the code, and audits', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    const r = await check(c.id, code);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      verified_session: expect.stringMatching(/^vs_[A-Za-z0-9_-]{43}$/),
      customer_id: c.id,
      expires_at: '2026-11-16T10:15:00.000Z',
    });
    const [session] = await kit.t.db.selectFrom('verified_sessions').selectAll().where('subscriber_id', '=', c.id).execute();
    expect(session).toMatchObject({ provider_id: kit.main.id });
    expect(Buffer.from(session!.token_hash).equals(sha256(r.body.verified_session))).toBe(true);
    const [row] = await codesOf(c.id);
    expect(row!.consumed_at).not.toBeNull();
    const audits = await auditOf(c.id, 'agent.verify.check');
    expect(audits.at(-1)).toMatchObject({
      actor: kit.main.keyPrefix,
      request_id: r.headers['x-request-id'],
      after: expect.objectContaining({ result: 'verified' }),
    });
    expect(JSON.stringify(audits)).not.toContain(r.body.verified_session);
    // A code works once.
    expectError(await check(c.id, code), 401, 'invalid_code');
  });

  it('a wrong code answers 401 invalid_code while attempts remain; the 5th wrong code locks it (403 too_many_attempts), even for the right code', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    for (let i = 1; i <= 4; i++) {
      const r = await check(c.id, wrong(code));
      expectError(r, 401, 'invalid_code');
      expect(r.body.error.message).toContain(`${5 - i} attempt`);
    }
    expectError(await check(c.id, wrong(code)), 403, 'too_many_attempts');
    expectError(await check(c.id, code), 403, 'too_many_attempts');
    const [row] = await codesOf(c.id);
    expect(row!.attempts).toBe(5);
    expect(row!.consumed_at).toBeNull();
    expect(await kit.t.db.selectFrom('verified_sessions').select('id').where('subscriber_id', '=', c.id).execute()).toHaveLength(0);
    // A new code starts over.
    await issue(c.id);
    const fresh = await codeFromMail(kit, c.email, 1);
    expect((await check(c.id, fresh.code)).status).toBe(200);
  });

  it('the 5-attempt limit holds under 20 concurrent wrong guesses (row lock): exactly 4 invalid_code, then locked', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    const guesses = Array.from({ length: 20 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    const results = await Promise.all(guesses.map((g) => check(c.id, g)));
    expect(results.filter((r) => r.status === 401 && r.body.error.code === 'invalid_code')).toHaveLength(4);
    expect(results.filter((r) => r.status === 403 && r.body.error.code === 'too_many_attempts')).toHaveLength(16);
    const [row] = await codesOf(c.id);
    expect(row!.attempts).toBe(5);
    expectError(await check(c.id, code), 403, 'too_many_attempts');
  });

  it('two concurrent checks of the right code give exactly one session', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    const results = await Promise.all([check(c.id, code), check(c.id, code), check(c.id, code)]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401)).toHaveLength(2);
    expect(await kit.t.db.selectFrom('verified_sessions').select('id').where('subscriber_id', '=', c.id).execute()).toHaveLength(1);
  });

  it('a code older than 10 minutes answers 401 code_expired', async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    kit.t.clock.advance(10 * 60_000);
    expectError(await check(c.id, code), 401, 'code_expired');
    kit.t.clock.set('2026-11-16T10:00:00.000Z');
  });

  it('without any issued code answers 401 invalid_code', async () => {
    const c = await seedCustomer(kit);
    expectError(await check(c.id, '123456'), 401, 'invalid_code');
  });

  it('a code issued for one customer does not verify another customer', async () => {
    const a = await seedCustomer(kit);
    const b = await seedCustomer(kit);
    await issue(a.id);
    const { code } = await codeFromMail(kit, a.email);
    expectError(await check(b.id, code), 401, 'invalid_code');
  });

  it("another provider's key cannot check this provider's customer: 404 customer_not_found", async () => {
    const c = await seedCustomer(kit);
    await issue(c.id);
    const { code } = await codeFromMail(kit, c.email);
    expectError(await check(c.id, code, kit.other.apiKey), 404, 'customer_not_found');
    expect((await codesOf(c.id))[0]!.attempts).toBe(0);
  });

  it('rejects a code that is not 6 digits with 400 validation_error', async () => {
    const c = await seedCustomer(kit);
    for (const code of ['12345', '1234567', 'abcdef', '']) {
      const r = await check(c.id, code);
      expectError(r, 400, 'validation_error');
      expect(r.body.error.details[0].field).toBe('code');
    }
  });

  it('the session works for 15 minutes, then answers 401 session_invalid', async () => {
    const c = await seedCustomer(kit);
    const session = await verify(kit, c);
    kit.t.clock.advance(15 * 60_000 - 1_000);
    expect((await kit.call('GET', `/agent/customers/${c.id}`, { session })).status).toBe(200);
    kit.t.clock.advance(1_000);
    expectError(await kit.call('GET', `/agent/customers/${c.id}`, { session }), 401, 'session_invalid');
    kit.t.clock.set('2026-11-16T10:00:00.000Z');
  });
});
