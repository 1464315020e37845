import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePhoneNumber } from 'awesome-phonenumber';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { buildDemoDataset } from '../../src/demo/dataset.js';
import { DemoRefused, loadDemo, readDemoDocument, type DemoDocument } from '../../src/demo/seed.js';
import { addMonths, monthStart } from '../../src/lib/dates.js';

let t: TestApp;
let doc: DemoDocument;
let today: string;
let month: string;

beforeAll(async () => {
  t = await buildTestApp();
  const load = await loadDemo({ db: t.db, clock: t.clock, config: t.config });
  expect(load.created).toBe(true);
  doc = load.document;
  today = t.clock.now().toISOString().slice(0, 10);
  month = monthStart(t.clock.now());
});
afterAll(() => t.close());

const sub = (id: string) => t.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const invoicesOf = (subscriptionId: string) =>
  t.db.selectFrom('invoices').selectAll().where('subscription_id', '=', subscriptionId).orderBy('period_start').execute();
const docsOf = (subscriptionId: string) =>
  t.db.selectFrom('billing_documents').selectAll().where('subscription_id', '=', subscriptionId).execute();

describe('loading', () => {
  it('loads the whole dataset in one go (its load time is in the start banner, not asserted here)', () => {
    expect(doc.counts.subscribers).toBeGreaterThanOrEqual(200);
  });

  it('leaves the planner statistics of what it loaded: a name search reads the name index, not every customer', async () => {
    const analyzed = await sql<{ n: number }>`SELECT count(DISTINCT tablename)::int AS n FROM pg_stats
      WHERE schemaname = 'public' AND tablename IN ('subscribers', 'subscriptions', 'buildings', 'units', 'locations')`.execute(t.db);
    expect(analyzed.rows[0]!.n).toBe(5);
    const plan = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT id FROM subscribers
      WHERE agent_search_name_keys_keyed(provider_id, first_name, last_name, invoice_first_name, invoice_last_name)
          @> agent_search_keyed(${doc.providers.main.id}, ARRAY['mason gauthier'])
        AND provider_id = ${doc.providers.main.id}`.execute(t.db);
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('subscribers_search_name_keys_keyed_idx');
  });

  it('is idempotent: a second load returns the stored document byte for byte and inserts nothing', async () => {
    const before = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const again = await loadDemo({ db: t.db, clock: t.clock, config: t.config });
    expect(again.created).toBe(false);
    expect(JSON.stringify(again.document)).toBe(JSON.stringify(doc));
    const after = await t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect(await readDemoDocument(t.db)).toEqual(doc);
  });

  it('refuses NODE_ENV=production without touching the database', async () => {
    await expect(loadDemo({ db: t.db, clock: t.clock, config: { ...t.config, NODE_ENV: 'production' } })).rejects.toBeInstanceOf(
      DemoRefused,
    );
  });

  it('generates fresh secrets on every load (never fixed in code)', async () => {
    const opts = { now: t.clock.now(), baseUrl: 'http://x.test', externalCheckoutUrl: 'http://x.test/pay', webhookUrl: null, occupancy: 0 };
    const [a, b] = await Promise.all([buildDemoDataset(opts), buildDemoDataset(opts)]);
    const secrets = (d: DemoDocument) => [
      d.providers.main.api_key,
      d.providers.main.webhook_secret,
      d.providers.main.webhook_signing_secret,
      d.providers.main.admin.password,
      d.providers.other.api_key,
      d.customers.activated.password,
    ];
    for (const [x, y] of secrets(a.document).map((s, i) => [s, secrets(b.document)[i]])) expect(x).not.toBe(y);
  });

  it('reads DEMO_WEBHOOK_URL and DEMO_EXTERNAL_CHECKOUT_URL, defaulting the checkout page to the sandbox page', async () => {
    const main = await t.db.selectFrom('providers').selectAll().where('id', '=', doc.providers.main.id).executeTakeFirstOrThrow();
    expect(main.external_checkout_url).toBe('http://api.test/sandbox/checkout');
    expect(main.webhook_url).toBeNull();
    const custom = await buildDemoDataset({
      now: t.clock.now(),
      baseUrl: 'http://x.test',
      externalCheckoutUrl: 'https://shop.example/checkout',
      webhookUrl: 'https://hooks.example/in',
      occupancy: 0,
    });
    expect(custom.rows.providers[0]).toMatchObject({
      webhook_url: 'https://hooks.example/in',
      external_checkout_url: 'https://shop.example/checkout',
    });
    expect(custom.document).toMatchObject({
      webhook_url: 'https://hooks.example/in',
      external_checkout_url: 'https://shop.example/checkout',
    });
  });
});

describe('providers and credentials', () => {
  it('main: a key with every feature, webhook secret, Standard Webhooks signing secret, card processor, no SMS', async () => {
    const m = doc.providers.main;
    const key = await t.services.auth.authenticateApiKey(m.api_key);
    expect(key).toMatchObject({ ok: true, principal: { providerId: m.id } });
    if (key.ok) expect([...key.principal.features].sort()).toEqual(['agent_api_access', 'provisioning:write', 'serviceability:read']);
    expect(await t.services.auth.authenticateWebhookSecret(m.webhook_secret)).toMatchObject({ ok: true, principal: { providerId: m.id } });
    expect(m.webhook_signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(m.webhook_signing_secret.slice(6), 'base64')).toHaveLength(32);
    const row = await t.db.selectFrom('providers').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ sms_configured: false, disabled: false, webhook_signing_secret: m.webhook_signing_secret });
    expect(row.card_processor_account).toBeTruthy();
    // Stored as prefix + hash only.
    const keys = await t.db.selectFrom('api_keys').selectAll().where('provider_id', '=', m.id).execute();
    expect(JSON.stringify(keys)).not.toContain(m.api_key.slice(12));
  });

  it('admin (sp_admin), support staff and the activated customer log in with the printed passwords', async () => {
    for (const [creds, role, sp] of [
      [doc.providers.main.admin, 'service_provider', 'sp_admin'],
      [doc.providers.main.support, 'service_provider', 'support'],
      [doc.platform_admin, 'platform_admin', null],
    ] as const) {
      const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: creds });
      expect(r.statusCode).toBe(200);
      const p = await t.services.auth.authenticateBearer(`Bearer ${r.json().access_token}`);
      expect(p).toMatchObject({ ok: true, principal: { role, spRole: sp } });
    }
    const c = doc.customers.activated;
    const r = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: c.email, password: c.password } });
    expect(r.statusCode).toBe(200);
    expect(r.json().role).toBe('subscriber');
  });

  it('other has full access; no_agent_access lacks agent_api_access; disabled is disabled', async () => {
    const other = await t.services.auth.authenticateApiKey(doc.providers.other.api_key);
    expect(other.ok && other.principal.features).toContain('agent_api_access');
    expect(await t.services.auth.authenticateWebhookSecret(doc.providers.other.webhook_secret)).toMatchObject({ ok: true });
    const na = await t.services.auth.authenticateApiKey(doc.providers.no_agent_access.api_key);
    expect(na.ok).toBe(true);
    expect(na.ok && na.principal.features).not.toContain('agent_api_access');
    expect(na.ok && na.principal.features).toContain('provisioning:write');
    expect(await t.services.auth.authenticateApiKey(doc.providers.disabled.api_key)).toEqual({ ok: false, failure: 'disabled' });
  });
});

describe('plans', () => {
  it('basic < fast < faster of the main provider, each with a store_product_id; other_provider belongs to other', async () => {
    const pv = async (id: string) => t.db.selectFrom('plan_versions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const [b, f, ff, o] = await Promise.all(
      [doc.plans.basic, doc.plans.fast, doc.plans.faster, doc.plans.other_provider].map((p) => pv(p.plan_version_id)),
    );
    expect(b!.monthly_price_cents).toBeLessThan(f!.monthly_price_cents);
    expect(f!.monthly_price_cents).toBeLessThan(ff!.monthly_price_cents);
    for (const p of [b, f, ff]) {
      expect(p!.provider_id).toBe(doc.providers.main.id);
      expect(p!.store_product_id).toBeTruthy();
    }
    expect(o!.provider_id).toBe(doc.providers.other.id);
    expect(doc.plans.fast.monthly_price).toMatch(/^\d+\.\d{2}$/);
  });
});

describe('customers', () => {
  it('every named customer carries id, customer_number, email, name, subscription_id and phone matching the database', async () => {
    const { ambiguous, ...named } = doc.customers;
    for (const c of [...Object.values(named), ...ambiguous]) {
      const s = await t.db.selectFrom('subscribers').selectAll().where('id', '=', c.id).executeTakeFirstOrThrow();
      expect(s).toMatchObject({
        customer_number: c.customer_number,
        email: c.email,
        first_name: c.first_name,
        last_name: c.last_name,
        phone: c.phone,
      });
      expect(c.name).toBe(`${c.first_name} ${c.last_name}`);
      expect((await sub(c.subscription_id)).subscriber_id).toBe(c.id);
      expect(s.provider_id).toBe(c === doc.customers.other_provider ? doc.providers.other.id : doc.providers.main.id);
    }
  });

  it('invoiced: ACTIVE on fast, current month invoiced with its billing document, paid and unpaid invoices, modem known', async () => {
    const c = doc.customers.invoiced;
    expect(await sub(c.subscription_id)).toMatchObject({
      status: 'ACTIVE',
      service_billed: true,
      plan_version_id: doc.plans.fast.plan_version_id,
    });
    const inv = await invoicesOf(c.subscription_id);
    const current = inv.find((i) => i.period_start === month)!;
    expect(current).toMatchObject({ status: 'open', kind: 'monthly', id: c.open_invoice_id });
    expect((await docsOf(c.subscription_id)).find((d) => d.period_start === month)?.invoice_id).toBe(current.id);
    const paid = inv.filter((i) => i.status === 'paid');
    expect(paid.length).toBeGreaterThanOrEqual(1);
    for (const p of paid) expect(p.payment_intent_id && p.payment_reference && p.paid_at).toBeTruthy();
    expect(inv.filter((i) => i.status === 'open')).toHaveLength(1); // nothing overdue that would suspend it
    expect(current.due_date >= today).toBe(true); // mid-month the open invoice is not even due yet
    expect(
      await t.db.selectFrom('modem_status').selectAll().where('subscription_id', '=', c.subscription_id).executeTakeFirst(),
    ).toMatchObject({ state: 'online' });
    // A year of invoices, one a month, each with its billing document.
    expect(inv.map((i) => i.period_start)).toEqual(Array.from({ length: 12 }, (_, i) => addMonths(month, i - 11)));
    expect(await docsOf(c.subscription_id)).toHaveLength(12);
  });

  it('preview cases: not_invoiced has neither, missing_billing_document lacks the document, missing_invoice lacks the invoice', async () => {
    const state = async (subscriptionId: string) => ({
      invoice: (await invoicesOf(subscriptionId)).find((i) => i.period_start === month) ?? null,
      document: (await docsOf(subscriptionId)).find((d) => d.period_start === month) ?? null,
    });
    const a = await state(doc.customers.not_invoiced.subscription_id);
    expect(a).toEqual({ invoice: null, document: null });
    const bCase = await state(doc.customers.missing_billing_document.subscription_id);
    expect(bCase.invoice).not.toBeNull();
    expect(bCase.document).toBeNull();
    const cCase = await state(doc.customers.missing_invoice.subscription_id);
    expect(cCase.invoice).toBeNull();
    expect(cCase.document).toMatchObject({ invoice_id: null });
    for (const c of [doc.customers.not_invoiced, doc.customers.missing_billing_document, doc.customers.missing_invoice]) {
      expect(await sub(c.subscription_id)).toMatchObject({ status: 'ACTIVE', service_billed: true });
    }
    // Case (b) is a long-standing customer whose earlier months are invoiced normally.
    expect(
      (await invoicesOf(doc.customers.missing_billing_document.subscription_id)).some((i) => i.period_start === addMonths(month, -1)),
    ).toBe(true);
  });

  it('changed_today: a plan change dated today (UTC), so a second one is refused', async () => {
    const c = doc.customers.changed_today;
    const pc = await t.db.selectFrom('plan_changes').selectAll().where('subscriber_id', '=', c.id).execute();
    expect(pc).toHaveLength(1);
    expect(pc[0]).toMatchObject({
      change_date: today,
      to_plan_version_id: doc.plans.fast.plan_version_id,
      from_plan_version_id: doc.plans.basic.plan_version_id,
    });
    expect(await sub(c.subscription_id)).toMatchObject({ plan_version_id: doc.plans.fast.plan_version_id, status: 'ACTIVE' });
    // The one-change-a-day constraint holds for this customer today.
    await expect(
      t.db
        .insertInto('plan_changes')
        .values({ ...pc[0], id: crypto.randomUUID(), created_at: new Date() } as never)
        .execute(),
    ).rejects.toThrow();
  });

  it('activated has a password and credit notes; not_activated has a user without password', async () => {
    const a = doc.customers.activated;
    const sa = await t.db
      .selectFrom('subscribers')
      .innerJoin('users', 'users.id', 'subscribers.user_id')
      .select(['users.password_hash', 'users.email'])
      .where('subscribers.id', '=', a.id)
      .executeTakeFirstOrThrow();
    expect(sa.password_hash).toBeTruthy();
    expect(sa.email).toBe(a.email);
    expect((await sub(a.subscription_id)).service_billed).toBe(true);
    expect((await invoicesOf(a.subscription_id)).length).toBeGreaterThan(1);
    const notes = await t.db.selectFrom('credit_notes').selectAll().where('subscriber_id', '=', a.id).execute();
    expect(notes.map((n) => n.state).sort()).toEqual(['applied', 'open']);
    const n = doc.customers.not_activated;
    const sn = await t.db
      .selectFrom('subscribers')
      .innerJoin('users', 'users.id', 'subscribers.user_id')
      .select(['users.password_hash', 'users.email'])
      .where('subscribers.id', '=', n.id)
      .executeTakeFirstOrThrow();
    expect(sn).toEqual({ password_hash: null, email: n.email });
  });

  it('suspended is SUSPENDED; pending_install is PENDING_INSTALL with a SHIPPED install job', async () => {
    expect(await sub(doc.customers.suspended.subscription_id)).toMatchObject({ status: 'SUSPENDED' });
    const p = doc.customers.pending_install;
    expect(await sub(p.subscription_id)).toMatchObject({ status: 'PENDING_INSTALL', location_id: null, activated_at: null });
    const job = await t.db
      .selectFrom('install_jobs')
      .selectAll()
      .where('subscription_id', '=', p.subscription_id)
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ id: p.install_job_id, status: 'SHIPPED', unit_id: p.unit_id });
    // The installed port is registered for the unit, so staff can confirm the installation.
    expect(await t.db.selectFrom('locations').select('id').where('unit_id', '=', p.unit_id).execute()).toHaveLength(1);
  });

  it('ambiguous: same first and last name, same building, different units', async () => {
    const [x, y] = doc.customers.ambiguous;
    expect([x.first_name, x.last_name]).toEqual([y.first_name, y.last_name]);
    expect(x.id).not.toBe(y.id);
    const [sx, sy] = await Promise.all([sub(x.subscription_id), sub(y.subscription_id)]);
    expect(sx.building_id).toBe(sy.building_id);
    expect(sx.unit_id).not.toBe(sy.unit_id);
    const labels = await t.db.selectFrom('units').select('label').where('id', 'in', [sx.unit_id!, sy.unit_id!]).execute();
    expect(new Set(labels.map((l) => l.label))).toEqual(new Set([x.unit_label, y.unit_label]));
    // Nobody else of the provider shares the name.
    const same = await t.db
      .selectFrom('subscribers')
      .select('id')
      .where('provider_id', '=', doc.providers.main.id)
      .where('first_name', '=', x.first_name)
      .where('last_name', '=', x.last_name)
      .execute();
    expect(same).toHaveLength(2);
  });

  it('named customers are unique by name, so a search for one finds exactly one', async () => {
    const { ambiguous: _a, other_provider: _o, ...named } = doc.customers;
    for (const c of Object.values(named)) {
      const rows = await t.db
        .selectFrom('subscribers')
        .select('id')
        .where('provider_id', '=', doc.providers.main.id)
        .where('last_name', '=', c.last_name)
        .execute();
      expect(rows).toHaveLength(1);
    }
  });

  it('phones are stored as written, in varied formats, with an E.164 form for search', async () => {
    const rows = await t.db
      .selectFrom('subscribers')
      .select(['phone', 'phone_e164', 'invoice_country'])
      .where('provider_id', '=', doc.providers.main.id)
      .execute();
    for (const r of rows) expect(r.phone_e164).toBe(parsePhoneNumber(r.phone!, { regionCode: r.invoice_country! }).number?.e164);
    const shapes = new Set(rows.map((r) => r.phone!.replace(/\d/g, '9')));
    expect(shapes.size).toBeGreaterThanOrEqual(10);
    expect(new Set(rows.map((r) => r.phone_e164)).size).toBe(rows.length);
  });
});

describe('buildings, coverage and sessions', () => {
  it('the four named buildings have their line types and free units; occupied_unit_id is taken by an ACTIVE subscription', async () => {
    const bs = doc.buildings;
    for (const [key, line] of [
      ['first_line', 'first_line'],
      ['second_line', 'second_line'],
      ['third_line', 'third_line'],
      ['unclassified', null],
    ] as const) {
      const bl = await t.db.selectFrom('buildings').selectAll().where('id', '=', bs[key].id).executeTakeFirstOrThrow();
      expect(bl).toMatchObject({ line_type: line, provider_id: doc.providers.main.id, in_coverage: true });
      const unit = await t.db.selectFrom('units').selectAll().where('id', '=', bs[key].free_unit_id).executeTakeFirstOrThrow();
      expect(unit.building_id).toBe(bl.id);
      const occupying = await t.db
        .selectFrom('subscriptions')
        .select('id')
        .where('unit_id', '=', unit.id)
        .where('status', 'in', ['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED'])
        .execute();
      expect(occupying).toHaveLength(0);
      expect(await t.db.selectFrom('coverage_addresses').select('display').where('building_id', '=', bl.id).executeTakeFirst()).toEqual({
        display: bs[key].address,
      });
    }
    const loc = await t.db
      .selectFrom('locations')
      .selectAll()
      .where('location_hash', '=', bs.first_line.location_hash)
      .executeTakeFirstOrThrow();
    expect(loc).toMatchObject({ building_id: bs.first_line.id, location_identifier: bs.first_line.location_identifier });
    expect(loc.switch_port).toBeTruthy();
    const onPort = await t.db.selectFrom('subscriptions').select('id').where('location_id', '=', loc.id).execute();
    expect(onPort).toHaveLength(0);
    const occ = await t.db
      .selectFrom('subscriptions')
      .innerJoin('units', 'units.id', 'subscriptions.unit_id')
      .select(['subscriptions.status', 'units.building_id'])
      .where('subscriptions.unit_id', '=', bs.occupied_unit_id)
      .execute();
    expect(occ).toContainEqual({ status: 'ACTIVE', building_id: bs.second_line.id });
    expect(await t.db.selectFrom('locations').select('id').where('unit_id', '=', bs.first_line.suite_only_unit_id).execute()).toHaveLength(
      0,
    );
  });

  it("each named building states its region's IANA time zone, and the regions table gives the same one (Berlin, Toronto)", async () => {
    const bs = doc.buildings;
    expect(bs.first_line.time_zone).toBe('Europe/Berlin');
    expect(bs.third_line).toMatchObject({ region: 'CA-ON', time_zone: 'America/Toronto' });
    for (const key of ['first_line', 'second_line', 'third_line', 'unclassified', 'other_provider'] as const) {
      const row = await t.db
        .selectFrom('buildings as b')
        .innerJoin('regions as r', 'r.code', 'b.region')
        .select(['b.region', 'r.time_zone'])
        .where('b.id', '=', bs[key].id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ region: bs[key].region, time_zone: bs[key].time_zone });
    }
  });

  it('coverage holds German "12a" and "12 A" spellings (both normalised to 12A) and a Canadian A1A 1A1 postcode', async () => {
    const rows = await t.db.selectFrom('coverage_addresses').selectAll().where('provider_id', '=', doc.providers.main.id).execute();
    const de = rows.filter((r) => r.country === 'DE' && r.postal_code === '10115' && r.house_number_norm === '12A');
    expect(de.map((r) => r.house_number).sort()).toEqual(['12 A', '12a']);
    for (const r of rows) {
      expect(r.search_key).toBe(r.search_key.toLowerCase());
      expect(r.search_key).not.toMatch(/\d [a-z]\b/);
    }
    expect(de.find((r) => r.house_number === '12 A')!.search_key).toContain('12a');
    const ca = rows.find((r) => r.country === 'CA' && r.building_id === doc.buildings.third_line.id)!;
    expect(ca.postal_code).toMatch(/^[A-Z]\d[A-Z] \d[A-Z]\d$/);
    expect(ca.house_number_norm).toMatch(/^\d+[A-Z]$/);
  });

  it('checkout sessions: pending fresh on the port, suite-only without port, expired over 2 h old and never read, cancelled', async () => {
    const get = (id: string) => t.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const now = t.clock.now().getTime();
    const loc = await t.db
      .selectFrom('locations')
      .select('id')
      .where('location_hash', '=', doc.buildings.first_line.location_hash)
      .executeTakeFirstOrThrow();
    const p = await get(doc.checkout_sessions.pending.id);
    expect(p).toMatchObject({
      status: 'pending',
      location_id: loc.id,
      building_id: doc.buildings.first_line.id,
      redirected_at: null,
      provider_id: doc.providers.main.id,
    });
    expect(now - p.created_at.getTime()).toBeLessThan(60_000);
    const s = await get(doc.checkout_sessions.suite_only.id);
    expect(s).toMatchObject({
      status: 'pending',
      location_id: null,
      unit_id: doc.buildings.first_line.suite_only_unit_id,
      building_id: doc.buildings.first_line.id,
    });
    const e = await get(doc.checkout_sessions.expired.id);
    expect(e).toMatchObject({ status: 'pending', redirected_at: null });
    expect(now - e.created_at.getTime()).toBeGreaterThan(2 * 3_600_000);
    expect(await get(doc.checkout_sessions.cancelled.id)).toMatchObject({ status: 'cancelled' });
  });
});

describe('volume', () => {
  it('a few hundred customers over several buildings with a year of invoices, usage and connection history', async () => {
    const count = async (table: 'subscribers' | 'buildings' | 'usage_monthly' | 'status_events' | 'modem_status') =>
      Number(
        (
          await t.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('subscribers')).toBeGreaterThanOrEqual(250);
    expect(await count('buildings')).toBeGreaterThanOrEqual(8);
    expect(await count('status_events')).toBeGreaterThan(100);
    expect(await count('modem_status')).toBeGreaterThan(100);
    const months = await t.db.selectFrom('invoices').select('period_start').distinct().execute();
    expect(months).toHaveLength(12);
    const usage = await t.db
      .selectFrom('usage_monthly')
      .select('month')
      .where('subscription_id', '=', doc.customers.invoiced.subscription_id)
      .execute();
    expect(usage).toHaveLength(12);
    // Only the current month may be unpaid: nothing is overdue enough to trigger automatic suspension.
    const overdue = await t.db.selectFrom('invoices').select('id').where('status', '=', 'open').where('period_start', '<', month).execute();
    expect(overdue).toHaveLength(0);
  });
});

describe('spare first-line ports', () => {
  it('lists at least five spare ports of the first-line building that no seeded session or customer uses, and each provisions at once', async () => {
    const spares = doc.buildings.first_line.spare_location_hashes;
    expect(spares.length).toBeGreaterThanOrEqual(5);
    expect(new Set([...spares, doc.buildings.first_line.location_hash]).size).toBe(spares.length + 1);
    const locs = await t.db.selectFrom('locations').selectAll().where('location_hash', 'in', spares).execute();
    expect(locs).toHaveLength(spares.length);
    for (const loc of locs) {
      expect(loc).toMatchObject({ building_id: doc.buildings.first_line.id, provider_id: doc.providers.main.id });
      expect(loc.switch_port).toBeTruthy();
      expect(loc.unit_id).not.toBeNull();
      expect(
        await t.db
          .selectFrom('subscriptions')
          .select('id')
          .where((eb) => eb.or([eb('location_id', '=', loc.id), eb('unit_id', '=', loc.unit_id!)]))
          .execute(),
      ).toEqual([]);
      expect(
        await t.db
          .selectFrom('checkout_sessions')
          .select('id')
          .where((eb) => eb.or([eb('location_id', '=', loc.id), eb('unit_id', '=', loc.unit_id!)]))
          .execute(),
      ).toEqual([]);
    }
    // Each one provisions a line of its own (route provision, ACTIVE); run last in this file, it changes the data.
    for (const [i, hash] of spares.entries()) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/provisioning/provider-initiated',
        headers: { 'x-api-key': doc.providers.main.api_key },
        payload: {
          plan_version_id: doc.plans.basic.plan_version_id,
          location_hash: hash,
          subscriber: { email: `spare-${i}@example.test`, first_name: 'Spare', last_name: `Port${i}` },
        },
      });
      expect(r.statusCode, hash).toBe(201);
      expect(r.json().route).toBe('provision');
      expect((await sub(r.json().subscription_id)).status).toBe('ACTIVE');
    }
  });
});
