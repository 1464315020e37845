// Issue 29 §1: with the card simulator, the pay page's test form posts the card number to the
// simulator's own server (as Stripe.js posts to Stripe), never to this server's routes, and says so;
// the simulator sends the browser back to /pay/<token>/complete, where the server asks the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatorsOf } from '../../src/adapters/index.js';
import { startCardSimulatorServer } from '../../src/adapters/card.simulator-routes.js';
import { collectFirstPayment } from '../../src/modules/billing/first-payment.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { expectPageHeaders } from '../helpers/page-headers.js';
import { customer, mailsTo, tokenIn } from './fixtures.js';

let t: TestApp;
let sim: Awaited<ReturnType<typeof startCardSimulatorServer>>;
let simUrl: string;

beforeAll(async () => {
  // The simulator server starts first and reaches the app's simulator once the app is built.
  sim = await startCardSimulatorServer({
    simulator: () => simulatorsOf(t.deps.adapters).cardProcessor,
    returnOrigins: ['http://api.test'],
  });
  simUrl = sim.url;
  t = await buildTestApp({ env: { CARD_SIMULATOR_URL: simUrl } });
});
afterAll(async () => {
  await t.close();
  await sim.close();
});

async function awaitingPayment() {
  const c = await customer(t, { status: 'PENDING_INSTALL' });
  const r = await collectFirstPayment(t.deps, c.subscription.id);
  const token = tokenIn((await mailsTo(t, c.user.email))[0]!.text, '/pay/');
  return { c, token, invoiceId: r.invoiceId! };
}
const invoiceStatus = async (id: string) =>
  (await t.db.selectFrom('invoices').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

function formOf(body: string) {
  const action = /<form method="post" action="([^"]+)">/.exec(body)![1]!.replace(/&amp;/g, '&');
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(body)![1]!.replace(/&amp;/g, '&');
  return { action, clientSecret: field('client_secret'), returnUrl: field('return_url') };
}

const submit = (action: string, form: Record<string, string>) =>
  fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });

describe('pay page with the card simulator', () => {
  it("the test form posts to the simulator's own server, says so, and the CSP allows that form target only", async () => {
    const { token } = await awaitingPayment();
    const page = await t.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(200);
    expectPageHeaders(page, { token: true });
    const f = formOf(page.body);
    expect(f.action).toMatch(new RegExp(`^${simUrl}/payments/pi_\\w+/confirm$`));
    expect(f.returnUrl).toBe(`http://api.test/pay/${token}/complete`);
    expect(page.body).not.toContain(`action="/pay/`);
    expect(page.body).toContain("sends the card number to the card simulator's own server");
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain(`form-action 'self' ${new URL(simUrl).origin}`);
    expect(csp).not.toContain('script-src');
  });

  it('a declined card comes back failed (402, invoice open); a good card comes back and the server, asking the simulator, marks it paid', async () => {
    const { c, token, invoiceId } = await awaitingPayment();
    const f = formOf((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).body);

    const declined = await submit(f.action, { client_secret: f.clientSecret, return_url: f.returnUrl, card_number: '4000000000000002' });
    expect(declined.status).toBe(303);
    const back = new URL(declined.headers.get('location')!);
    expect(back.searchParams.get('redirect_status')).toBe('failed');
    expect((await t.app.inject({ method: 'GET', url: back.pathname + back.search })).statusCode).toBe(402);
    expect(await invoiceStatus(invoiceId)).toBe('open');

    const paid = await submit(f.action, { client_secret: f.clientSecret, return_url: f.returnUrl, card_number: '4242 4242 4242 4242' });
    const ok = new URL(paid.headers.get('location')!);
    expect(`${ok.origin}${ok.pathname}`).toBe(f.returnUrl);
    const done = await t.app.inject({ method: 'GET', url: ok.pathname + ok.search });
    expect(done.statusCode).toBe(200);
    expect(await invoiceStatus(invoiceId)).toBe('paid');
    const sub = await t.db.selectFrom('subscriptions').select('status').where('id', '=', c.subscription.id).executeTakeFirstOrThrow();
    expect(sub.status).toBe('ACTIVE');
  });

  it('the simulator refuses a wrong client secret (404) and a return_url elsewhere (400: no open redirect)', async () => {
    const { token } = await awaitingPayment();
    const f = formOf((await t.app.inject({ method: 'GET', url: `/pay/${token}` })).body);
    expect(
      (await submit(f.action, { client_secret: 'pi_x_secret_y', return_url: f.returnUrl, card_number: '4242424242424242' })).status,
    ).toBe(404);
    expect(
      (await submit(f.action, { client_secret: f.clientSecret, return_url: 'https://evil.example/x', card_number: '4242424242424242' }))
        .status,
    ).toBe(400);
  });
});

describe('pay page with the simulator server (CARD_SIMULATOR_URL unset)', () => {
  let t2: TestApp;
  beforeAll(async () => {
    t2 = await buildTestApp();
  });
  afterAll(() => t2.close());

  it("the form posts to the simulator server's /card mount (the app's own card simulator); a good card there pays the invoice", async () => {
    const c = await customer(t2, { status: 'PENDING_INSTALL' });
    const r = await collectFirstPayment(t2.deps, c.subscription.id);
    const token = tokenIn((await mailsTo(t2, c.user.email))[0]!.text, '/pay/');
    const page = await t2.app.inject({ method: 'GET', url: `/pay/${token}` });
    expect(page.statusCode).toBe(200);
    const server = t2.app.simulators!.url;
    const f = formOf(page.body);
    expect(f.action).toMatch(new RegExp(`^${server}/card/payments/pi_\\w+/confirm$`));
    expect(page.body).not.toContain(`action="/pay/`);
    expect(String(page.headers['content-security-policy'])).toContain(`form-action 'self' ${new URL(server).origin}`);

    const paid = await submit(f.action, { client_secret: f.clientSecret, return_url: f.returnUrl, card_number: '4242424242424242' });
    expect(paid.status).toBe(303);
    const back = new URL(paid.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(f.returnUrl);
    expect(back.searchParams.get('redirect_status')).toBe('succeeded');
    expect((await t2.app.inject({ method: 'GET', url: back.pathname + back.search })).statusCode).toBe(200);
    const inv = await t2.db.selectFrom('invoices').select('status').where('id', '=', r.invoiceId!).executeTakeFirstOrThrow();
    expect(inv.status).toBe('paid');
    // The simulator server serves only this server's origin as a return_url (no open redirect).
    const elsewhere = await submit(f.action, {
      client_secret: f.clientSecret,
      return_url: 'https://evil.example/x',
      card_number: '4242424242424242',
    });
    expect(elsewhere.status).toBe(400);
  });
});
