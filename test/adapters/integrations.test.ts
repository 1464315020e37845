// Issue 29 §1, §2: a provider's card-processor connection and SMS gateway, stored per provider (the
// gateway's auth token sealed under SECRETS_KEY, never returned); SMS codes go through Twilio's
// Messaging API, checked by the local stand-in against Twilio's published operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTwilioStandIn } from '../../src/adapters/twilio.simulator-routes.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { createProvider } from '../helpers/factories.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, type AgentKit } from '../agent/helpers.js';

let kit: AgentKit;
let twilio: Awaited<ReturnType<typeof startTwilioStandIn>>;
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
const SID = `AC${hex(32)}`;
const TOKEN = hex(32);

beforeAll(async () => {
  twilio = await startTwilioStandIn();
  twilio.standIn.accounts.set(SID, TOKEN);
  kit = await setupAgent({ env: { TWILIO_API_URL: twilio.url } });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
  await twilio.close();
});

const integrations = () => kit.t.services.integrations;
const issue = (customerId: string, key: string) =>
  kit.call('POST', '/agent/verify/issue', { key, payload: { customer_id: customerId, channel: 'sms' } });

describe('SMS gateway per provider', () => {
  it('refuses malformed credentials (422) and an unknown provider (404), storing nothing', async () => {
    const p = await createProvider(kit.t.db);
    const good = { accountSid: SID, authToken: TOKEN, from: '+4930123456' };
    for (const bad of [{ accountSid: 'AC123' }, { authToken: 'short' }, { from: '030 123456' }]) {
      await expect(integrations().setSmsGateway(p.id, { ...good, ...bad })).rejects.toMatchObject({ status: 422, code: 'unprocessable' });
    }
    await expect(integrations().setSmsGateway('00000000-0000-4000-8000-000000000000', good)).rejects.toMatchObject({ status: 404 });
    expect(await kit.t.db.selectFrom('provider_sms_gateways').selectAll().where('provider_id', '=', p.id).execute()).toEqual([]);
  });

  it('stores the auth token sealed, turns SMS on, and never shows the token', async () => {
    const p = await createProvider(kit.t.db);
    const shown = await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: TOKEN, from: '+4930123456' });
    expect(shown.sms).toEqual({ enabled: true, gateway: 'twilio', account_sid: SID, from: '+4930123456' });
    expect(JSON.stringify(await integrations().showIntegrations(p.id))).not.toContain(TOKEN);
    const row = await kit.t.db.selectFrom('provider_sms_gateways').selectAll().where('provider_id', '=', p.id).executeTakeFirstOrThrow();
    expect(Buffer.from(row.auth_token_sealed).toString('latin1')).not.toContain(TOKEN);
    const provider = await kit.t.db.selectFrom('providers').select('sms_configured').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(provider.sms_configured).toBe(true);
  });

  it('configured: channel sms posts To/From/Body to Twilio with basic auth; the texted code verifies', async () => {
    const p = await createProvider(kit.t.db);
    await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: TOKEN, from: '+4930123456' });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 11112222' });
    const before = twilio.standIn.messages.length;
    const r = await issue(c.id, p.apiKey);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ sent: true, channel: 'sms' });
    const sent = twilio.standIn.messages.slice(before);
    expect(sent).toEqual([
      { accountSid: SID, to: '+4915111112222', from: '+4930123456', messagingServiceSid: null, body: expect.stringMatching(/\d{6}/) },
    ]);
    const code = /(\d{6})/.exec(sent[0]!.body)![1]!;
    kit.mailedSecrets.add(code);
    const ok = await kit.call('POST', '/agent/verify/check', { key: p.apiKey, payload: { customer_id: c.id, code } });
    expect(ok.status).toBe(200);
  });

  it('a Messaging Service SID is sent as MessagingServiceSid', async () => {
    const p = await createProvider(kit.t.db);
    const mg = `MG${hex(32)}`;
    await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: TOKEN, from: mg });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 33334444' });
    expect((await issue(c.id, p.apiKey)).status).toBe(202);
    expect(twilio.standIn.messages.at(-1)).toMatchObject({ from: null, messagingServiceSid: mg });
  });

  it.each([
    ['Twilio refuses the message', 'refuse'],
    ['Twilio answers 500', 'down'],
  ] as const)('%s: 502 dependency_failed and no usable code', async (_what, fault) => {
    const p = await createProvider(kit.t.db);
    await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: TOKEN, from: '+4930123456' });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 55556666' });
    twilio.standIn.fault = fault;
    try {
      expectError(await issue(c.id, p.apiKey), 502, 'dependency_failed');
    } finally {
      twilio.standIn.fault = 'none';
    }
    const codes = await kit.t.db.selectFrom('verification_codes').select('superseded').where('subscriber_id', '=', c.id).execute();
    expect(codes.every((x) => x.superseded)).toBe(true);
  });

  it('wrong credentials at Twilio (401) answer 502, not a silent success', async () => {
    const p = await createProvider(kit.t.db);
    await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: hex(32), from: '+4930123456' });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 77778888' });
    expectError(await issue(c.id, p.apiKey), 502, 'dependency_failed');
  });

  it('a token sealed for another provider (a copied row) does not open: 503 dependency_unconfigured, nothing sent', async () => {
    const a = await createProvider(kit.t.db);
    const b = await createProvider(kit.t.db);
    await integrations().setSmsGateway(a.id, { accountSid: SID, authToken: TOKEN, from: '+4930123456' });
    await integrations().setSmsGateway(b.id, { accountSid: SID, authToken: hex(32), from: '+4930123456' });
    const sealedA = (
      await kit.t.db
        .selectFrom('provider_sms_gateways')
        .select('auth_token_sealed')
        .where('provider_id', '=', a.id)
        .executeTakeFirstOrThrow()
    ).auth_token_sealed;
    await kit.t.db
      .updateTable('provider_sms_gateways')
      .set({ auth_token_sealed: Buffer.from(sealedA) })
      .where('provider_id', '=', b.id)
      .execute();
    const c = await seedCustomer(kit, { provider: b, phone: '+49 151 12121212' });
    const before = twilio.standIn.messages.length;
    expectError(await issue(c.id, b.apiKey), 503, 'dependency_unconfigured');
    expect(twilio.standIn.messages.length).toBe(before);
  });

  it('cleared: the gateway row is gone and channel sms answers 503 dependency_unconfigured', async () => {
    const p = await createProvider(kit.t.db);
    await integrations().setSmsGateway(p.id, { accountSid: SID, authToken: TOKEN, from: '+4930123456' });
    const shown = await integrations().clearSmsGateway(p.id);
    expect(shown.sms).toEqual({ enabled: false, gateway: null, account_sid: null, from: null });
    const c = await seedCustomer(kit, { provider: p, phone: '+49 151 99990000' });
    expectError(await issue(c.id, p.apiKey), 503, 'dependency_unconfigured');
    expect(await kit.t.db.selectFrom('provider_sms_gateways').selectAll().where('provider_id', '=', p.id).execute()).toEqual([]);
  });
});

describe('card-processor connection per provider', () => {
  it('records a Stripe connected account, shows it, and clears it; a malformed id is refused', async () => {
    const p = await createProvider(kit.t.db, { cardProcessor: null });
    await expect(integrations().setCardProcessor(p.id, { account: 'sk_live_oops' })).rejects.toMatchObject({ status: 422 });
    const account = `acct_${randomAlnum(16)}`;
    const set = await integrations().setCardProcessor(p.id, { account });
    expect(set.card_processor).toEqual({ processor: 'simulator', account, usable: true });
    const row = await kit.t.db.selectFrom('providers').select('card_processor_account').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(row.card_processor_account).toBe(account);
    const cleared = await integrations().clearCardProcessor(p.id);
    expect(cleared.card_processor).toEqual({ processor: 'simulator', account: null, usable: false });
    await expect(integrations().clearCardProcessor('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
  });
});
