import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { childDb, childEnv, collect, waitForOutput, type ChildDb } from '../foundation/server-helpers.js';
import { freePort } from '../helpers/processes.js';
import { readCalls, walkthroughBlocks, walkthroughScript, type Call } from './readme-blocks.js';

// The README's walkthrough, run as a reader runs it: `npm start` in a folder of its own (a fresh
// clone's layout, its var/ inside), then every bash block between the README's walkthrough markers
// in one bash, twice (the walkthrough must be repeatable on the same database). Every curl call's
// status and a key field of its answer are checked in order.
const ROOT = path.resolve(import.meta.dirname, '../..');
const missing = ['bash', 'curl', 'jq'].filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);

describe.skipIf(missing.length > 0)('README walkthrough against npm start', () => {
  vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });
  let db: ChildDb;
  let server: ReturnType<typeof collect>;
  let base: string;
  let doc: any;

  beforeAll(async () => {
    db = await childDb();
    // The checkout's files, linked: what `npm start` reads, with var/ (database, outbox, demo.json) here.
    for (const f of ['package.json', 'node_modules', 'src', 'scripts', 'migrations', 'tsconfig.json'])
      symlinkSync(path.join(ROOT, f), path.join(db.dir, f));
    const port = await freePort();
    // Its own process group: npm, its shell and the server stop together.
    const child = spawn('npm', ['start'], {
      cwd: db.dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A busy test machine can take longer than the production search bound (80 ms on PostgreSQL):
      // this test proves what the walkthrough's searches find, as buildTestApp's searches do.
      env: childEnv({ ...db.env, PORT: String(port), SANDBOX: 'true', LOG_LEVEL: 'warn', SEARCH_TIMEOUT_MS: '60000' }),
    });
    server = collect(child);
    // Detached, so it would outlive an interrupted test run: take its group down with this process.
    process.once('exit', () => killGroup(child.pid!, 'SIGKILL'));
    base = (await waitForOutput(server, /netsvc API ready at (\S+)/, 180_000))[1]!;
    doc = JSON.parse(readFileSync(path.join(db.dir, 'var/demo.json'), 'utf8'));
  });

  afterAll(async () => {
    const pid = server?.child.pid;
    if (pid) {
      killGroup(pid, 'SIGTERM');
      const killer = setTimeout(() => killGroup(pid, 'SIGKILL'), 10_000);
      await server.done;
      clearTimeout(killer);
    }
    await db?.cleanup();
  });

  // Asynchronous, so this process keeps reading the server's output meanwhile (a full pipe would stall it).
  async function run(pass: number) {
    const log = path.join(db.dir, `walk-${pass}`);
    mkdirSync(log);
    const file = path.join(db.dir, 'walkthrough.sh');
    writeFileSync(file, walkthroughScript(walkthroughBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8')), base));
    const r = await collect(
      // DEMO_TIMEOUT_MS: a loaded CI machine took longer than demo:verify's default 20 s to write the code's mail
      // (a guard against hanging, not a timing).
      spawn('bash', [file], {
        cwd: db.dir,
        env: withoutViteEnv(childEnv({ WALK_LOG: log, DEMO_TIMEOUT_MS: '120000' })),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ).done;
    return { status: r.code, stderr: r.stderr, calls: readCalls(log, base) };
  }

  const passes: Awaited<ReturnType<typeof run>>[] = [];
  for (const pass of [1, 2]) {
    it(`pass ${pass}: every block runs and every call answers as the README says`, async () => {
      const r = await run(pass);
      passes.push(r);
      expect(r.status, `bash exited ${r.status}; stderr:\n${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(/jq: error|parse error|command not found/);
      checkCalls(r.calls, expected(doc, pass));
    });
  }

  it('afterwards the seeded `pending` session is still payable on the sandbox page and `activated` logs in with its documented password', async () => {
    expect(passes).toHaveLength(2);
    const id = doc.checkout_sessions.pending.id;
    expect((await fetch(`${base}/sandbox/checkout?session_id=${id}`)).status).toBe(200);
    const pay = await fetch(`${base}/sandbox/checkout/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ session_id: id, email: 'after.walkthrough@example.com', first_name: 'After', last_name: 'Walkthrough' }),
    });
    expect(pay.status, await pay.clone().text()).toBe(201);
    expect(await pay.text()).toContain('Payment successful');
    const { email, password } = doc.customers.activated;
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
  });
});

if (missing.length > 0) {
  console.warn(
    `\n######## SKIPPED: the README walkthrough test needs ${missing.join(', ')} (apt-get install -y ${missing.join(' ')}) ########\n`,
  );
}

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone already */
  }
}

/** Vitest exports Vite's BASE_URL ('/'), which the demo scripts would take for the server's address. */
function withoutViteEnv(env: Record<string, string>) {
  const { BASE_URL: _b, ...rest } = env;
  return rest;
}

interface Step {
  method: string;
  path: RegExp;
  status: number;
  /** Matches one call or more in a row (the walkthrough's loop over the spare ports). */
  many?: boolean;
  check?: (body: any) => void;
}

/** The calls of one pass, in the README's order. The second pass differs where repeating must. */
function expected(doc: any, pass: number): Step[] {
  const again = pass > 1;
  const cid = doc.customers.invoiced.id;
  const s = (method: string, p: string, status: number, check?: Step['check'], many = false): Step => ({
    method,
    path: new RegExp(`^${p.replaceAll('?', '\\?')}`),
    status,
    check,
    many,
  });
  const limitOrPlan = (b: any) =>
    again ? expect(b.error.code).toBe('plan_change_limit') : expect(b.new_plan.plan_version_id).toBe(doc.plans.faster.plan_version_id);
  return [
    s('GET', '/agent/customers/search?q=Anna%20Schmidt', 200, (b) =>
      expect(b).toMatchObject({ ambiguous: true, match_count: 2, incomplete: false }),
    ),
    s('GET', `/agent/customers/search?q=Anna%20Schmidt%20${doc.customers.ambiguous[0].unit_label}`, 200, (b) =>
      expect(b).toMatchObject({ ambiguous: false, match_count: 1, incomplete: false }),
    ),
    s('GET', `/agent/customers/search?q=${doc.customers.invoiced.last_name}`, 200, (b) =>
      expect(b.matches.map((m: any) => m.customer_id)).toContain(cid),
    ),
    s('POST', '/agent/verify/issue', 202, (b) => expect(b.sent).toBe(true)),
    s('POST', '/agent/verify/check', 200, (b) => expect(b.verified_session).toMatch(/^vs_/)),
    s('GET', `/agent/customers/${cid}$`, 200, (b) => expect(b.customer_id).toBe(cid)),
    s('GET', `/agent/customers/${cid}/billing-summary`, 200, (b) => expect(b.open_invoice_count).toBeGreaterThan(0)),
    s('GET', `/agent/customers/${cid}/payments`, 200, (b) => expect(b.total_count).toBeGreaterThan(0)),
    s('GET', `/agent/customers/${cid}/network-health`, 200, (b) => expect(b.subscriptions.length).toBeGreaterThan(0)),
    s('POST', `/agent/customers/${cid}/plan-change/preview`, again ? 409 : 200, limitOrPlan),
    s('POST', `/agent/customers/${cid}/plan-change$`, again ? 409 : 200, (b) =>
      again ? expect(b.error.code).toBe('plan_change_limit') : expect(b.plan_change_id).toBeTruthy(),
    ),
    s('POST', '/agent/tickets', 201, (b) => expect(b.status).toBe('open')),
    // demo:verify (its own calls are not curl's), then case (a)'s preview
    s('POST', `/agent/customers/${doc.customers.not_invoiced.id}/plan-change/preview`, 200, (b) =>
      expect(b).toMatchObject({ one_time_adjustment: null, note: expect.any(String) }),
    ),
    s('GET', `/serviceability/units?building_id=${doc.buildings.first_line.id}`, 200, (b) => expect(b.units.length).toBeGreaterThan(0)),
    s('POST', '/location/lookup', 200, (b) => expect(b.building_id).toBe(doc.buildings.first_line.id), true),
    s('POST', '/external-checkout/sessions$', 201, (b) => expect(b.checkout_url).toContain('/sandbox/checkout?session_id=')),
    s('GET', '/external-checkout/sessions/[0-9a-f-]{36}$', 200, (b) => expect(b.status).toBe('redirected')),
    s('POST', '/external-checkout/complete', 201, (b) => expect(b.route).toBe('provision')),
    s('GET', '/external-checkout/sessions/[0-9a-f-]{36}/status', 200, (b) =>
      expect(b).toMatchObject({ status: 'completed', subscription_status: 'ACTIVE' }),
    ),
    s('GET', `/external-checkout/sessions/${doc.checkout_sessions.expired.id}$`, 410, (b) => expect(b.detail.code).toBe('session_expired')),
    s('GET', '/serviceability/autocomplete?q=Invalidenstr', 200, (b) => expect(b.suggestions.length).toBeGreaterThan(0)),
    s('POST', '/serviceability/check', 200, (b) => expect(b.serviceable).toBe(true)),
    s('GET', `/serviceability/units?building_id=${doc.buildings.second_line.id}`, 200, (b) => expect(b.units.length).toBeGreaterThan(0)),
    // A second run replays the same subscriptions (idempotent), on the same spare port and unit.
    s('POST', '/provisioning/provider-initiated', again ? 200 : 201, (b) =>
      expect(b).toMatchObject({ route: 'provision', job_id: expect.any(String) }),
    ),
    s('GET', '/provisioning/jobs/', 200, (b) => expect(b.kind).toBe('provisioning.port')),
    s('POST', '/provisioning/provider-initiated', again ? 200 : 201, (b) => expect(b).toMatchObject({ route: 'install', job_id: null })),
    s('GET', `/partner/subscriptions/${doc.customers.not_invoiced.subscription_id}/change-plan/preview`, 200, (b) =>
      expect(b.eligible).toBe(true),
    ),
    s('POST', '/location/lookup', 200, (b) => expect(b.building_id).toBe(doc.buildings.first_line.id)),
    // Subscriber portal session
    s('POST', '/auth/login', 200, (b) => expect(b.access_token).toBeTruthy()),
    s('GET', '/subscriber/me$', 200, (b) => expect(b.subscriber.email).toBe(doc.customers.activated.email)),
    s('GET', '/subscriber/me/details', 200, (b) => expect(b.customer_number).toBe(doc.customers.activated.customer_number)),
    s('GET', '/subscriber/me/invoices', 200, (b) => expect(b.length).toBeGreaterThan(0)),
    s('GET', '/subscriber/me/credit-notes', 200, (b) => expect(b.length).toBeGreaterThan(0)),
    s('GET', '/subscriber/me/credit-notes', 200),
    s('GET', '/api/v1/credit-notes/[0-9a-f-]{36}/pdf', 200, (b) => expect(b).toBe('200 application/pdf\n')),
    s('GET', '/subscriber/me/usage', 200, (b) => expect(b.months.length).toBeGreaterThan(0)),
    s('GET', '/subscriber/status-history', 200, (b) => expect(Array.isArray(b.events)).toBe(true)),
    s('PATCH', '/subscriber/me/billing-day', 200, (b) => expect(b.billing_day).toBe(5)),
    s('GET', '/subscriber/me/payment-method', 200, (b) => expect(b.payment_method.last4).toMatch(/^\d{4}$/)),
    s('POST', '/subscriber/me/payment-method/setup', 201, (b) => expect(b.client_secret).toBeTruthy()),
    s('POST', '/subscriber/me/payment-method/confirm', 200, (b) => expect(b.payment_method.last4).toBe('4242')),
    s('PATCH', '/subscriber/me/password', 200, (b) => expect(b.success).toBe(true)),
    s('POST', '/auth/login', 200, (b) => expect(b.access_token).toBeTruthy()),
    s('PATCH', '/subscriber/me/password', 200, (b) => expect(b.success).toBe(true)),
  ];
}

/** Walks the calls against the steps in order; a `many` step takes every call in a row it matches. */
function checkCalls(calls: Call[], steps: Step[]) {
  const show = (c: Call) => `call ${c.n}: ${c.method} ${c.path} -> ${c.status} ${JSON.stringify(c.body).slice(0, 300)}`;
  let i = 0;
  for (const step of steps) {
    const c = calls[i]!;
    expect(c, `no call left for step ${step.method} ${step.path}`).toBeDefined();
    const matches = (x: Call | undefined) => !!x && x.method === step.method && step.path.test(x.path);
    expect(matches(c), `expected ${step.method} ${step.path}, got ${show(c)}`).toBe(true);
    do {
      expect(calls[i]!.status, show(calls[i]!)).toBe(step.status);
      step.check?.(calls[i]!.body);
      i++;
    } while (step.many && matches(calls[i]));
  }
  expect(calls.slice(i).map(show), 'calls the test does not know: add them to expected()').toEqual([]);
}
