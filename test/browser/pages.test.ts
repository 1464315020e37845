import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, DEFAULT_NOW, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createPlanVersion, createProvider } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { customer, mailsTo, tokenIn } from '../billing/fixtures.js';
import { createWorld, subscriber } from '../provisioning/fixtures.js';
import { TEST_CARDS } from '../../src/adapters/index.js';
import { collectFirstPayment } from '../../src/modules/billing/first-payment.js';

// The pages a person sees, in a real browser: headless Chromium from the distribution's packages
// (`apt-get install -y chromium`; .ci/run installs it) driven by playwright-core, against the app
// listening on a free port. Without Chromium these tests are skipped with one loud line.
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)('pages in a real browser (Chromium)', () => {
  // A browser on a shared 2-core machine: first loads of Swagger UI take seconds.
  vi.setConfig({ testTimeout: 90_000 });
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await buildTestApp({ env: { SANDBOX: 'true', PUBLIC_BASE_URL: base } });
    await t.app.listen({ host: '127.0.0.1', port });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeAll(async () => {
    page = await browser.newPage();
    page.setDefaultTimeout(40_000);
  });
  afterEach(() => t.clock.set(DEFAULT_NOW));

  it('a person books an installation window on the booking page, and sees the appointment', async () => {
    const w = await createWorld(t);
    const person = subscriber();
    const order = await t.app.inject({
      method: 'POST',
      url: '/provisioning/provider-initiated',
      headers: w.hdr,
      payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.third.units[0]!.id, subscriber: person },
    });
    expect(order.statusCode).toBe(201);
    const [mail] = (await mailsTo(t, person.email)).filter((m) => m.tag === 'installation_booking');
    const token = /\/booking\/([A-Za-z0-9_-]+)/.exec(mail!.text)![1];

    const r = await page.goto(`${base}/booking/${token}`);
    expect(r!.status()).toBe(200);
    await expect.poll(() => page.locator('h1').textContent()).toBe('Installation appointment');
    const first = page.locator('button[data-start]').first();
    const startsAt = await first.getAttribute('data-start');
    // The button's script posts the window and reloads the page.
    await Promise.all([page.waitForEvent('load'), first.click()]);
    await expect.poll(() => page.locator('section.current').textContent()).toContain('Your appointment');
    expect(await page.locator('button[data-cancel]').count()).toBe(1);
    const slots = (await t.app.inject({ method: 'GET', url: `/booking/${token}/slots` })).json();
    expect(slots).toMatchObject({ status: 'BOOKED', booking: { starts_at: startsAt } });
  });

  it('a person pays the first invoice by card on the payment page: a declined card first, then a good one', async () => {
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    await collectFirstPayment(t.deps, c.subscription.id);
    const [mail] = await mailsTo(t, c.user.email);
    const token = tokenIn(mail!.text, '/pay/');

    await page.goto(`${base}/pay/${token}`);
    expect(await page.locator('h1').textContent()).toBe('Pay your first invoice');
    await page.fill('#card_number', TEST_CARDS.declined);
    const declined = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]).then(([nav]) => nav);
    expect(declined!.status()).toBe(402);
    expect(await page.locator('h1').textContent()).toBe('Payment not completed');
    expect(await page.locator('body').textContent()).toMatch(/declined/i);

    // The form is offered again: the link still works.
    await page.fill('#card_number', TEST_CARDS.succeeds);
    const paid = await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]).then(([nav]) => nav);
    expect(paid!.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Invoice paid');
    const sub = await t.db.selectFrom('subscriptions').select('status').where('id', '=', c.subscription.id).executeTakeFirstOrThrow();
    expect(sub.status).toBe('ACTIVE');
  });

  it('an expired payment link shows "Link not valid" (404) and no card form', async () => {
    const c = await customer(t, { status: 'PENDING_INSTALL' });
    const r = await collectFirstPayment(t.deps, c.subscription.id);
    const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
    await t.db
      .updateTable('link_tokens')
      .set({ expires_at: new Date(Date.parse(DEFAULT_NOW) - 60_000) })
      .where('reference_id', '=', r.invoiceId!)
      .execute();

    const res = await page.goto(`${base}/pay/${token}`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Link not valid');
    expect(await page.locator('#card_number').count()).toBe(0);
  });

  async function checkoutSession(o: { createdAgoMs?: number } = {}) {
    const p = await createProvider(t.db, { externalCheckoutUrl: `${base}/sandbox/checkout` });
    const plan = await createPlanVersion(t.db, p.id, { name: 'Fibre 500', priceCents: 4999 });
    const b = await createBuilding(t.db, p.id, { lineType: 'first_line', units: ['4B'] });
    const loc = await createLocation(t.db, p.id, b.id, b.units[0]!.id);
    const created = await t.app.inject({
      method: 'POST',
      url: '/external-checkout/sessions',
      payload: { provider_id: p.id, plan_version_id: plan.id, location_hash: loc.locationHash },
    });
    expect(created.statusCode).toBe(201);
    const s = created.json<{ session_id: string; checkout_url: string }>();
    if (o.createdAgoMs) {
      const at = new Date(Date.parse(DEFAULT_NOW) - o.createdAgoMs);
      await t.db.updateTable('checkout_sessions').set({ created_at: at, updated_at: at }).where('id', '=', s.session_id).execute();
    }
    return s;
  }

  it('a person pays on the sandbox checkout page: the session completes and the page says so', async () => {
    const s = await checkoutSession();
    expect(s.checkout_url.startsWith(`${base}/sandbox/checkout?session_id=`)).toBe(true);
    await page.goto(s.checkout_url);
    expect(await page.locator('body').textContent()).toContain('49.99 EUR');
    await page.fill('#email', 'browser.payer@example.test');
    await page.fill('#first_name', 'Brigitte');
    await page.fill('#last_name', 'Browser');
    const nav = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: /^Pay / }).click()]).then(([n]) => n);
    expect(nav!.status()).toBe(201);
    expect(await page.locator('body').textContent()).toContain('Payment successful');
    const row = await t.db
      .selectFrom('checkout_sessions')
      .select(['status', 'subscription_id'])
      .where('id', '=', s.session_id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('completed');
    expect(row.subscription_id).not.toBeNull();
  });

  it('an expired checkout session shows "Session no longer available" (410) without a Pay button', async () => {
    const s = await checkoutSession({ createdAgoMs: 3 * 3_600_000 });
    const res = await page.goto(s.checkout_url);
    expect(res!.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('Session no longer available');
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
  });

  // Swagger UI: Authorize with the API key, open one operation, Try it out, Execute: 200 in the live response.
  async function tryItOut(docs: string, path: string, params: Record<string, string>, apiKey: string) {
    await page.goto(`${base}${docs}`);
    await page.locator('.btn.authorize').first().click();
    const scheme = page.locator('.modal-ux .auth-container').filter({ hasText: 'X-API-Key' });
    await scheme.locator('input').fill(apiKey);
    await scheme.locator('button.authorize').click(); // its accessible name is "Apply credentials"
    await page.locator('.modal-ux .close-modal').click();
    const op = page
      .locator('.opblock-get')
      .filter({ has: page.locator(`[data-path="${path}"]`) })
      .first();
    await op.locator('.opblock-summary').first().click();
    await op.locator('.try-out__btn').click();
    for (const [name, value] of Object.entries(params)) await op.locator(`tr[data-param-name="${name}"] input`).fill(value);
    await op.locator('.execute').click();
    const status = op.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 40_000 }).toMatch(/^\s*200/);
    return op;
  }

  it('the agent explorer /agent/docs: Authorize with the API key, Try it out on the customer search answers 200', async () => {
    const p = await createProvider(t.db);
    const op = await tryItOut('/agent/docs', '/agent/customers/search', { q: 'Nobody Here' }, p.apiKey);
    expect(await op.locator('.live-responses-table').textContent()).toContain('match_count');
  });

  it('the partner explorer /docs: Authorize with the API key, Try it out on the address autocomplete answers 200', async () => {
    const p = await createProvider(t.db);
    const op = await tryItOut('/docs', '/serviceability/autocomplete', { q: 'Hauptstr' }, p.apiKey);
    expect(await op.locator('.live-responses-table').textContent()).toContain('suggestions');
  });
});

if (!haveChromium) {
  console.warn(
    `\n######## SKIPPED: browser tests (test/browser/): no Chromium at ${CHROMIUM}; install it with apt-get install -y chromium, or set CHROMIUM_PATH ########\n`,
  );
}
