/**
 * `npm run demo:partner` — drives the partner surface end to end against a RUNNING server:
 *
 *   CKO-03  create a checkout session → GET it (pending → redirected) → PATCH partner_reference →
 *           complete → the status endpoint shows ACTIVE → subscription.activated and
 *           provisioning.completed arrive, signed → completing again is an idempotent replay
 *   CKO-04  serviceability autocomplete and check → provider-initiated → poll the job until it
 *           succeeded → the same request again is an idempotent replay → webhooks, signed; plus an
 *           install-path order (second-line unit) → subscription.pending_install
 *
 * It starts its own webhook receiver on 127.0.0.1 and verifies every Standard Webhooks signature
 * with the main provider's webhook_signing_secret. The demo provider's webhook URL is fixed when the
 * dataset is seeded (DEMO_WEBHOOK_URL), so seed and start the server with it pointing here:
 *
 *   DEMO_WEBHOOK_URL=http://127.0.0.1:4400/webhooks npm start        # empty database: seeds, writes var/demo.json
 *   npm run demo:partner                                               # in a second terminal
 *
 * Environment: BASE_URL (default: the document's base_url, which npm start sets to the address it
 * listens on; else http://127.0.0.1:3000), DEMO_JSON (default var/demo.json),
 * DEMO_RECEIVER_PORT (default 4400), DEMO_TIMEOUT_MS (default 30000, per wait).
 * Exits 0 when every answer was the expected one, 1 on the first unexpected answer (or a webhook
 * that failed verification), 2 when the setup is wrong (no server, no document, webhook URL).
 * It runs after a plain `npm start` too: when the demo provider's webhook URL is not this receiver
 * (none is set unless DEMO_WEBHOOK_URL was, or `npm run provider:webhook` pointed it here), the flows
 * run without the webhook checks and say how to turn them on. It picks two spare first-line ports and a
 * second-line unit that are free now (never the seeded `pending` session's port, nor the walkthrough's
 * last spare), and at the end cancels what it ordered (as the demo provider's admin, end date today),
 * which frees them again: run it as often as you like, before or after the README walkthrough.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createPartnerClient } from '../clients/ts/src/index.js';
import { DEFAULT_BASE_URL, demoBaseUrl, readDemoJson, DemoSetupError as SetupError } from './demo-target.js';

// Set from the demo document once it is read (scripts/demo-target.ts).
let BASE_URL = DEFAULT_BASE_URL;
const DEMO_JSON = process.env.DEMO_JSON ?? 'var/demo.json';
const RECEIVER_PORT = Number(process.env.DEMO_RECEIVER_PORT ?? 4400);
const TIMEOUT_MS = Number(process.env.DEMO_TIMEOUT_MS ?? 30_000);
const RECEIVER_URL = `http://127.0.0.1:${RECEIVER_PORT}/webhooks`;

interface Envelope {
  id: string;
  type: string;
  created_at: string;
  provider_id: string;
  data: Record<string, unknown> & { subscription_id: string };
}
interface DemoDoc {
  base_url?: string;
  webhook_url: string | null;
  providers: {
    main: {
      id: string;
      api_key: string;
      webhook_secret: string;
      webhook_signing_secret: string;
      admin: { email: string; password: string };
    };
  };
  plans: { basic: { plan_version_id: string }; fast: { plan_version_id: string } };
  buildings: {
    first_line: { id: string; address: string; location_hash: string; spare_location_hashes: string[] };
    second_line: { id: string; free_unit_id: string };
  };
}

class Unexpected extends Error {}

const green = (s: string) => (process.stdout.isTTY ? `\x1b[32m${s}\x1b[0m` : s);
const red = (s: string) => (process.stdout.isTTY ? `\x1b[31m${s}\x1b[0m` : s);
const ok = (msg: string) => console.log(`  ${green('✓')} ${msg}`);
const section = (title: string) => console.log(`\n${title}`);

function check(cond: unknown, what: string, got?: unknown): asserts cond {
  if (!cond) throw new Unexpected(`${what}${got === undefined ? '' : `\n    got: ${typeof got === 'string' ? got : JSON.stringify(got)}`}`);
}

// ---- HTTP -------------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: any;
}

// The typed client (clients/ts): paths, parameters and bodies are checked against openapi/partner.json.
const client = (credentials: { apiKey?: string; webhookSecret?: string } = {}) =>
  createPartnerClient({ baseUrl: BASE_URL, redirect: 'manual', ...credentials });

async function answer(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Answer> {
  let r: Awaited<typeof pending>;
  try {
    r = await pending;
  } catch (err) {
    throw new SetupError(`cannot reach the server at ${BASE_URL} (${(err as Error).message}); start it first (npm start)`);
  }
  return { status: r.response.status, body: r.data ?? r.error ?? null };
}

function expectStatus(a: Answer, status: number, what: string) {
  check(a.status === status, `${what}: expected HTTP ${status}, got ${a.status}`, a.body);
}

// ---- Webhook receiver --------------------------------------------------------------------------

function startReceiver(signingSecret: string) {
  const verifier = new Webhook(signingSecret);
  const events: Envelope[] = [];
  const rejected: string[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/webhooks') {
        res.writeHead(404).end();
        return;
      }
      try {
        // Checks the HMAC over "<id>.<timestamp>.<body>" and the 5-minute timestamp window.
        const payload = verifier.verify(raw, headerRecord(req.headers)) as Envelope;
        if (payload.id !== req.headers['webhook-id']) throw new Error('envelope id differs from webhook-id');
        if (!events.some((e) => e.id === payload.id)) events.push(payload);
        res.writeHead(204).end();
        for (const w of waiters) w();
      } catch (err) {
        rejected.push(`${String(req.headers['webhook-id'] ?? '(no id)')}: ${(err as Error).message}`);
        res.writeHead(401).end('signature verification failed');
        for (const w of waiters) w();
      }
    });
  });
  return {
    events,
    rejected,
    listen: () =>
      new Promise<void>((resolve, reject) => {
        server.once('error', (err) =>
          reject(new SetupError(`cannot listen on 127.0.0.1:${RECEIVER_PORT} (${err.message}); set DEMO_RECEIVER_PORT`)),
        );
        server.listen(RECEIVER_PORT, '127.0.0.1', () => resolve());
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    /** Resolves with the events of a subscription once `types` all arrived (in any order). */
    waitFor(subscriptionId: string, types: string[]): Promise<Envelope[]> {
      const mine = () => events.filter((e) => e.data.subscription_id === subscriptionId);
      const done = () => types.every((t) => mine().some((e) => e.type === t));
      return new Promise((resolve, reject) => {
        if (rejected.length) return reject(new Unexpected(`a webhook failed signature verification: ${rejected[0]}`));
        if (done()) return resolve(mine());
        const timer = setTimeout(() => {
          waiters.delete(onEvent);
          reject(
            new Unexpected(
              `webhooks ${types.join(' + ')} for subscription ${subscriptionId} did not all arrive within ${TIMEOUT_MS} ms; got [${mine()
                .map((e) => e.type)
                .join(', ')}]`,
            ),
          );
        }, TIMEOUT_MS);
        const onEvent = () => {
          if (rejected.length) {
            clearTimeout(timer);
            waiters.delete(onEvent);
            reject(new Unexpected(`a webhook failed signature verification: ${rejected[0]}`));
          } else if (done()) {
            clearTimeout(timer);
            waiters.delete(onEvent);
            resolve(mine());
          }
        };
        waiters.add(onEvent);
      });
    },
  };
}

function headerRecord(h: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(h).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- The flows ---------------------------------------------------------------------------------

const runTag = randomBytes(3).toString('hex');
const person = (who: string) => ({
  email: `demo-${who}-${runTag}@example.test`,
  first_name: 'Demo',
  last_name: who.toUpperCase(),
  phone: '030 1234567',
});

type Receiver = ReturnType<typeof startReceiver>;

/** What this run ordered: cancelled at the end so the next run finds the ports and the unit free. */
const ordered: string[] = [];

interface Picks {
  ports: [string, string];
  unitId: string;
}

/**
 * Two spare first-line ports whose units are free now, and a free second-line unit. Not the seeded
 * `pending` session's port (`location_hash`) nor the last spare (the README walkthrough's replay port);
 * the second-line unit the document names comes last (the walkthrough orders it).
 */
async function pickFree(doc: DemoDoc): Promise<Picks> {
  const storefront = client({ apiKey: doc.providers.main.api_key });
  const available = async (buildingId: string) => {
    const r = await answer(storefront.GET('/serviceability/units', { params: { query: { building_id: buildingId } } }));
    expectStatus(r, 200, 'units of a demo building');
    return (r.body.units as { unit_id: string; available: boolean }[]).filter((u) => u.available).map((u) => u.unit_id);
  };
  const freeUnits = new Set(await available(doc.buildings.first_line.id));
  const ports: string[] = [];
  for (const hash of doc.buildings.first_line.spare_location_hashes.slice(0, -1)) {
    const r = await answer(client().POST('/location/lookup', { body: { location_hash: hash } }));
    if (r.status === 200 && freeUnits.has(r.body.unit_id)) ports.push(hash);
    if (ports.length === 2) break;
  }
  if (ports.length < 2) {
    throw new SetupError(
      `fewer than two spare first-line ports are free (${ports.length}): earlier orders hold them. ` +
        'Seed a fresh database (stop the server, remove var/db, npm start) to start over.',
    );
  }
  const second = await available(doc.buildings.second_line.id);
  const unitId = second.find((u) => u !== doc.buildings.second_line.free_unit_id) ?? second[0];
  if (!unitId) throw new SetupError('no second-line unit is free; seed a fresh database to start over');
  return { ports: [ports[0]!, ports[1]!], unitId };
}

/** Cancels this run's subscriptions (end date today, UTC) as the demo provider's admin: their ports and unit are free again. */
async function cleanUp(doc: DemoDoc) {
  if (ordered.length === 0) return;
  const login = await fetch(`${BASE_URL}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(doc.providers.main.admin),
  });
  const token = ((await login.json().catch(() => null)) as { access_token?: string } | null)?.access_token;
  if (!login.ok || !token) {
    console.log(`  (could not log in as the demo admin to cancel this run's orders: HTTP ${login.status})`);
    return;
  }
  const today = new Date().toISOString().slice(0, 10);
  for (const id of ordered.splice(0)) {
    const r = await fetch(`${BASE_URL}/api/v1/subscription/${id}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ end_date: today }),
    });
    if (!r.ok) console.log(`  (cancelling ${id} answered HTTP ${r.status}: ${await r.text()})`);
  }
  ok("cleaned up: this run's subscriptions are cancelled (end date today), their ports and unit free for the next run");
}

async function cko03(doc: DemoDoc, rx: Receiver | null, picks: Picks) {
  section('CKO-03 marketplace checkout (session → complete)');
  const main = doc.providers.main;
  const open = client();
  const checkout = client({ webhookSecret: main.webhook_secret });

  const created = await answer(
    open.POST('/external-checkout/sessions', {
      body: {
        provider_id: main.id,
        plan_version_id: doc.plans.basic.plan_version_id,
        location_hash: picks.ports[0],
      },
    }),
  );
  expectStatus(created, 201, 'create session');
  check(
    created.body.status === 'pending' &&
      typeof created.body.checkout_url === 'string' &&
      created.body.checkout_url.includes(created.body.session_id),
    'create session: pending, checkout_url carries session_id',
    created.body,
  );
  const sessionId: string = created.body.session_id;
  ok(`session ${sessionId} created (pending), checkout_url ${created.body.checkout_url}`);

  const read = await answer(checkout.GET('/external-checkout/sessions/{session_id}', { params: { path: { session_id: sessionId } } }));
  expectStatus(read, 200, 'read session');
  check(read.body.status === 'redirected', 'first read moves the session to redirected', read.body.status);
  check(read.body.units?.buildings?.building_id === doc.buildings.first_line.id, 'session embeds unit with building', read.body.units);
  ok(`checkout page read the session: status ${read.body.status}, plan ${read.body.plan?.name}`);

  const patched = await answer(
    checkout.PATCH('/external-checkout/sessions/{session_id}', {
      params: { path: { session_id: sessionId } },
      body: { partner_reference: `demo-order-${runTag}`, plan_version_id: doc.plans.fast.plan_version_id },
    }),
  );
  expectStatus(patched, 200, 'patch session');
  check(
    patched.body.partner_reference === `demo-order-${runTag}` && patched.body.plan_version_id === doc.plans.fast.plan_version_id,
    'patch sets partner_reference and the upsell plan',
    patched.body,
  );
  ok(`patched: partner_reference ${patched.body.partner_reference}, upsell to ${patched.body.plan?.name}`);

  const done = await answer(checkout.POST('/external-checkout/complete', { body: { session_id: sessionId, subscriber: person('cko03') } }));
  expectStatus(done, 201, 'complete');
  check(
    done.body.route === 'provision' && typeof done.body.job_id === 'string',
    'complete on a first-line port: route provision with a job_id',
    done.body,
  );
  const subscriptionId: string = done.body.subscription_id;
  ordered.push(subscriptionId);
  ok(`completed: subscription ${subscriptionId}, route ${done.body.route}, job ${done.body.job_id}`);

  const status = await answer(open.GET('/external-checkout/sessions/{session_id}/status', { params: { path: { session_id: sessionId } } }));
  expectStatus(status, 200, 'session status');
  check(
    status.body.status === 'completed' && status.body.subscription_status === 'ACTIVE',
    'status: completed, subscription ACTIVE',
    status.body,
  );
  ok(`status endpoint (no auth): session ${status.body.status}, subscription_status ${status.body.subscription_status}`);

  if (rx) {
    const events = await rx.waitFor(subscriptionId, ['subscription.activated', 'provisioning.completed']);
    const order = events.map((e) => e.type);
    check(
      order.indexOf('subscription.activated') < order.indexOf('provisioning.completed'),
      'subscription.activated arrives before provisioning.completed',
      order,
    );
    check(!order.includes('provisioning.failed'), 'no provisioning.failed', order);
    const completed = events.find((e) => e.type === 'provisioning.completed')!;
    check(completed.data.job_id === done.body.job_id, 'provisioning.completed names the job', completed.data);
    ok(`webhooks received and verified: ${order.join(' → ')}`);
  }

  const replay = await answer(
    checkout.POST('/external-checkout/complete', { body: { session_id: sessionId, subscriber: person('cko03') } }),
  );
  expectStatus(replay, 200, 'complete again');
  check(replay.body.subscription_id === subscriptionId && !('job_id' in replay.body), 'replay: same subscription, no job_id', replay.body);
  ok(`completing again is an idempotent replay: "${replay.body.message}"`);
}

async function cko04(doc: DemoDoc, rx: Receiver | null, picks: Picks) {
  section('CKO-04 provider-initiated provisioning (storefront)');
  const storefront = client({ apiKey: doc.providers.main.api_key });
  const first = doc.buildings.first_line;

  const q = first.address.slice(0, Math.max(6, first.address.indexOf(',')));
  const ac = await answer(storefront.GET('/serviceability/autocomplete', { params: { query: { q } } }));
  expectStatus(ac, 200, 'autocomplete');
  const suggestion = ac.body.suggestions.find((s: { building_id: string | null }) => s.building_id === first.id);
  check(
    suggestion,
    `autocomplete "${q}" suggests the first-line building`,
    ac.body.suggestions.map((s: { display: string }) => s.display),
  );
  ok(`autocomplete "${q}": ${ac.body.suggestions.length} suggestion(s), "${suggestion.display}" orderable ${suggestion.orderable}`);

  const chk = await answer(storefront.POST('/serviceability/check', { body: { address: first.address } }));
  expectStatus(chk, 200, 'serviceability check');
  check(
    chk.body.serviceable === true && chk.body.building_id === first.id,
    'the address is serviceable in the first-line building',
    chk.body,
  );
  const plan = chk.body.plans.find((p: { plan_version_id: string }) => p.plan_version_id === doc.plans.fast.plan_version_id);
  check(plan, 'the check lists the "fast" plan', chk.body.plans);
  ok(`check: serviceable, ${chk.body.plans.length} plan(s), ordering "${plan.name}" (${plan.monthly_price} ${plan.currency})`);

  const portHash = picks.ports[1];
  const body = {
    plan_version_id: plan.plan_version_id,
    location_hash: portHash,
    subscriber: person('cko04'),
    mac_address: '02:00:5e:10:00:42',
  };
  const created = await answer(storefront.POST('/provisioning/provider-initiated', { body }));
  expectStatus(created, 201, 'provider-initiated');
  check(created.body.route === 'provision' && typeof created.body.job_id === 'string', 'route provision with a job_id', created.body);
  const subscriptionId: string = created.body.subscription_id;
  ordered.push(subscriptionId);
  ok(`provisioned: subscription ${subscriptionId}, route ${created.body.route}, job ${created.body.job_id}`);

  const deadline = Date.now() + TIMEOUT_MS;
  let job: Answer;
  const seen: string[] = [];
  for (;;) {
    job = await answer(storefront.GET('/provisioning/jobs/{job_id}', { params: { path: { job_id: created.body.job_id } } }));
    expectStatus(job, 200, 'poll job');
    if (seen[seen.length - 1] !== job.body.status) seen.push(job.body.status);
    if (job.body.status === 'succeeded' || job.body.status === 'failed' || Date.now() > deadline) break;
    await sleep(300);
  }
  check(job.body.status === 'succeeded', 'the port job succeeded', job.body);
  ok(`job polled: ${seen.join(' → ')} after ${job.body.attempts} attempt(s)`);

  const again = await answer(storefront.POST('/provisioning/provider-initiated', { body }));
  expectStatus(again, 200, 'provider-initiated again');
  check(
    again.body.subscription_id === subscriptionId && again.body.message === 'Subscription already exists (idempotent replay)',
    'replay answers the same subscription',
    again.body,
  );
  ok(`same request again: 200 "${again.body.message}"`);

  if (rx) {
    const events = await rx.waitFor(subscriptionId, ['subscription.activated', 'provisioning.completed']);
    ok(`webhooks received and verified: ${events.map((e) => e.type).join(' → ')}`);
  }

  const install = await answer(
    storefront.POST('/provisioning/provider-initiated', {
      body: {
        plan_version_id: doc.plans.basic.plan_version_id,
        delivery_mode: 'home_drop',
        unit_id: picks.unitId,
        subscriber: person('install'),
      },
    }),
  );
  expectStatus(install, 201, 'provider-initiated (second-line unit)');
  ordered.push(install.body.subscription_id);
  check(
    install.body.route === 'install' && install.body.job_id === null,
    'a second-line unit takes the install path (job_id null)',
    install.body,
  );
  if (!rx) {
    ok('second-line unit: route install (PENDING_INSTALL, CPE shipment)');
    return;
  }
  const pending = await rx.waitFor(install.body.subscription_id, ['subscription.pending_install']);
  check(
    !pending.some((e) => e.type === 'subscription.activated'),
    'no subscription.activated on the install path',
    pending.map((e) => e.type),
  );
  ok(`second-line unit: route install (PENDING_INSTALL, CPE shipment), webhook ${pending.map((e) => e.type).join(', ')}`);
}

async function main() {
  const doc = readDemoJson<DemoDoc>(DEMO_JSON);
  BASE_URL = demoBaseUrl(process.env, doc);
  // After a plain `npm start` no webhook URL is set: the flows still run, without the webhook checks.
  const webhooks = doc.webhook_url === RECEIVER_URL;
  console.log(
    webhooks
      ? `Partner demo against ${BASE_URL}; webhook receiver on ${RECEIVER_URL} (signatures verified with the main provider's signing secret)`
      : `Partner demo against ${BASE_URL}; webhooks not checked: the demo provider's webhook URL is ${doc.webhook_url ?? '(none)'}, not ${RECEIVER_URL}.\n` +
          `  To see them, start on an empty database with DEMO_WEBHOOK_URL=${RECEIVER_URL} npm start, or (server stopped, or on\n` +
          `  PostgreSQL) npm run provider:webhook -- --provider ${doc.providers.main.id} --url ${RECEIVER_URL}, which updates ${DEMO_JSON} too.`,
  );
  const rx = webhooks ? startReceiver(doc.providers.main.webhook_signing_secret) : null;
  await rx?.listen();
  try {
    const picks = await pickFree(doc);
    await cko03(doc, rx, picks);
    await cko04(doc, rx, picks);
    if (rx?.rejected.length) throw new Unexpected(`webhook(s) failed verification: ${rx.rejected.join('; ')}`);
    section('Clean-up');
    await cleanUp(doc);
    console.log(
      `\n${green('Demo complete')}: ${rx ? `${rx.events.length} webhook(s) received, every signature verified.` : 'webhooks not checked (see above).'}`,
    );
  } finally {
    await cleanUp(doc).catch(() => undefined);
    await rx?.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof SetupError) {
      console.error(`\n${red('Setup problem')}: ${err.message}`);
      process.exit(2);
    }
    console.error(`\n${red('Unexpected answer')}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
