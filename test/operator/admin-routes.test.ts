import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createUser } from '../helpers/factories.js';
import { bearerFor, mailsTo } from '../billing/fixtures.js';
import { sha256 } from '../../src/lib/crypto.js';

const ADMIN_TOKEN = randomBytes(36).toString('base64url');
let t: TestApp;
const H = { 'x-admin-token': ADMIN_TOKEN };
beforeAll(async () => {
  t = await buildTestApp({ env: { ADMIN_TOKEN } });
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';
const call = (method: Method, url: string, payload?: object, headers: Record<string, string> = H) =>
  t.app.inject({ method, url: `/api/v1/admin${url}`, headers, ...(payload ? { payload } : {}) });

let n = 0;
async function provider() {
  n++;
  const r = await call('POST', '/providers', { name: `Admin Fibre ${n}`, slug: `admin-fibre-${n}`, support_email: `help@af${n}.test` });
  expect(r.statusCode).toBe(201);
  return r.json();
}

describe('platform-admin credential', () => {
  it('no credential answers 401; a wrong token, a provider admin and a subscriber answer 403; a platform_admin login passes', async () => {
    expect((await call('GET', '/providers', undefined, {})).statusCode).toBe(401);
    expect((await call('GET', '/providers', undefined, {})).json()).toEqual({ detail: 'Not authenticated' });
    const wrong = await call('GET', '/providers', undefined, { 'x-admin-token': `${ADMIN_TOKEN}x` });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json()).toEqual({ detail: 'Invalid credentials' });
    const p = await createProvider(t.db);
    const staff = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
    expect(
      (
        await call(
          'GET',
          '/providers',
          undefined,
          await bearerFor(t, { id: staff.id, role: 'service_provider', spRole: 'sp_admin', providerId: p.id }),
        )
      ).statusCode,
    ).toBe(403);
    const sub = await createUser(t.db);
    expect(
      (await call('POST', '/providers', { name: 'x', slug: 'xx', support_email: 'a@b.test' }, await bearerFor(t, { id: sub.id })))
        .statusCode,
    ).toBe(403);
    expect(await t.db.selectFrom('providers').select('id').where('slug', '=', 'xx').executeTakeFirst()).toBeUndefined();
    const admin = await createUser(t.db, { role: 'platform_admin' });
    expect((await call('GET', '/providers', undefined, await bearerFor(t, { id: admin.id, role: 'platform_admin' }))).statusCode).toBe(200);
  });

  it('every admin route declares the platform-admin credential and the tag in the OpenAPI document', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const ops = Object.entries(spec.paths as Record<string, Record<string, { tags: string[]; security: unknown }>>)
      .filter(([p]) => /^\/api\/v1\/admin\/(providers|api-keys|plans|plan-versions)/.test(p))
      .flatMap(([, item]) => Object.values(item));
    expect(ops.length).toBeGreaterThanOrEqual(16);
    for (const op of ops) {
      expect(op.tags).toEqual(['Platform administration']);
      expect(op.security).toEqual([{ adminToken: [] }]);
    }
  });
});

describe('providers', () => {
  it('POST /providers: 201 with the secrets once; the row holds the hash; 409 on a taken slug; 422 on bad input', async () => {
    const r = await call('POST', '/providers', {
      name: 'Glasfaser Nord',
      slug: 'glasfaser-nord',
      support_email: 'hilfe@gn.test',
      currency: 'EUR',
    });
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body.provider).toMatchObject({
      name: 'Glasfaser Nord',
      slug: 'glasfaser-nord',
      disabled: false,
      has_webhook_signing_secret: true,
    });
    const row = await t.db.selectFrom('providers').selectAll().where('slug', '=', 'glasfaser-nord').executeTakeFirstOrThrow();
    expect(Buffer.from(row.webhook_secret_hash!)).toEqual(sha256(body.checkout_secret));
    expect((await call('POST', '/providers', { name: 'Again', slug: 'glasfaser-nord', support_email: 'x@gn.test' })).statusCode).toBe(409);
    const bad = await call('POST', '/providers', { name: 'Bad', slug: 'Bad Slug', support_email: 'x@gn.test' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toMatch(/^slug:/);
  });

  it('GET by slug and id, PATCH settings, disable and enable, webhook, checkout-secret rotation', async () => {
    const p = await provider();
    expect((await call('GET', `/providers/${p.provider.slug}`)).json().id).toBe(p.provider.id);
    expect((await call('GET', `/providers/${p.provider.id}`)).json().slug).toBe(p.provider.slug);
    expect((await call('GET', '/providers/nobody-here')).statusCode).toBe(404);
    const patched = await call('PATCH', `/providers/${p.provider.id}`, {
      support_email: 'care@af.test',
      external_checkout_url: 'https://shop.af.test/c',
    });
    expect(patched.json()).toMatchObject({ support_email: 'care@af.test', external_checkout_url: 'https://shop.af.test/c' });
    expect((await call('PATCH', `/providers/${p.provider.id}`, { support_email: 'nope' })).statusCode).toBe(422);
    expect((await call('POST', `/providers/${p.provider.id}/disable`)).json().disabled).toBe(true);
    expect((await t.db.selectFrom('providers').select('disabled').where('id', '=', p.provider.id).executeTakeFirstOrThrow()).disabled).toBe(
      true,
    );
    expect((await call('POST', `/providers/${p.provider.id}/enable`)).json().disabled).toBe(false);
    const w = await call('PUT', `/providers/${p.provider.id}/webhook`, { url: 'https://hooks.af.test/in', rotate_signing_secret: true });
    expect(w.statusCode).toBe(200);
    expect(w.json()).toMatchObject({
      provider: { webhook_url: 'https://hooks.af.test/in' },
      signing_secret: expect.stringMatching(/^whsec_/),
    });
    const rot = await call('POST', `/providers/${p.provider.id}/checkout-secret/rotate`);
    expect(rot.json().checkout_secret).toMatch(/^whs_/);
    expect(rot.json().checkout_secret).not.toBe(p.checkout_secret);
  });

  it('POST /providers/{p}/admins invites an sp_admin with the staff invitation mail; 409 for a taken email', async () => {
    const p = await provider();
    const r = await call('POST', `/providers/${p.provider.slug}/admins`, { email: `chief${n}@af.test`, first_name: 'Cora' });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ email: `chief${n}@af.test`, sp_role: 'sp_admin', status: 'invited' });
    const u = await t.db.selectFrom('users').selectAll().where('email', '=', `chief${n}@af.test`).executeTakeFirstOrThrow();
    expect(u).toMatchObject({ role: 'service_provider', sp_role: 'sp_admin', provider_id: p.provider.id, password_hash: null });
    expect((await mailsTo(t, `chief${n}@af.test`)).map((m) => m.tag)).toEqual(['staff_invite']);
    expect((await call('POST', `/providers/${p.provider.slug}/admins`, { email: `chief${n}@af.test` })).statusCode).toBe(409);
  });
});

describe('API keys and plans', () => {
  it('issue (201, key once), list (no key), rotate with overlap, scopes, revoke; the keys authenticate accordingly', async () => {
    const p = await provider();
    const issued = await call('POST', `/providers/${p.provider.id}/api-keys`, { name: 'agent', features: ['agent_api_access'] });
    expect(issued.statusCode).toBe(201);
    const k = issued.json();
    expect(k).toMatchObject({ name: 'agent', status: 'active', features: ['agent_api_access'], key: expect.stringMatching(/^sk_/) });
    const list = await call('GET', `/providers/${p.provider.id}/api-keys`);
    expect(list.json()).toEqual([expect.objectContaining({ id: k.id, status: 'active' })]);
    expect(list.body).not.toContain(k.key);
    expect((await call('POST', `/providers/${p.provider.id}/api-keys`, { features: ['root'] })).statusCode).toBe(422);

    const rot = await call('POST', `/api-keys/${k.id}/rotate`, { overlap_hours: 1 });
    expect(rot.statusCode).toBe(200);
    expect(rot.json().previous).toMatchObject({
      status: 'expiring',
      expires_at: '2026-11-16T11:00:00.000Z',
      replaced_by: rot.json().key.id,
    });
    const search = (key: string) => t.app.inject({ method: 'GET', url: '/agent/customers/search?q=Nobody', headers: { 'x-api-key': key } });
    expect((await search(k.key)).statusCode).toBe(200);
    expect((await search(rot.json().key.key)).statusCode).toBe(200);
    expect((await call('POST', `/api-keys/${k.id}/rotate`, {})).statusCode).toBe(409);

    const scoped = await call('PUT', `/api-keys/${rot.json().key.id}/scopes`, { features: ['serviceability:read'] });
    expect(scoped.json().features).toEqual(['serviceability:read']);
    expect((await search(rot.json().key.key)).statusCode).toBe(403);
    const revoked = await call('POST', `/api-keys/${k.id}/revoke`);
    expect(revoked.json().status).toBe('revoked');
    expect((await search(k.key)).statusCode).toBe(403);
    expect((await call('POST', '/api-keys/not-a-uuid/revoke')).statusCode).toBe(422);
    expect((await call('POST', '/api-keys/00000000-0000-4000-8000-000000000000/revoke')).statusCode).toBe(404);
  });

  it('plans: create (201), a new version, off sale, list; bad price 422', async () => {
    const p = await provider();
    const c = await call('POST', `/providers/${p.provider.id}/plans`, {
      name: 'Fibre 500',
      download_mbps: 500,
      upload_mbps: 100,
      monthly_price: '44.90',
    });
    expect(c.statusCode).toBe(201);
    const plan = c.json();
    expect(plan.versions).toEqual([expect.objectContaining({ version: 1, monthly_price: '44.90', currency: 'EUR', active: true })]);
    const v2 = await call('POST', `/plans/${plan.id}/versions`, { upload_mbps: 200, keep_previous: true });
    expect(v2.statusCode).toBe(201);
    expect(v2.json().versions.map((v: { upload_mbps: number; active: boolean }) => [v.upload_mbps, v.active])).toEqual([
      [100, true],
      [200, true],
    ]);
    const off = await call('PATCH', `/plan-versions/${plan.versions[0].id}`, { active: false });
    expect(off.json().versions[0].active).toBe(false);
    const row = await t.db.selectFrom('plan_versions').select('active').where('id', '=', plan.versions[0].id).executeTakeFirstOrThrow();
    expect(row.active).toBe(false);
    expect((await call('GET', `/providers/${p.provider.id}/plans`)).json()).toHaveLength(1);
    expect(
      (await call('POST', `/providers/${p.provider.id}/plans`, { name: 'X', download_mbps: 1, upload_mbps: 1, monthly_price: '-1' }))
        .statusCode,
    ).toBe(422);
  });

  it('POST /providers/{p}/imports/{kind}: a CSV body imports (200 report), a bad file 422 with the report and nothing written, dry_run writes nothing', async () => {
    const p = await provider();
    const csv = (text: string, kind: string, query = '') =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/admin/providers/${p.provider.slug}/imports/${kind}${query}`,
        headers: { ...H, 'content-type': 'text/csv' },
        payload: text,
      });
    const buildings = 'ref,street,house_number,postal_code,city,country\nR-1,Hauptstraße,1,10115,Berlin,DE\n';
    const dry = await csv(buildings, 'buildings', '?dry_run=true');
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ dry_run: true, committed: false, inserted: 1 });
    expect(await t.db.selectFrom('buildings').select('id').where('provider_id', '=', p.provider.id).execute()).toEqual([]);
    const ok = await csv(buildings, 'buildings');
    expect(ok.json()).toMatchObject({ committed: true, rows: 1, inserted: 1, errors: [] });
    const bad = await csv('building_ref,label\nR-1,1A\nR-2,1A\n', 'units');
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({
      detail: '1 problem(s) in the file: nothing was imported',
      report: {
        committed: false,
        errors: [{ line: 3, column: 'building_ref', reason: 'no building R-2 of this provider (import buildings first)' }],
      },
    });
    expect(await t.db.selectFrom('units').select('id').execute()).toEqual([]);
    expect((await csv('x', 'flats')).statusCode).toBe(422);
    expect((await call('POST', `/providers/${p.provider.slug}/imports/units`, { a: 1 })).statusCode).toBe(422);
  });
});
