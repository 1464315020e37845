import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { sha256 } from '../../src/lib/crypto.js';
import { mailsTo, tokenIn } from '../billing/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

let n = 0;
const newProvider = (over: Record<string, unknown> = {}) =>
  t.services.providerAdmin.create({
    name: `Fibre ${++n}`,
    slug: `fibre-${n}-${Date.now() % 100000}`,
    support_email: `help${n}@fibre.test`,
    ...over,
  });
const search = (key: string) => t.app.inject({ method: 'GET', url: '/agent/customers/search?q=Nobody', headers: { 'x-api-key': key } });

describe('providers', () => {
  it('create stores the provider with a hashed checkout secret and a signing secret, both answered once', async () => {
    const r = await newProvider({ currency: 'CAD', external_checkout_url: 'https://shop.fibre.test/checkout' });
    expect(r.provider).toMatchObject({ disabled: false, currency: 'CAD', external_checkout_url: 'https://shop.fibre.test/checkout' });
    expect(r.checkout_secret).toMatch(/^whs_[a-z0-9]{8}_/);
    expect(r.signing_secret).toMatch(/^whsec_/);
    const row = await t.db.selectFrom('providers').selectAll().where('id', '=', r.provider.id).executeTakeFirstOrThrow();
    expect(Buffer.from(row.webhook_secret_hash!)).toEqual(sha256(r.checkout_secret));
    expect(row.webhook_signing_secret).toBe(r.signing_secret);
    expect(JSON.stringify(await t.services.providerAdmin.show(r.provider.slug))).not.toContain(r.checkout_secret);
  });

  it('a second provider with the same slug answers 409; bad input answers 422 naming the field', async () => {
    const r = await newProvider();
    await expect(newProvider({ slug: r.provider.slug })).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await expect(newProvider({ support_email: 'not-an-address' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^support_email:/),
    });
    await expect(newProvider({ currency: 'eur' })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^currency:/) });
    await expect(t.services.providerAdmin.show('no-such-provider')).rejects.toMatchObject({ status: 404 });
  });

  it("disable refuses the provider's API keys and checkout secret; enable restores them", async () => {
    const r = await newProvider();
    const key = await t.services.apiKeys.issue(r.provider.id, { features: ['agent_api_access'] });
    expect((await search(key.key)).statusCode).toBe(200);
    expect((await t.services.providerAdmin.setDisabled(r.provider.slug, true)).disabled).toBe(true);
    expect((await search(key.key)).statusCode).toBe(403);
    expect(await t.services.auth.authenticateWebhookSecret(r.checkout_secret)).toEqual({ ok: false, failure: 'disabled' });
    await t.services.providerAdmin.setDisabled(r.provider.id, false);
    expect((await search(key.key)).statusCode).toBe(200);
  });

  it('settings change the support email and checkout URL; the checkout secret rotates (old one refused)', async () => {
    const r = await newProvider();
    const s = await t.services.providerAdmin.updateSettings(r.provider.id, {
      support_email: 'care@fibre.test',
      external_checkout_url: null,
    });
    expect(s).toMatchObject({ support_email: 'care@fibre.test', external_checkout_url: null });
    const rotated = await t.services.providerAdmin.rotateCheckoutSecret(r.provider.id);
    expect((await t.services.auth.authenticateWebhookSecret(r.checkout_secret)).ok).toBe(false);
    expect((await t.services.auth.authenticateWebhookSecret(rotated.checkout_secret)).ok).toBe(true);
  });

  it('webhook: sets the URL, keeps the signing secret unless rotated, refuses a non-URL', async () => {
    const r = await newProvider();
    const w = await t.services.providerAdmin.setWebhook(r.provider.id, { url: 'https://hooks.fibre.test/netsvc' });
    expect(w.signing_secret).toBeNull();
    expect(w.provider.webhook_url).toBe('https://hooks.fibre.test/netsvc');
    const again = await t.services.providerAdmin.setWebhook(r.provider.id, {
      url: 'https://hooks.fibre.test/netsvc',
      rotate_signing_secret: true,
    });
    expect(again.signing_secret).toMatch(/^whsec_/);
    const row = await t.db
      .selectFrom('providers')
      .select('webhook_signing_secret')
      .where('id', '=', r.provider.id)
      .executeTakeFirstOrThrow();
    expect(row.webhook_signing_secret).toBe(again.signing_secret);
    await expect(t.services.providerAdmin.setWebhook(r.provider.id, { url: 'ftp://x' })).rejects.toMatchObject({ status: 422 });
  });
});

describe('API keys', () => {
  it('issue stores only the prefix and SHA-256; the key works with exactly its scopes', async () => {
    const r = await newProvider();
    const k = await t.services.apiKeys.issue(r.provider.id, { name: 'agent', features: ['agent_api_access'] });
    expect(k).toMatchObject({ name: 'agent', features: ['agent_api_access'], status: 'active', expires_at: null });
    const row = await t.db.selectFrom('api_keys').selectAll().where('id', '=', k.id).executeTakeFirstOrThrow();
    expect(Buffer.from(row.key_hash)).toEqual(sha256(k.key));
    expect(JSON.stringify(await t.services.apiKeys.list(r.provider.id))).not.toContain(k.key);
    const check = await t.app.inject({
      method: 'POST',
      url: '/serviceability/check',
      headers: { 'x-api-key': k.key },
      payload: { address: 'Invalidenstraße 12a, 10115 Berlin' },
    });
    expect(check.statusCode).toBe(403); // no serviceability:read
    await t.services.apiKeys.setFeatures(k.id, ['agent_api_access', 'serviceability:read']);
    expect((await t.services.apiKeys.show(k.id)).features).toEqual(['agent_api_access', 'serviceability:read']);
    await expect(t.services.apiKeys.issue(r.provider.id, { features: ['admin'] })).rejects.toMatchObject({ status: 422 });
  });

  it('rotate: the old key works during the overlap window and is refused after it; the new key works', async () => {
    const r = await newProvider();
    const old = await t.services.apiKeys.issue(r.provider.id, { features: ['agent_api_access', 'provisioning:write'] });
    const rot = await t.services.apiKeys.rotate(old.id, { overlapHours: 2 });
    expect(rot.previous).toMatchObject({ status: 'expiring', replaced_by: rot.key.id });
    expect(rot.key).toMatchObject({ status: 'active', features: ['agent_api_access', 'provisioning:write'], name: old.name });
    expect((await search(old.key)).statusCode).toBe(200);
    expect((await search(rot.key.key)).statusCode).toBe(200);
    // the checkout secret's scopes come from active keys: during the overlap both count
    expect(await t.services.auth.authenticateWebhookSecret(r.checkout_secret)).toMatchObject({
      principal: { keyFeatures: expect.arrayContaining(['provisioning:write']) },
    });
    const start = t.clock.now();
    t.clock.advance(2 * 3_600_000 + 1000);
    try {
      expect((await search(old.key)).statusCode).toBe(403);
      expect((await search(rot.key.key)).statusCode).toBe(200);
      expect((await t.services.apiKeys.show(old.id)).status).toBe('expired');
      await expect(t.services.apiKeys.rotate(old.id)).rejects.toMatchObject({ status: 409 });
    } finally {
      t.clock.set(start);
    }
  });

  it('an expired key no longer lends its scope to the checkout secret', async () => {
    const r = await newProvider();
    const k = await t.services.apiKeys.issue(r.provider.id, { features: ['provisioning:write'] });
    await t.services.apiKeys.rotate(k.id, { overlapHours: 1 });
    const newest = (await t.services.apiKeys.list(r.provider.id)).find((x) => x.status === 'active')!;
    await t.services.apiKeys.revoke(newest.id);
    const start = t.clock.now();
    t.clock.advance(3_600_000 + 1000);
    try {
      const a = await t.services.auth.authenticateWebhookSecret(r.checkout_secret);
      expect(a).toMatchObject({ ok: true, principal: { keyFeatures: [] } });
    } finally {
      t.clock.set(start);
    }
  });

  it('revoke stops the key at once, also during an overlap; an overlap out of range answers 422', async () => {
    const r = await newProvider();
    const k = await t.services.apiKeys.issue(r.provider.id, { features: ['agent_api_access'] });
    expect((await search(k.key)).statusCode).toBe(200);
    await expect(t.services.apiKeys.rotate(k.id, { overlapHours: 10_000 })).rejects.toMatchObject({ status: 422 });
    expect((await t.services.apiKeys.revoke(k.id)).status).toBe('revoked');
    expect((await search(k.key)).statusCode).toBe(403);
    await expect(t.services.apiKeys.revoke('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 404 });
  });
});

describe('plans', () => {
  it('create makes a plan with version 1 on sale in the provider currency; a new version takes the previous one off sale', async () => {
    const r = await newProvider({ currency: 'EUR' });
    const p = await t.services.plans.create(r.provider, { name: 'Fibre 250', download_mbps: 250, upload_mbps: 50, monthly_price: '34.9' });
    expect(p.versions).toEqual([
      expect.objectContaining({ version: 1, monthly_price: '34.90', currency: 'EUR', active: true, download_mbps: 250 }),
    ]);
    const row = await t.db.selectFrom('plan_versions').selectAll().where('id', '=', p.versions[0]!.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ monthly_price_cents: 3490, provider_id: r.provider.id });
    const p2 = await t.services.plans.addVersion(p.id, { monthly_price: '39.90' });
    expect(p2.versions.map((v) => [v.version, v.monthly_price, v.download_mbps, v.active])).toEqual([
      [1, '34.90', 250, false],
      [2, '39.90', 250, true],
    ]);
    const p3 = await t.services.plans.setVersionActive(p.versions[0]!.id, true);
    expect(p3.versions.map((v) => v.active)).toEqual([true, true]);
    expect((await t.services.plans.list(r.provider.id)).map((x) => x.id)).toEqual([p.id]);
  });

  it('bad prices and speeds answer 422 naming the field', async () => {
    const r = await newProvider();
    await expect(
      t.services.plans.create(r.provider, { name: 'X', download_mbps: 1, upload_mbps: 1, monthly_price: '9.999' }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^monthly_price:/),
    });
    await expect(
      t.services.plans.create(r.provider, { name: 'X', download_mbps: 0, upload_mbps: 1, monthly_price: '9' }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^download_mbps:/),
    });
  });
});

describe("the provider's admin", () => {
  it('is invited as sp_admin with the staff invitation mail; its link sets a password and the login works', async () => {
    const r = await newProvider();
    const s = await t.services.staff.inviteProviderAdmin(r.provider.id, { email: `boss${n}@fibre.test`, first_name: 'Ada' });
    expect(s).toMatchObject({ sp_role: 'sp_admin', status: 'invited' });
    const [mail] = await mailsTo(t, `boss${n}@fibre.test`);
    expect(mail!.tag).toBe('staff_invite');
    const set = await t.app.inject({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: tokenIn(mail!.text, 'token='), password: 'a-long-admin-password' },
    });
    expect(set.statusCode).toBe(200);
    const login = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: `boss${n}@fibre.test`, password: 'a-long-admin-password' },
    });
    expect(login.statusCode).toBe(200);
    await expect(t.services.staff.inviteProviderAdmin(r.provider.id, { email: `boss${n}@fibre.test` })).rejects.toMatchObject({
      status: 409,
    });
  });
});
