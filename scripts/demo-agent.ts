/**
 * `npm run demo:agent` — plays the support conversation of agent-surface.md section 1 against a
 * RUNNING server, with the demo dataset's customers (var/demo.json):
 *
 *   1 identify   search the ambiguous name → ambiguous; append the unit → one customer
 *   2 verify     verify/issue (email) → read the code from the newest mail in the outbox folder
 *                → verify/check → verified session
 *   3 answer     profile, billing summary, network health
 *   4 change     plan-change preview (the customer hears the cost) → apply with confirm: true
 *   5 escalate   open a ticket with summary, diagnosis and transcript
 *
 *   npm start                 # an empty database seeds itself and writes var/demo.json
 *   npm run demo:agent        # in a second terminal
 *
 * The code is read from the newest `*-verification_code-*.eml` in MAIL_OUTBOX_DIR (default
 * var/outbox, where the server writes mail when SMTP_URL is not set). When the server sends real
 * mail (SMTP_URL set), the script asks for the code on the terminal, or takes DEMO_CODE.
 *
 * Environment: BASE_URL (default: the document's base_url, which npm start sets to the address it
 * listens on; else http://127.0.0.1:3000), DEMO_JSON (default var/demo.json),
 * MAIL_OUTBOX_DIR (default var/outbox), SMTP_URL, DEMO_CODE, DEMO_TIMEOUT_MS (default 20000).
 * Exits 0 when every answer was the expected one, 1 on the first unexpected answer, 2 when the
 * setup is wrong (no server, no document, no mail). The plan change is real: a customer can change
 * plan once per calendar day, so run it once per day per seeded database (a second run the same day
 * stops at the 409 plan_change_limit and says so).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { createAgentClient, type AgentClient } from '../clients/ts/src/index.js';
import { DEFAULT_BASE_URL, demoBaseUrl, readDemoJson, DemoSetupError as SetupError } from './demo-target.js';

// Set from the demo document once it is read (scripts/demo-target.ts).
let BASE_URL = DEFAULT_BASE_URL;
const DEMO_JSON = process.env.DEMO_JSON ?? 'var/demo.json';
const OUTBOX = process.env.MAIL_OUTBOX_DIR ?? 'var/outbox';
const TIMEOUT_MS = Number(process.env.DEMO_TIMEOUT_MS ?? 20_000);

interface DemoCustomer {
  id: string;
  name: string;
  email: string;
  unit_label?: string;
  subscription_id: string;
}
interface DemoDoc {
  base_url?: string;
  providers: { main: { api_key: string } };
  plans: { basic: { plan_version_id: string }; fast: { plan_version_id: string }; faster: { plan_version_id: string } };
  customers: { ambiguous: [DemoCustomer, DemoCustomer] };
}

class Unexpected extends Error {}

const tty = process.stdout.isTTY;
const green = (s: string) => (tty ? `\x1b[32m${s}\x1b[0m` : s);
const red = (s: string) => (tty ? `\x1b[31m${s}\x1b[0m` : s);
const dim = (s: string) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
const ok = (msg: string) => console.log(`  ${green('✓')} ${msg}`);
const say = (who: 'caller' | 'agent', msg: string) => console.log(`  ${dim(`${who}:`)} ${msg}`);
const step = (title: string) => console.log(`\n${title}`);

function expectThat(cond: unknown, what: string, got?: unknown): asserts cond {
  if (!cond) throw new Unexpected(`${what}${got === undefined ? '' : `\n    got: ${typeof got === 'string' ? got : JSON.stringify(got)}`}`);
}

interface Answer {
  status: number;
  body: any;
}

// The typed client (clients/ts): paths, parameters and bodies are checked against openapi/agent.json.
let agent: AgentClient;
let verified: AgentClient;
const logCalls = {
  onResponse({ request, response }: { request: Request; response: Response }) {
    const url = new URL(request.url);
    console.log(dim(`    ${request.method} ${decodeURIComponent(url.pathname + url.search)} → ${response.status}`));
  },
};
const client = (apiKey: string, verifiedSession?: string) => {
  const c = createAgentClient({ baseUrl: BASE_URL, apiKey, verifiedSession });
  c.use(logCalls);
  return c;
};

async function answer(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<Answer> {
  let r: Awaited<typeof pending>;
  try {
    r = await pending;
  } catch (err) {
    throw new SetupError(`cannot reach the server at ${BASE_URL} (${(err as Error).message}); start it first (npm start)`);
  }
  return { status: r.response.status, body: r.data ?? r.error ?? null };
}

function expectStatus(r: Answer, status: number, what: string) {
  if (r.status === 409 && r.body?.error?.code === 'plan_change_limit') {
    throw new Unexpected(
      `${what}: 409 plan_change_limit — this customer already changed plan today (run the demo once per day per seeded database)`,
    );
  }
  expectThat(r.status === status, `${what}: expected HTTP ${status}`, r.body);
}

// ---- the code from the mail --------------------------------------------------------------------

/** Decodes the quoted-printable soft line breaks and escapes enough to find the code line. */
const unQuotedPrintable = (s: string) =>
  s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

async function codeFromOutbox(email: string, since: number): Promise<string> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (existsSync(OUTBOX)) {
      const files = readdirSync(OUTBOX)
        .filter((f) => f.endsWith('.eml') && f.includes('-verification_code-'))
        .map((f) => ({ f, t: statSync(path.join(OUTBOX, f)).mtimeMs }))
        .filter((x) => x.t >= since - 1_000)
        .sort((a, b) => b.t - a.t);
      for (const { f } of files) {
        const raw = unQuotedPrintable(readFileSync(path.join(OUTBOX, f), 'utf8'));
        const to = /^To:\s*(.+)$/im.exec(raw)?.[1] ?? '';
        const m = /Verification code:\s*(\d{6})/.exec(raw);
        if (m?.[1] && to.toLowerCase().includes(email.toLowerCase())) return m[1];
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new SetupError(
    `no verification mail for ${email} appeared in ${path.resolve(OUTBOX)} within ${TIMEOUT_MS} ms (is the job worker running? is MAIL_OUTBOX_DIR the server's?)`,
  );
}

async function codeFromPrompt(email: string): Promise<string> {
  if (process.env.DEMO_CODE) return process.env.DEMO_CODE;
  if (!process.stdin.isTTY)
    throw new SetupError('SMTP_URL is set: the code went out by real mail; pass it as DEMO_CODE or run interactively');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const code = (await rl.question(`  enter the 6-digit code mailed to ${email}: `)).trim();
  rl.close();
  return code;
}

// ---- the conversation ---------------------------------------------------------------------------

async function main() {
  const doc = readDemoJson<DemoDoc>(DEMO_JSON);
  BASE_URL = demoBaseUrl(process.env, doc);
  agent = client(doc.providers.main.api_key);
  const [anna] = doc.customers.ambiguous;
  console.log(`Support agent demo against ${BASE_URL}`);

  step('1  Identify the caller');
  say('caller', `Hi, this is ${anna.name}, my internet plan is too slow.`);
  const first = await answer(agent.GET('/agent/customers/search', { params: { query: { q: anna.name } } }));
  expectStatus(first, 200, 'search by name');
  expectThat(first.body.ambiguous === true && first.body.match_count >= 2, 'the name alone should match several customers', first.body);
  const mine = first.body.matches.find((m: any) => m.customer_id === anna.id);
  expectThat(
    mine,
    'the demo customer should be among the matches',
    first.body.matches.map((m: any) => m.customer_id),
  );
  ok(
    `"${anna.name}" matches ${first.body.match_count} customers (masked: ${first.body.matches.map((m: any) => m.name_masked).join(', ')}): ambiguous, never pick one`,
  );
  const unit = anna.unit_label ?? mine.service_locations[0]?.unit_label;
  expectThat(unit, 'the demo customer should have a unit', mine.service_locations);
  say('agent', 'Which flat is the service for?');
  say('caller', `Unit ${unit}.`);
  const narrowed = await answer(agent.GET('/agent/customers/search', { params: { query: { q: `${anna.name} ${unit}` } } }));
  expectStatus(narrowed, 200, 'search by name and unit');
  expectThat(
    narrowed.body.ambiguous === false && narrowed.body.match_count === 1 && narrowed.body.matches[0].customer_id === anna.id,
    'name + unit should match exactly the demo customer',
    narrowed.body,
  );
  const match = narrowed.body.matches[0];
  ok(
    `"${anna.name} ${unit}" → one customer: ${match.name_masked}, ${match.email_masked}, ${match.service_locations.map((l: any) => `${l.address} / ${l.unit_label}`).join('; ')}`,
  );

  step('2  Verify by one-time code');
  const issuedAt = Date.now();
  const issued = await answer(agent.POST('/agent/verify/issue', { body: { customer_id: anna.id, channel: 'email' } }));
  expectStatus(issued, 202, 'verify/issue');
  ok(`code sent to ${issued.body.destination_masked}, valid until ${issued.body.expires_at}`);
  const code = process.env.SMTP_URL ? await codeFromPrompt(anna.email) : await codeFromOutbox(anna.email, issuedAt);
  say('caller', `The code is ${code}.`);
  const checked = await answer(agent.POST('/agent/verify/check', { body: { customer_id: anna.id, code } }));
  expectStatus(checked, 200, 'verify/check');
  expectThat(
    typeof checked.body.verified_session === 'string' && checked.body.customer_id === anna.id,
    'verify/check should answer a session for this customer',
    checked.body,
  );
  const session: string = checked.body.verified_session;
  verified = client(doc.providers.main.api_key, session);
  ok(`verified; session valid until ${checked.body.expires_at}`);

  step('3  Answer questions');
  const profile = await answer(verified.GET('/agent/customers/{customerId}', { params: { path: { customerId: anna.id } } }));
  expectStatus(profile, 200, 'profile');
  const sub = profile.body.subscriptions.find((s: any) => s.subscription_id === anna.subscription_id) ?? profile.body.subscriptions[0];
  expectThat(sub, 'the profile should list a subscription', profile.body);
  ok(
    `profile: ${profile.body.contacts.contract.first_name} ${profile.body.contacts.contract.last_name}, ${sub.plan.name} at ${sub.plan.monthly_price} ${sub.plan.currency}/month, ${sub.status}, ${sub.service_location.address} unit ${sub.service_location.unit_label}`,
  );
  const billing = await answer(
    verified.GET('/agent/customers/{customerId}/billing-summary', { params: { path: { customerId: anna.id } } }),
  );
  expectStatus(billing, 200, 'billing summary');
  ok(
    `billing: balance ${billing.body.balance} ${billing.body.currency}, ${billing.body.open_invoice_count} open invoice(s), next invoice ${billing.body.next_invoice_date ?? '-'}, last payment ${billing.body.last_payment ? `${billing.body.last_payment.amount} on ${billing.body.last_payment.paid_at}` : 'none'}`,
  );
  const health = await answer(verified.GET('/agent/customers/{customerId}/network-health', { params: { path: { customerId: anna.id } } }));
  expectStatus(health, 200, 'network health');
  const h = health.body.subscriptions.find((s: any) => s.subscription_id === sub.subscription_id);
  expectThat(h, 'network health should cover the subscription', health.body);
  ok(
    `network: ${h.status}, provisioning ${h.provisioning.state}, modem ${h.modem ? `${h.modem.state} (last seen ${h.modem.last_seen_at})` : 'unknown'}, ${h.incidents.length} incident(s)`,
  );

  step('4  Change the plan (preview, confirmation, apply)');
  const current = sub.plan.plan_version_id;
  const target = [doc.plans.fast.plan_version_id, doc.plans.faster.plan_version_id, doc.plans.basic.plan_version_id].find(
    (p) => p !== current,
  )!;
  const body = { subscription_id: sub.subscription_id, plan_version_id: target };
  const preview = await answer(
    verified.POST('/agent/customers/{customerId}/plan-change/preview', { params: { path: { customerId: anna.id } }, body }),
  );
  expectStatus(preview, 200, 'plan-change preview');
  const adj = preview.body.one_time_adjustment;
  const cost = adj
    ? `${adj.type} ${adj.amount} for ${adj.days} of ${adj.days_in_period} days`
    : `no one-time adjustment (${preview.body.note})`;
  ok(
    `preview: ${preview.body.current_plan.name} → ${preview.body.new_plan.name} at ${preview.body.new_plan.monthly_price} ${preview.body.new_plan.currency}/month from ${preview.body.effective_date}; ${cost}`,
  );
  say(
    'agent',
    `That is ${preview.body.new_plan.monthly_price} ${preview.body.new_plan.currency} a month from today; ${cost}. Shall I change it?`,
  );
  say('caller', 'Yes, please.');
  const unconfirmed = await answer(
    verified.POST('/agent/customers/{customerId}/plan-change', { params: { path: { customerId: anna.id } }, body }),
  );
  expectThat(
    unconfirmed.status === 400 && unconfirmed.body?.error?.code === 'confirmation_required',
    'apply without confirm should answer 400 confirmation_required',
    unconfirmed.body,
  );
  ok('without confirm: true the change is refused (400 confirmation_required)');
  const applied = await answer(
    verified.POST('/agent/customers/{customerId}/plan-change', {
      params: { path: { customerId: anna.id } },
      body: { ...body, confirm: true },
    }),
  );
  expectStatus(applied, 200, 'plan-change apply');
  ok(`applied: now on ${applied.body.new_plan.name} (change ${applied.body.plan_change_id}, effective ${applied.body.effective_date})`);

  step('5  Escalate what the agent cannot resolve');
  const ticket = await answer(
    agent.POST('/agent/tickets', {
      body: {
        customer_id: anna.id,
        priority: 'normal',
        ai_summary: `Customer upgraded to ${applied.body.new_plan.name} and asks for a speed check once the new bandwidth is live.`,
        ai_diagnosis: `Modem ${h.modem ? h.modem.state : 'status unknown'}; provisioning ${h.provisioning.state}; plan change applied ${applied.body.effective_date}.`,
        transcript: `caller: my internet plan is too slow\nagent: verified by email code\nagent: previewed ${cost}\ncaller: yes, please`,
      },
    }),
  );
  expectStatus(ticket, 201, 'ticket');
  ok(`ticket ${ticket.body.ticket_id} opened in the ${ticket.body.queue} queue: "${ticket.body.subject}"`);

  console.log(`\n${green('The conversation went as expected.')}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    if (err instanceof Unexpected) {
      console.error(`\n${red('✗ unexpected answer:')} ${err.message}`);
      process.exit(1);
    }
    console.error(`\n${red('✗ setup:')} ${err instanceof SetupError ? err.message : (err as Error).stack}`);
    process.exit(2);
  },
);
