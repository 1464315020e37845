// docs/go-live.md, followed: an empty database in production mode, no demo seed, the operator CLI
// alone (its commands run in-process against this app's services, as `npm run ops` runs them against
// the database), a real SMTP server standing in for the provider's mail relay, the local stand-in for
// Stripe's API as the card processor, and an https base URL: up to a first completed checkout session,
// a first verified /agent conversation, and the new subscriber's first card saved at the processor.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runningSimulatorServers, SIMULATOR_PLUGINS, startSimulatorServer, type SimulatorServer } from '../../src/adapters/index.js';
import { startStripeStandIn } from '../../src/adapters/stripe.simulator-server.js';
import { runOps } from '../../src/cli/ops-program.js';
import { randomAlnum } from '../../src/lib/ids.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { productionEnv } from '../helpers/production.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

const SAMPLES = path.resolve(import.meta.dirname, '../../docs/import-samples');
let t: TestApp;
let sink: SmtpSink;
// The provider's switch controller and billing system: their published contracts, served by the
// simulators' HTTP server at the URLs the operator configures (production builds no simulator).
let systems: SimulatorServer;
let simulatorsBefore: number;
let stripe: Awaited<ReturnType<typeof startStripeStandIn>>;
const PUBLISHABLE = `pk_test_${randomAlnum(24)}`;

beforeAll(async () => {
  sink = await startSmtpSink();
  stripe = await startStripeStandIn();
  // DATABASE_URL is only read by the configuration here: the app is handed this test's own database.
  const port = await freePort();
  const secrets = { switch: `whsec_${randomBytes(32).toString('base64')}`, billing: `whsec_${randomBytes(32).toString('base64')}` };
  const env = productionEnv({
    SMTP_URL: sink.url,
    TEST_ALLOW_LOOPBACK: 'true',
    SWITCH_URL: `http://127.0.0.1:${port}/switch`,
    SWITCH_SECRET: secrets.switch,
    BILLING_URL: `http://127.0.0.1:${port}/billing`,
    BILLING_SECRET: secrets.billing,
    STRIPE_SECRET_KEY: `sk_test_${randomAlnum(24)}`,
    STRIPE_PUBLISHABLE_KEY: PUBLISHABLE,
    STRIPE_WEBHOOK_SECRET: `whsec_${randomAlnum(32)}`,
    STRIPE_API_URL: stripe.url,
  });
  simulatorsBefore = runningSimulatorServers();
  // VITEST: the loopback allowance holds only inside the test runner (config.ts).
  t = await buildTestApp({
    env: { ...env, VITEST: process.env.VITEST ?? '', LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', SCHEDULER_ENABLED: 'false' },
  });
  systems = await startSimulatorServer({ db: t.db, clock: t.clock, port, plugins: SIMULATOR_PLUGINS, secrets });
});
afterAll(async () => {
  await t?.close();
  await systems?.close();
  await sink?.close();
  await stripe?.close();
});

async function ops(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runOps(argv, async () => t.services, { out: (s) => void (out += s), err: (s) => void (err += s) });
  expect(code, `${argv.join(' ')}: ${err}`).toBe(0);
  return JSON.parse(out);
}
const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: object) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

describe('go live (docs/go-live.md)', () => {
  it('from an empty production database to a completed checkout, a verified /agent conversation and a card saved at Stripe, with the CLI alone', async () => {
    expect(t.config.NODE_ENV).toBe('production');
    expect(t.app.simulators).toBeNull();
    expect(runningSimulatorServers()).toBe(simulatorsBefore + 1); // the test's stand-in only
    expect(t.config.publicBaseUrl).toMatch(/^https:\/\//);
    expect(await t.db.selectFrom('providers').select('id').execute()).toEqual([]);
    expect(await t.db.selectFrom('demo_state').select('id').execute()).toEqual([]);

    // 2. the provider, its keys and its plans
    const created = await ops(
      'provider',
      'create',
      '--name',
      'Glasfaser Nord',
      '--slug',
      'glasfaser-nord',
      '--support-email',
      'hilfe@glasfaser-nord.example',
      '--checkout-url',
      'https://shop.glasfaser-nord.example/checkout',
      '--json',
    );
    const providerId = created.provider.id as string;
    const checkoutSecret = created.checkout_secret as string;
    const agentKey = (await ops('key', 'issue', 'glasfaser-nord', '--name', 'support-agent', '--scope', 'agent_api_access', '--json')).key;
    const shopKey = (
      await ops('key', 'issue', 'glasfaser-nord', '--name', 'shop', '--scope', 'provisioning:write,serviceability:read', '--json')
    ).key;
    const plan = await ops(
      'plan',
      'create',
      'glasfaser-nord',
      '--name',
      'Fibre 250',
      '--down',
      '250',
      '--up',
      '50',
      '--price',
      '34.90',
      '--json',
    );
    const planVersionId = plan.versions[0].id as string;
    // The provider's Stripe connected account (docs/go-live.md, "Card payments and SMS")
    const account = `acct_${randomAlnum(16)}`;
    await ops('provider', 'card', 'set', 'glasfaser-nord', '--account', account, '--json');
    expect((await ops('provider', 'integrations', 'glasfaser-nord', '--json')).card_processor).toMatchObject({ account, usable: true });

    // 3. the provider's admin: the invitation arrives through SMTP
    await ops('provider', 'admin', 'glasfaser-nord', '--email', 'admin@glasfaser-nord.example', '--first-name', 'Ada', '--json');
    await t.deps.jobs.drain();
    const invite = await sink.waitFor((m) => m.to.includes('admin@glasfaser-nord.example'));
    expect(invite.tag).toBe('staff_invite');
    expect(invite.text).toContain('https://api.example.test/');

    // 4. the inventory
    for (const kind of ['buildings', 'units', 'ports', 'addresses']) {
      expect((await ops('import', kind, 'glasfaser-nord', path.join(SAMPLES, `${kind}.csv`), '--json')).committed).toBe(true);
    }
    const port = await t.db
      .selectFrom('locations')
      .select('location_hash')
      .where('location_identifier', '=', 'LID-B1001-1A')
      .executeTakeFirstOrThrow();

    // 5. the first checkout session
    const check = await call('POST', '/serviceability/check', { 'x-api-key': shopKey }, { address: 'Invalidenstraße 12a, 10115 Berlin' });
    expect(check.statusCode).toBe(200);
    expect(check.json()).toMatchObject({ serviceable: true });
    const session = await call(
      'POST',
      '/external-checkout/sessions',
      {},
      { provider_id: providerId, plan_version_id: planVersionId, location_hash: port.location_hash },
    );
    expect(session.statusCode, session.body).toBe(201);
    const { session_id: sessionId, checkout_url: checkoutUrl } = session.json();
    expect(checkoutUrl).toBe(`https://shop.glasfaser-nord.example/checkout?session_id=${sessionId}`);
    const complete = await call(
      'POST',
      '/external-checkout/complete',
      { 'x-webhook-secret': checkoutSecret },
      { session_id: sessionId, subscriber: { email: 'erika@example.com', first_name: 'Erika', last_name: 'Muster' } },
    );
    expect(complete.statusCode, complete.body).toBe(201);
    const status = await call('GET', `/external-checkout/sessions/${sessionId}/status`);
    expect(status.json()).toMatchObject({ status: 'completed' });
    // What the completion queued runs through the worker against the configured systems: no job fails.
    await t.deps.jobs.drain();
    expect(await t.db.selectFrom('jobs').select(['kind', 'status']).where('status', '=', 'failed').execute()).toEqual([]);

    // 6. the first verified /agent conversation, the code read from the mail
    const found = await call('GET', '/agent/customers/search?q=Muster', { 'x-api-key': agentKey });
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({ ambiguous: false, match_count: 1 });
    const customerId = found.json().matches[0].customer_id as string;
    const issued = await call('POST', '/agent/verify/issue', { 'x-api-key': agentKey }, { customer_id: customerId });
    expect(issued.statusCode, issued.body).toBe(202);
    await t.deps.jobs.drain();
    const mail = await sink.waitFor((m) => m.to.includes('erika@example.com') && m.tag === 'verification_code');
    const code = /(\d{6})/.exec(mail.text.split('Verification code:')[1] ?? '')![1];
    const checked = await call('POST', '/agent/verify/check', { 'x-api-key': agentKey }, { customer_id: customerId, code });
    expect(checked.statusCode, checked.body).toBe(200);
    const profile = await call('GET', `/agent/customers/${customerId}`, {
      'x-api-key': agentKey,
      'x-verified-session': checked.json().verified_session,
    });
    expect(profile.statusCode, profile.body).toBe(200);
    expect(profile.json()).toMatchObject({ customer_id: customerId });

    // 7. the subscriber's portal: the agent sends the set-up link, the subscriber chooses a password and
    // saves a card. The card is confirmed by the browser at Stripe (the stand-in), never sent here.
    const verified = checked.json().verified_session as string;
    const resend = await call(
      'POST',
      `/agent/customers/${customerId}/password-reset`,
      { 'x-api-key': agentKey, 'x-verified-session': verified },
      { action: 'resend_activation' },
    );
    expect(resend.statusCode, resend.body).toBe(202);
    await t.deps.jobs.drain();
    const setUp = await sink.waitFor((m) => m.to.includes('erika@example.com') && m.tag === 'account_activation');
    const token = /[?&]token=([\w-]+)/.exec(setUp.text)![1];
    expect((await call('POST', '/auth/set-password', {}, { token, password: 'Erika chose this one' })).statusCode).toBe(200);
    const login = await call('POST', '/auth/login', {}, { email: 'erika@example.com', password: 'Erika chose this one' });
    expect(login.statusCode, login.body).toBe(200);
    const bearer = { authorization: `Bearer ${login.json().access_token}` };
    const setup = await call('POST', '/subscriber/me/payment-method/setup', bearer);
    expect(setup.statusCode, setup.body).toBe(201);
    const clientSecret = setup.json().client_secret as string;
    const browserConfirm = await fetch(`${stripe.url}/v1/setup_intents/${clientSecret.split('_secret_')[0]}/confirm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PUBLISHABLE}`, 'stripe-account': account, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_secret: clientSecret, payment_method: 'pm_card_visa' }),
    });
    expect(browserConfirm.status).toBe(200);
    const confirmed = await call('POST', '/subscriber/me/payment-method/confirm', bearer, { client_secret: clientSecret });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toMatchObject({ payment_method: { brand: 'visa', last4: '4242' } });
    expect(
      await t.db
        .selectFrom('subscribers')
        .select(['card_brand', 'card_last4'])
        .where('id', '=', complete.json().subscriber_id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ card_brand: 'visa', card_last4: '4242' });
    // Every call this server made to the processor was on the provider's connected account.
    expect(stripe.standIn.requests.filter((r) => r.account !== account).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });
});
