// POST /agent/mcp with the SDK's own client (Client + StreamableHTTPClientTransport) against a
// listening server: the agent document's section-1 conversation as tool calls, and the rules of
// the HTTP surface holding for tools (errors by code, confirmation, one change a day, audit,
// provider scoping, rate-limit buckets shared with HTTP).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/surfaces/agent/mcp.tools.js';
import { agentOperations } from '../../src/surfaces/agent/mcp.catalogue.js';
import { createPlanVersion } from '../helpers/factories.js';
import { setMonthRecords } from '../plan-change/fixtures.js';
import { codeFromMail, connectMcp, expectNoLeaks, listenUrl, seedCustomer, setupAgent, type AgentKit } from './helpers.js';

let kit: AgentKit;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  kit = await setupAgent();
  url = await listenUrl(kit);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await kit.close();
});

async function connect(key: string = kit.main.apiKey) {
  const client = await connectMcp(kit, 'netsvc-test-agent', key);
  clients.push(client);
  return client;
}

interface ToolAnswer {
  isError: boolean;
  data: any;
  code?: string;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args });
  const data = r.structuredContent as any;
  // The text content carries the same JSON, for clients that read only text.
  expect(JSON.parse((r.content as { type: string; text: string }[])[0]!.text)).toEqual(data);
  kit.recorded.push({ method: 'MCP', url: name, status: r.isError ? 0 : 200, body: JSON.stringify(data) });
  return { isError: Boolean(r.isError), data, code: r.isError ? data?.error?.code : undefined };
}

function expectToolError(a: ToolAnswer, code: string) {
  expect({ isError: a.isError, code: a.code }).toEqual({ isError: true, code });
  expect(a.data).toEqual({ error: expect.objectContaining({ code, message: expect.any(String), request_id: expect.any(String) }) });
}

async function customerWithMonthInvoiced(o: Parameters<typeof seedCustomer>[1] = {}) {
  const c = await seedCustomer(kit, { lastName: `Mcp${Math.random().toString(36).slice(2, 8)}`, ...o });
  await setMonthRecords(kit.t.db, c.provider.id, c.id, c.subscriptionId, '2026-11-01', 'invoiced');
  return c;
}

/** issue → the code from the real SMTP message → check, as tool calls. */
async function verifyByTools(client: Client, c: { id: string; email: string }) {
  const before = kit.sink.messages.filter((m) => m.to.includes(c.email.toLowerCase()) && m.tag === 'verification_code').length;
  const issued = await call(client, 'issue_verification_code', { customer_id: c.id });
  expect(issued.isError, JSON.stringify(issued.data)).toBe(false);
  const { code } = await codeFromMail(kit, c.email, before);
  const checked = await call(client, 'check_verification_code', { customer_id: c.id, code });
  expect(checked.isError, JSON.stringify(checked.data)).toBe(false);
  return checked.data.verified_session as string;
}

describe('MCP tools: listing', () => {
  it("lists one tool per /agent operation, named after its operationId, with the route's input fields and honest hints", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const ops = agentOperations(kit.t.app);
    expect(ops.map((o) => o.operationId).sort()).toEqual(Object.keys(TOOLS).sort());
    expect(tools.map((t) => t.name).sort()).toEqual([
      'add_customer_note',
      'apply_plan_change',
      'check_verification_code',
      'create_ticket',
      'get_billing_summary',
      'get_customer_profile',
      'get_network_health',
      'issue_verification_code',
      'list_customer_tickets',
      'list_payments',
      'list_plan_options',
      'list_recent_changes',
      'preview_plan_change',
      'resend_change_confirmation',
      'resend_invoice',
      'search_customers',
      'send_portal_link',
      'update_customer_contact',
    ]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search_customers!.inputSchema).toMatchObject({
      type: 'object',
      required: ['q'],
      properties: { q: { type: 'string', minLength: 2 }, limit: { default: 25 } },
    });
    expect(byName.apply_plan_change!.inputSchema.required?.sort()).toEqual([
      'customer_id',
      'plan_version_id',
      'quote_token',
      'subscription_id',
      'verified_session',
    ]);
    expect(Object.keys(byName.resend_invoice!.inputSchema.properties ?? {}).sort()).toEqual([
      'customer_id',
      'invoice_id',
      'verified_session',
    ]);
    expect(byName.create_ticket!.inputSchema.required).not.toContain('verified_session');
    expect(byName.create_ticket!.inputSchema.properties).toHaveProperty('verified_session');
    expect(byName.search_customers!.inputSchema.properties).not.toHaveProperty('verified_session');
    // The hints: reads and previews read-only; plan change and contact edits destructive.
    for (const name of [
      'search_customers',
      'get_customer_profile',
      'get_billing_summary',
      'list_payments',
      'get_network_health',
      'list_customer_tickets',
      'preview_plan_change',
    ]) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['apply_plan_change', 'update_customer_contact'])
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of [
      'issue_verification_code',
      'check_verification_code',
      'send_portal_link',
      'resend_invoice',
      'add_customer_note',
      'create_ticket',
    ]) {
      expect(byName[name]!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
    expect(byName.update_customer_contact!.annotations?.idempotentHint).toBe(true);
    expect(byName.apply_plan_change!.annotations?.idempotentHint).toBe(false);
    // Descriptions speak in tools, not in HTTP paths and headers.
    for (const t of tools) {
      expect(t.description, t.name).not.toMatch(/(GET|POST|PATCH) \/agent|X-Verified-Session|Idempotency-Key/);
      expect(t.title, t.name).toBeTruthy();
    }
    expect(byName.issue_verification_code!.description).toContain('`check_verification_code`');
  });
});

describe('MCP tools: one pipeline with the routes', () => {
  // A tool call is a request to its route (mcp.call.ts): every hook of the route, and of the app
  // around it, holds for the tool without a second edit. The metrics hook is one: the route's series
  // counts the tool call as it counts an HTTP call.
  it("a tool call runs as a request to its route: the route's hooks see it", async () => {
    const client = await connect();
    const c = await seedCustomer(kit, { lastName: 'Pipeline' });
    const series =
      'netsvc_http_request_duration_seconds_count{method="GET",route="/agent/customers/:customerId/billing-summary",status_class="4xx"}';
    const count = async () => {
      const text = (await kit.t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
    const before = await count();
    expectToolError(await call(client, 'get_billing_summary', { customer_id: c.id }), 'verification_required');
    expect(await count()).toBe(before + 1);
  });

  it("the route answers in the tool's words: a path parameter is named as the argument in validation details", async () => {
    const client = await connect();
    const c = await seedCustomer(kit, { lastName: 'Argnames' });
    const session = await verifyByTools(client, c);
    const bad = await call(client, 'resend_change_confirmation', { customer_id: c.id, verified_session: session, change_id: 'not-a-uuid' });
    expectToolError(bad, 'validation_error');
    expect(bad.data.error.details).toEqual([expect.objectContaining({ field: 'change_id' })]);
  });
});

describe('MCP tools: the section-1 conversation', () => {
  it("identify, verify by emailed code, read, preview, confirm, escalate: each step a tool call, with the HTTP surface's rules", async () => {
    const client = await connect();
    const lastName = 'Mcpconversation';
    const c = await customerWithMonthInvoiced({ firstName: 'Erika', lastName, unit: '4B' });
    const faster = await createPlanVersion(kit.t.db, kit.main.id, { name: 'Fibre 1000', priceCents: 4999 });

    // 1. identify: masked
    const found = await call(client, 'search_customers', { q: `Erika ${lastName}` });
    expect(found.isError).toBe(false);
    expect(found.data).toMatchObject({ ambiguous: false, match_count: 1, matches: [{ customer_id: c.id, name_masked: 'Erika M.' }] });
    expect(JSON.stringify(found.data)).not.toContain(c.email);

    // a read before verification: refused by code
    expectToolError(await call(client, 'get_customer_profile', { customer_id: c.id }), 'verification_required');
    expectToolError(await call(client, 'get_customer_profile', { customer_id: c.id, verified_session: 'vs_nope' }), 'session_invalid');

    // 2. verify: a wrong code, then the code of the real mail
    await call(client, 'issue_verification_code', { customer_id: c.id });
    expectToolError(await call(client, 'check_verification_code', { customer_id: c.id, code: '000000' }), 'invalid_code');
    const session = await verifyByTools(client, c);
    expect(session).toMatch(/^vs_/);

    // 3. read
    const profile = await call(client, 'get_customer_profile', { customer_id: c.id, verified_session: session });
    expect(profile.isError, JSON.stringify(profile.data)).toBe(false);
    expect(profile.data).toMatchObject({ customer_id: c.id });
    expect(JSON.stringify(profile.data)).toContain(c.email);
    for (const name of ['get_billing_summary', 'list_payments', 'get_network_health', 'list_customer_tickets']) {
      const r = await call(client, name, { customer_id: c.id, verified_session: session });
      expect(r.isError, `${name}: ${JSON.stringify(r.data)}`).toBe(false);
    }

    // 4. preview (nothing written), then apply: not without confirm, once with it, not twice a day
    const body = { customer_id: c.id, verified_session: session, subscription_id: c.subscriptionId, plan_version_id: faster.id };
    const quote = await call(client, 'preview_plan_change', body);
    expect(quote.isError, JSON.stringify(quote.data)).toBe(false);
    expect(quote.data).toMatchObject({
      subscription_id: c.subscriptionId,
      new_plan: { plan_version_id: faster.id, monthly_price: '49.99' },
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00', days: 15, days_in_period: 30 },
    });
    const changes = () => kit.t.db.selectFrom('plan_changes').selectAll().where('subscription_id', '=', c.subscriptionId).execute();
    expect(await changes()).toHaveLength(0);
    expectToolError(await call(client, 'apply_plan_change', body), 'confirmation_required');
    expectToolError(await call(client, 'apply_plan_change', { ...body, confirm: false }), 'confirmation_required');
    // the tool applies only a quoted price: confirm alone is refused (issue 31 §2)
    const unquoted = await call(client, 'apply_plan_change', { ...body, confirm: true });
    expectToolError(unquoted, 'quote_required');
    expect(await changes()).toHaveLength(0);
    // confirm with the quote: a token not of this quote is refused, the preview's own applies exactly it
    const quoteToken = (quote.data as { quote_token: string }).quote_token;
    expect(quoteToken).toEqual(expect.any(String));
    expectToolError(await call(client, 'apply_plan_change', { ...body, confirm: true, quote_token: `${quoteToken}x` }), 'quote_invalid');
    expect(await changes()).toHaveLength(0);
    const applied = await call(client, 'apply_plan_change', { ...body, confirm: true, quote_token: quoteToken });
    expect(applied.isError, JSON.stringify(applied.data)).toBe(false);
    expect(applied.data).toMatchObject({
      subscription_id: c.subscriptionId,
      new_plan: { plan_version_id: faster.id },
      one_time_adjustment: { type: 'next_invoice_line', amount: '5.00' },
      quote_matched: true,
    });
    expect(await changes()).toHaveLength(1);
    const sub = await kit.t.db
      .selectFrom('subscriptions')
      .select('plan_version_id')
      .where('id', '=', c.subscriptionId)
      .executeTakeFirstOrThrow();
    expect(sub.plan_version_id).toBe(faster.id);
    const audit = await kit.t.db.selectFrom('audit_entries').selectAll().where('entity_id', '=', c.subscriptionId).execute();
    expect(audit.map((a) => ({ actor_type: a.actor_type, actor: a.actor, provider_id: a.provider_id }))).toEqual([
      { actor_type: 'api_key', actor: kit.main.keyPrefix, provider_id: kit.main.id },
    ]);
    const back = await call(client, 'preview_plan_change', { ...body, plan_version_id: c.plan.id });
    expectToolError(back, 'plan_change_limit');

    // 5. escalate by ticket, as the verified caller
    const ticket = await call(client, 'create_ticket', {
      customer_id: c.id,
      verified_session: session,
      priority: 'normal',
      ai_summary: 'Customer wants to switch back to Fibre 250 tomorrow.',
      transcript: 'mcp transcript: internal only',
    });
    expect(ticket.isError, JSON.stringify(ticket.data)).toBe(false);
    expect(ticket.data).toMatchObject({ ticket_id: expect.any(String), status: 'open', priority: 'normal' });
    const history = await call(client, 'list_customer_tickets', { customer_id: c.id, verified_session: session });
    expect(JSON.stringify(history.data)).toContain(ticket.data.ticket_id);
    expect(JSON.stringify(history.data)).toContain('"caller_verified":true');
  });

  it('writes keep the HTTP rules: validation errors name the field, contact edits apply and return the contact, notes are never echoed', async () => {
    const client = await connect();
    const c = await seedCustomer(kit, { lastName: 'Writes' });
    const session = await verifyByTools(client, c);
    const base = { customer_id: c.id, verified_session: session };
    const bad = await call(client, 'update_customer_contact', { ...base, email: 'not-an-email' });
    expectToolError(bad, 'validation_error');
    expect(bad.data.error.details).toEqual([expect.objectContaining({ field: 'email' })]);
    expectToolError(await call(client, 'update_customer_contact', { ...base }), 'validation_error');
    const edited = await call(client, 'update_customer_contact', { ...base, first_name: 'Erika-Marie' });
    expect(edited.data).toMatchObject({
      customer_id: c.id,
      contact_type: 'contract',
      changed_fields: ['first_name'],
      contact: { first_name: 'Erika-Marie' },
    });
    const row = await kit.t.db.selectFrom('subscribers').select('first_name').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.first_name).toBe('Erika-Marie');
    const note = await call(client, 'add_customer_note', { ...base, note: 'mcp note: secret for staff' });
    expect(note.data).toEqual({ note_id: expect.any(String), customer_id: c.id, author: 'ai_agent', created_at: expect.any(String) });
    expectToolError(await call(client, 'search_customers', { q: 'x' }), 'validation_error');
    expectToolError(await call(client, 'search_customers', { q: 'bad\u0000text' }), 'validation_error');
    expectToolError(await call(client, 'resend_invoice', { ...base, invoice_id: '00000000-0000-4000-8000-000000000000' }), 'not_found');
  });

  it("another provider's customer answers like a customer that does not exist, before any session or body check", async () => {
    const other = await connect(kit.other.apiKey);
    const c = await seedCustomer(kit, { lastName: 'Foreign' });
    const session = await verifyByTools(await connect(), c);
    const missing = '3f1c9a52-5c1e-4a57-9b1e-7d2f0c8e4b11';
    const cases: [string, Record<string, unknown>][] = [
      ['get_customer_profile', { verified_session: session }],
      ['get_billing_summary', {}],
      ['preview_plan_change', { verified_session: session, subscription_id: c.subscriptionId, plan_version_id: c.plan.id }],
      ['apply_plan_change', { verified_session: session, subscription_id: c.subscriptionId, plan_version_id: c.plan.id, confirm: true }],
      ['update_customer_contact', { verified_session: session, email: 'broken' }],
      ['issue_verification_code', {}],
      ['create_ticket', { priority: 'low', ai_summary: 'x' }],
    ];
    const strip = (a: ToolAnswer) => ({ ...a, data: { error: { ...a.data.error, request_id: '-' } } });
    for (const [name, args] of cases) {
      const owned = await call(other, name, { ...args, customer_id: c.id });
      const unknown = await call(other, name, { ...args, customer_id: missing });
      expectToolError(owned, 'customer_not_found');
      expect(strip(owned), name).toEqual(strip(unknown));
    }
    // and nothing was written for it
    expect(await kit.t.db.selectFrom('plan_changes').select('id').where('subscription_id', '=', c.subscriptionId).execute()).toEqual([]);
  });

  it('a bad API key never reaches the tools: the HTTP envelope, before any JSON-RPC', async () => {
    const r = await fetch(`${url}/agent/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': 'sk_nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(r.status).toBe(403);
    expect(((await r.json()) as any).error.code).toBe('invalid_api_key');
    await expect(connect('sk_nope')).rejects.toThrow();
    const get = await fetch(`${url}/agent/mcp`, { headers: { 'x-api-key': kit.main.apiKey, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('hostile input is a clear 4xx or tool error, never a 500', async () => {
    const post = (body: string, accept = 'application/json, text/event-stream') =>
      fetch(`${url}/agent/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, 'x-api-key': kit.main.apiKey },
        body,
      });
    const notRpc = await post('{}');
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).error.code).toBe(-32700); // the SDK: not a JSON-RPC message
    const malformed = await post('{"jsonrpc":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).error.code).toBe('bad_request');
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), 'text/html')).status).toBe(406);
    const client = await connect();
    await expect(client.callTool({ name: 'reboot_modem', arguments: {} })).rejects.toThrow(/Unknown tool reboot_modem/);
    const arrayArgs = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_customers', arguments: ['q'] } }),
    );
    expect(arrayArgs.status).toBeLessThan(500);
    const deep = await call(client, 'create_ticket', {
      customer_id: { nested: { deeper: [1, 2, 3] } },
      priority: 'urgent',
      ai_summary: 'x',
    });
    expectToolError(deep, 'validation_error');
    // an id that a URL would resolve as a path segment ('..') is still only an unknown id
    expectToolError(await call(client, 'get_customer_profile', { customer_id: '..' }), 'customer_not_found');
    expect(deep.data.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['customer_id', 'priority']);
  });

  it('no response of a tool leaks internal fields or mailed secrets', async () => {
    await expectNoLeaks(kit);
  });
});

describe('MCP tools: rate limits', () => {
  it("a tool call counts in its HTTP route's bucket of the same API key: spent over HTTP, the tool answers rate_limited, and back", async () => {
    const limited = await setupAgent({ env: { RATE_LIMIT_ENABLED: 'true' } });
    try {
      const client = await connectMcp(limited, 'limited');
      clients.push(client);
      // agent.verify_check: 30 a minute per key. 29 over HTTP, the 30th as a tool, then both refused.
      const body = { customer_id: '3f1c9a52-5c1e-4a57-9b1e-7d2f0c8e4b11', code: '000000' };
      for (let i = 0; i < 29; i++) expect((await limited.call('POST', '/agent/verify/check', { payload: body })).status).toBe(404);
      const last = await client.callTool({ name: 'check_verification_code', arguments: body });
      expect((last.structuredContent as any).error.code).toBe('customer_not_found');
      const over = await client.callTool({ name: 'check_verification_code', arguments: body });
      expect(over.isError).toBe(true);
      expect((over.structuredContent as any).error).toMatchObject({
        code: 'rate_limited',
        message: expect.stringMatching(/^Rate limit exceeded, retry in /),
      });
      expect((await limited.call('POST', '/agent/verify/check', { payload: body })).status).toBe(429);
      // another operation's bucket is untouched
      const search = await client.callTool({ name: 'search_customers', arguments: { q: 'Nobody Here' } });
      expect(search.isError).toBeFalsy();
    } finally {
      await limited.close();
    }
  }, 180_000); // a second app and 32 calls: room for a busy machine
});
