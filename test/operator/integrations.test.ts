// Issue 29 §1, §2 through the operator's entries: `provider card|sms|integrations` (npm run ops) and
// /api/v1/admin/providers/{provider}/integrations, /card-processor, /sms-gateway. Both call the
// integrations service; neither ever answers or prints the SMS gateway's auth token.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOps } from '../../src/cli/ops-program.js';
import type { OpsIo } from '../../src/cli/ops-io.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

const ADMIN_TOKEN = randomBytes(36).toString('base64url');
const hex = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const SID = `AC${hex(32)}`;
const TOKEN = hex(32);
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN } });
});
afterAll(() => t.close());

async function ops(argv: string[], extra: Partial<OpsIo> = {}) {
  let out = '';
  let err = '';
  const io: OpsIo = { out: (s) => void (out += s), err: (s) => void (err += s), env: {}, ...extra };
  const code = await runOps(argv, async () => t.services, io);
  return { code, out, err, json: () => JSON.parse(out) };
}
const admin = (
  method: 'GET' | 'PUT' | 'DELETE',
  url: string,
  payload?: object,
  headers: Record<string, string> = { 'x-admin-token': ADMIN_TOKEN },
) => t.app.inject({ method, url: `/api/v1/admin/providers${url}`, headers, ...(payload ? { payload } : {}) });

const row = (id: string) =>
  t.db.selectFrom('providers').select(['card_processor_account', 'sms_configured']).where('id', '=', id).executeTakeFirstOrThrow();
/** A provider without a card processor, with its slug (the commands and routes take either). */
async function provider() {
  const p = await createProvider(t.db, { cardProcessor: null });
  const { slug } = await t.db.selectFrom('providers').select('slug').where('id', '=', p.id).executeTakeFirstOrThrow();
  return { ...p, slug };
}
const gateway = (id: string) => t.db.selectFrom('provider_sms_gateways').selectAll().where('provider_id', '=', id).executeTakeFirst();

describe('npm run ops -- provider card | sms | integrations', () => {
  it('card set stores the connected account (by slug); card clear removes it; integrations shows it; bad input exits 1', async () => {
    const p = await provider();
    const set = await ops(['provider', 'card', 'set', p.slug, '--account', 'acct_1QzX8vLm2Nb4Tr6K', '--json']);
    expect(set.code).toBe(0);
    expect(set.json()).toMatchObject({ provider_id: p.id, card_processor: { account: 'acct_1QzX8vLm2Nb4Tr6K' } });
    expect((await row(p.id)).card_processor_account).toBe('acct_1QzX8vLm2Nb4Tr6K');
    const shown = await ops(['provider', 'integrations', p.id]);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('acct_1QzX8vLm2Nb4Tr6K');
    const bad = await ops(['provider', 'card', 'set', p.slug, '--account', 'sk_live_nope']);
    expect(bad).toMatchObject({ code: 1, out: '', err: 'error: account: must be a Stripe connected account id (acct_…)\n' });
    expect((await row(p.id)).card_processor_account).toBe('acct_1QzX8vLm2Nb4Tr6K');
    const cleared = await ops(['provider', 'card', 'clear', p.slug, '--json']);
    expect(cleared.json().card_processor).toMatchObject({ account: null, usable: false });
    expect((await row(p.id)).card_processor_account).toBeNull();
    expect((await ops(['provider', 'card', 'set', 'no-such-provider', '--account', 'acct_x'])).code).toBe(1);
    expect((await ops(['provider', 'card', 'set', p.slug])).code).toBe(2);
  });

  it('sms set reads the auth token from stdin (--auth-token -) or OPS_SMS_AUTH_TOKEN, seals it, never prints it', async () => {
    const p = await provider();
    const viaStdin = await ops(['provider', 'sms', 'set', p.slug, '--account-sid', SID, '--from', '+4930123456', '--auth-token', '-'], {
      stdin: async () => `${TOKEN}\n`,
    });
    expect(viaStdin.code).toBe(0);
    expect(viaStdin.out).toContain(SID);
    expect(viaStdin.out + viaStdin.err).not.toContain(TOKEN);
    expect(await row(p.id)).toMatchObject({ sms_configured: true });
    const stored = (await gateway(p.id))!;
    expect(stored).toMatchObject({ account_sid: SID, sender: '+4930123456' });
    expect(Buffer.from(stored.auth_token_sealed).toString('latin1')).not.toContain(TOKEN);

    const other = hex(24);
    const viaEnv = await ops(['provider', 'sms', 'set', p.id, '--account-sid', SID, '--from', '+4930999999', '--json'], {
      env: { OPS_SMS_AUTH_TOKEN: other },
    });
    expect(viaEnv.json().sms).toEqual({ enabled: true, gateway: 'twilio', account_sid: SID, from: '+4930999999' });
    expect(viaEnv.out).not.toContain(other);
    expect((await gateway(p.id))!.sender).toBe('+4930999999');
    const json = await ops(['provider', 'integrations', p.slug, '--json']);
    expect(json.out).not.toContain(other);
  });

  it('sms set without a token, or with a malformed one, exits 1 and stores nothing; sms clear turns SMS off', async () => {
    const p = await provider();
    const none = await ops(['provider', 'sms', 'set', p.slug, '--account-sid', SID, '--from', '+4930123456']);
    expect(none).toMatchObject({ code: 1, err: expect.stringContaining('OPS_SMS_AUTH_TOKEN') });
    const short = await ops([
      'provider',
      'sms',
      'set',
      p.slug,
      '--account-sid',
      SID,
      '--from',
      '+4930123456',
      '--auth-token',
      'short',
      '--json',
    ]);
    expect(short.code).toBe(1);
    expect(JSON.parse(short.err)).toEqual({
      error: { status: 422, code: 'unprocessable', message: 'auth_token: must be the Twilio auth token (16 to 128 letters and digits)' },
    });
    expect(await gateway(p.id)).toBeUndefined();
    await ops(['provider', 'sms', 'set', p.slug, '--account-sid', SID, '--from', '+4930123456', '--auth-token', TOKEN]);
    const cleared = await ops(['provider', 'sms', 'clear', p.slug]);
    expect(cleared.code).toBe(0);
    expect(cleared.out).toContain('off');
    expect(await gateway(p.id)).toBeUndefined();
    expect((await row(p.id)).sms_configured).toBe(false);
  });
});

describe('/api/v1/admin/providers/{provider}/card-processor, /sms-gateway, /integrations', () => {
  it('PUT and DELETE card-processor: 200 with the summary and the row; 422 on a bad account, 404 on an unknown provider', async () => {
    const p = await provider();
    const set = await admin('PUT', `/${p.slug}/card-processor`, { account: 'acct_Glasfaser01' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ provider_id: p.id, card_processor: { account: 'acct_Glasfaser01' } });
    expect((await row(p.id)).card_processor_account).toBe('acct_Glasfaser01');
    const bad = await admin('PUT', `/${p.id}/card-processor`, { account: 'nope' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({ detail: 'account: must be a Stripe connected account id (acct_…)' });
    expect((await admin('PUT', '/no-such-provider/card-processor', { account: 'acct_x' })).statusCode).toBe(404);
    const cleared = await admin('DELETE', `/${p.slug}/card-processor`);
    expect(cleared.statusCode).toBe(200);
    expect((await row(p.id)).card_processor_account).toBeNull();
  });

  it('PUT sms-gateway stores the token sealed and never answers it; GET integrations; DELETE turns SMS off', async () => {
    const p = await provider();
    const set = await admin('PUT', `/${p.slug}/sms-gateway`, { account_sid: SID, auth_token: TOKEN, from: '+4930123456' });
    expect(set.statusCode).toBe(200);
    expect(set.json().sms).toEqual({ enabled: true, gateway: 'twilio', account_sid: SID, from: '+4930123456' });
    expect(set.body).not.toContain(TOKEN);
    const shown = await admin('GET', `/${p.slug}/integrations`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain(TOKEN);
    expect((await gateway(p.id))!.account_sid).toBe(SID);
    const bad = await admin('PUT', `/${p.slug}/sms-gateway`, { account_sid: 'AC1', auth_token: TOKEN, from: '+4930123456' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^account_sid: /);
    const missing = await admin('PUT', `/${p.slug}/sms-gateway`, { account_sid: SID, from: '+4930123456' });
    expect(missing.statusCode).toBe(422);
    const cleared = await admin('DELETE', `/${p.slug}/sms-gateway`);
    expect(cleared.json().sms).toEqual({ enabled: false, gateway: null, account_sid: null, from: null });
    expect(await gateway(p.id)).toBeUndefined();
    expect((await row(p.id)).sms_configured).toBe(false);
  });

  it('needs the platform-admin credential: 401 without, 403 with a wrong token; nothing stored', async () => {
    const p = await provider();
    expect((await admin('PUT', `/${p.slug}/card-processor`, { account: 'acct_x1' }, {})).statusCode).toBe(401);
    expect(
      (await admin('PUT', `/${p.slug}/card-processor`, { account: 'acct_x1' }, { 'x-admin-token': `${ADMIN_TOKEN}x` })).statusCode,
    ).toBe(403);
    expect((await admin('GET', `/${p.slug}/integrations`, undefined, {})).statusCode).toBe(401);
    expect((await row(p.id)).card_processor_account).toBeNull();
  });
});
