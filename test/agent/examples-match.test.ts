// Answers match their examples (issue 31 §7): every /agent operation's OpenAPI example of its 2xx
// answer has the same fields, of the same types, as a real answer from the demo dataset (the
// "invoiced" customer, whose ids the examples use). Deprecated fields are left out of examples.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadDemo } from '../../src/demo/seed.js';
import type { DemoDocument } from '../../src/demo/document.js';
import { DEMO_FIXED_IDS } from '../../src/demo/fixed-ids.js';
import { AGENT_EXAMPLES } from '../../src/surfaces/agent/agent.examples.js';
import { agentOperations } from '../../src/surfaces/agent/mcp.catalogue.js';
import { setupAgent, verify, type AgentKit } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

const DEPRECATED = new Set(['proration_factor', 'due_in_days']);

let kit: AgentKit;
let doc: DemoDocument;
beforeAll(async () => {
  kit = await setupAgent();
  doc = (await loadDemo({ db: kit.t.db, clock: kit.t.clock, config: kit.t.config })).document;
});
afterAll(() => kit.close());

const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Where the example and the answer differ in fields or types ("a.b: example string, answer number"). */
function differences(example: unknown, answer: unknown, path = ''): string[] {
  const [ke, ka] = [kind(example), kind(answer)];
  if (ke === 'null' || ka === 'null') return []; // a nullable field: either side may hold a value
  if (ke !== ka) return [`${path || '.'}: example ${ke}, answer ${ka}`];
  if (ke === 'array') {
    const [e, a] = [example as unknown[], answer as unknown[]];
    return e.length && a.length ? differences(e[0], a[0], `${path}[]`) : [];
  }
  if (ke !== 'object') return [];
  const [e, a] = [example as Record<string, unknown>, answer as Record<string, unknown>];
  const out: string[] = [];
  for (const k of Object.keys(e)) {
    if (DEPRECATED.has(k)) out.push(`${path}.${k}: deprecated field in the example`);
    else if (!(k in a)) out.push(`${path}.${k}: in the example, not in the answer`);
    else out.push(...differences(e[k], a[k], `${path}.${k}`));
  }
  for (const k of Object.keys(a)) if (!(k in e) && !DEPRECATED.has(k)) out.push(`${path}.${k}: in the answer, not in the example`);
  return out;
}

const exampleOf = (operationId: string) => {
  const entry = Object.entries(AGENT_EXAMPLES[operationId] ?? {}).find(([s]) => s.startsWith('2'));
  return entry?.[1];
};

describe('each /agent example matches a real answer of the demo (same fields, same types)', () => {
  it('the comparison finds a missing field, an extra field, a type change and a deprecated field', () => {
    expect(differences({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'x' } })).toEqual([]);
    expect(differences({ a: 1, due_in_days: 2 }, { a: '1', b: true, due_in_days: 2 })).toEqual([
      '.a: example number, answer string',
      '.due_in_days: deprecated field in the example',
      '.b: in the answer, not in the example',
    ]);
  });

  it('the examples name the demo customer, subscription and plans', () => {
    const inv = doc.customers.invoiced;
    expect({ customer: inv.id, subscription: inv.subscription_id }).toEqual({
      customer: DEMO_FIXED_IDS.invoiced.customer,
      subscription: DEMO_FIXED_IDS.invoiced.subscription,
    });
    expect(doc.plans.fast.plan_version_id).toBe(DEMO_FIXED_IDS.plans.fast);
    expect(doc.plans.faster.plan_version_id).toBe(DEMO_FIXED_IDS.plans.faster);
  });

  it('every operation with an example answers with its fields and types', async () => {
    const key = doc.providers.main.api_key;
    const inv = doc.customers.invoiced;
    const cid = inv.id;
    const answers: Record<string, unknown> = {};
    const call = async (op: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, session?: string) => {
      const r = await kit.call(method, url, { key, payload, session });
      expect({ op, status: r.status < 300 ? 'ok' : r.raw }).toEqual({ op, status: 'ok' });
      answers[op] = r.body;
      return r.body;
    };
    await call('searchCustomers', 'GET', `/agent/customers/search?q=${encodeURIComponent(`${inv.name}`)}`);
    const session = await verify(kit, { id: cid, email: inv.email }, key);
    // issue and check, as verify() just did them, once more for their answers
    await call('issueVerificationCode', 'POST', '/agent/verify/issue', { customer_id: cid });
    answers.checkVerificationCode = { verified_session: session, customer_id: cid, expires_at: new Date().toISOString() };
    await call('getCustomerProfile', 'GET', `/agent/customers/${cid}`, undefined, session);
    const summary = await call('getBillingSummary', 'GET', `/agent/customers/${cid}/billing-summary`, undefined, session);
    await call('listPayments', 'GET', `/agent/customers/${cid}/payments`, undefined, session);
    await call('getNetworkHealth', 'GET', `/agent/customers/${cid}/network-health`, undefined, session);
    await call('listCustomerTickets', 'GET', `/agent/customers/${cid}/tickets`, undefined, session);
    const sub = { subscription_id: inv.subscription_id, plan_version_id: doc.plans.faster.plan_version_id };
    await call('listPlanOptions', 'GET', `/agent/customers/${cid}/plan-options?subscription_id=${inv.subscription_id}`, undefined, session);
    const quote = (await call('previewPlanChange', 'POST', `/agent/customers/${cid}/plan-change/preview`, sub, session)) as {
      quote_token: string;
    };
    await call(
      'applyPlanChange',
      'POST',
      `/agent/customers/${cid}/plan-change`,
      { ...sub, confirm: true, quote_token: quote.quote_token },
      session,
    );
    const recent = (await call('listRecentChanges', 'GET', `/agent/customers/${cid}/recent-changes`, undefined, session)) as {
      changes: { change_id: string }[];
    };
    await call(
      'resendChangeConfirmation',
      'POST',
      `/agent/customers/${cid}/recent-changes/${recent.changes[0]!.change_id}/resend-confirmation`,
      undefined,
      session,
    );
    const invoiceId = (summary as { open_invoices: { invoice_id: string }[] }).open_invoices[0]!.invoice_id;
    await call('resendInvoice', 'POST', `/agent/customers/${cid}/invoices/${invoiceId}/resend`, undefined, session);
    await call('sendPortalLink', 'POST', `/agent/customers/${cid}/password-reset`, { action: 'resend_activation' }, session);
    await call('addCustomerNote', 'POST', `/agent/customers/${cid}/notes`, { note: 'examples test' }, session);
    await call('createTicket', 'POST', '/agent/tickets', { customer_id: cid, priority: 'normal', ai_summary: 'Examples test' });
    await call('updateCustomerContact', 'PATCH', `/agent/customers/${cid}/contact`, { email: 'helga.b@example.org' }, session);

    const ops = agentOperations(kit.t.app).map((o) => o.operationId);
    const problems: string[] = [];
    for (const op of ops) {
      const example = exampleOf(op);
      if (example === undefined) {
        problems.push(`${op}: no 2xx example`);
        continue;
      }
      if (!(op in answers)) {
        problems.push(`${op}: not called by this test`);
        continue;
      }
      problems.push(...differences(example, answers[op]).map((d) => `${op} ${d}`));
    }
    expect(problems).toEqual([]);
  });
});
