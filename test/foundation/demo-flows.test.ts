import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { loadDemo, type DemoDocument } from '../../src/demo/seed.js';

// The demo document drives the real routes: every named case behaves as demo-dataset.md promises.
let t: TestApp;
let doc: DemoDocument;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await loadDemo({ db: t.db, clock: t.clock, config: t.config })).document;
});
afterAll(() => t.close());

const key = () => ({ 'x-api-key': doc.providers.main.api_key });

describe('the demo through the API', () => {
  it('plan-change preview: an amount for invoiced, null with a note for cases a, b and c', async () => {
    const preview = (c: { subscription_id: string }) =>
      t.app.inject({
        url: `/partner/subscriptions/${c.subscription_id}/change-plan/preview?plan_version_id=${doc.plans.faster.plan_version_id}`,
        headers: key(),
      });
    const invoiced = await preview(doc.customers.invoiced);
    expect(invoiced.statusCode).toBe(200);
    expect(invoiced.json()).toMatchObject({ eligible: true, one_time_adjustment: { type: 'next_invoice_line' } });
    for (const c of [doc.customers.not_invoiced, doc.customers.missing_billing_document, doc.customers.missing_invoice]) {
      const r = await preview(c);
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({ eligible: true, one_time_adjustment: null, note: expect.any(String) });
    }
  });

  it('changed_today: a second plan change today answers 409', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: `/partner/subscriptions/${doc.customers.changed_today.subscription_id}/change-plan`,
      headers: key(),
      payload: { plan_version_id: doc.plans.faster.plan_version_id },
    });
    expect(r.statusCode).toBe(409);
  });

  it('ambiguous: the shared name is ambiguous, adding the unit makes it unique', async () => {
    const [a] = doc.customers.ambiguous;
    const search = (q: string) => t.app.inject({ url: `/agent/customers/search?q=${encodeURIComponent(q)}`, headers: key() });
    expect((await search(a.name)).json()).toMatchObject({ ambiguous: true, match_count: 2 });
    const unique = (await search(`${a.name} ${a.unit_label}`)).json();
    expect(unique).toMatchObject({ ambiguous: false, match_count: 1 });
    expect(unique.matches[0].customer_id).toBe(a.id);
  });

  it('serviceability: the first-line building by its "12 A" spelling, the Canadian one by its postcode, units with availability', async () => {
    const check = (address: string) => t.app.inject({ method: 'POST', url: '/serviceability/check', headers: key(), payload: { address } });
    const de = (await check('Invalidenstraße 12 A, 10115 Berlin')).json();
    expect(de).toMatchObject({ serviceable: true, building_id: doc.buildings.first_line.id });
    const s = doc.buildings.third_line.structured;
    const ca = (await check(`${s.house_number} ${s.street}, ${s.city}, ${s.province} ${s.postal_code}`)).json();
    expect(ca).toMatchObject({ serviceable: true, building_id: doc.buildings.third_line.id });
    const units = (await t.app.inject({ url: `/serviceability/units?building_id=${doc.buildings.second_line.id}`, headers: key() })).json()
      .units as { unit_id: string; available: boolean }[];
    expect(units.find((u) => u.unit_id === doc.buildings.second_line.free_unit_id)?.available).toBe(true);
    expect(units.find((u) => u.unit_id === doc.buildings.occupied_unit_id)?.available).toBe(false);
  });

  it('checkout sessions: expired and cancelled answer 410, pending is read by the checkout page', async () => {
    const get = (id: string) =>
      t.app.inject({ url: `/external-checkout/sessions/${id}`, headers: { 'x-webhook-secret': doc.providers.main.webhook_secret } });
    expect((await get(doc.checkout_sessions.expired.id)).statusCode).toBe(410);
    expect((await get(doc.checkout_sessions.cancelled.id)).statusCode).toBe(410);
    const pending = await get(doc.checkout_sessions.pending.id);
    expect(pending.statusCode).toBe(200);
    expect(pending.json().status).toBe('redirected');
  });

  it('pending_install: the admin confirms the shipped installation', async () => {
    const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: doc.providers.main.admin });
    const r = await t.app.inject({
      method: 'POST',
      url: '/provisioning/confirm-install',
      headers: { authorization: `Bearer ${login.json().access_token}` },
      payload: { subscription_id: doc.customers.pending_install.subscription_id },
    });
    expect(r.statusCode).toBe(200);
    const job = await t.db
      .selectFrom('install_jobs')
      .select('status')
      .where('id', '=', doc.customers.pending_install.install_job_id)
      .executeTakeFirstOrThrow();
    expect(job.status).toBe('COMPLETED');
  });

  it('the location hash of the first-line building resolves to its address (no auth)', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/location/lookup',
      payload: { location_hash: doc.buildings.first_line.location_hash },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ building_id: doc.buildings.first_line.id, postal_code: '10115' });
  });
});
