// What POST /agent/mcp refuses before a message runs (issue 30 §2, §6): JSON-RPC batches (the
// current MCP revision has none), browser Origins the deployment did not allow, oversized bodies
// and answers; and the hints of the tools that mail a customer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundAnswer, MAX_ANSWER_BYTES } from '../../src/surfaces/agent/mcp.guards.js';
import { seedCustomer, setupAgent, type AgentKit } from './helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent({ env: { MCP_ALLOWED_ORIGINS: 'https://console.example.com, http://localhost:6274' } });
});
afterAll(async () => kit.close());

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

async function post(payload: unknown, headers: Record<string, string> = {}) {
  const r = await kit.t.app.inject({
    method: 'POST',
    url: '/agent/mcp',
    headers: { ...HEADERS, 'x-api-key': kit.main.apiKey, ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return { status: r.statusCode, body: r.body ? JSON.parse(r.body) : null, headers: r.headers };
}

const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

describe('MCP: batches', () => {
  it('a JSON-RPC batch answers 400 with one JSON-RPC error (-32600) and runs none of its messages', async () => {
    const c = await seedCustomer(kit, { lastName: 'Batchmann' });
    const note = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'add_customer_note', arguments: { customer_id: c.id, note: `note ${id}` } },
    });
    const r = await post([note(1), note(2), list(3)]);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('batches') }, id: null });
    const notes = await kit.t.db.selectFrom('customer_notes').select('body').where('subscriber_id', '=', c.id).execute();
    expect(notes).toEqual([]);
    // The single message still works.
    const one = await post(list(4));
    expect(one.status).toBe(200);
    expect(one.body.result.tools.length).toBeGreaterThan(5);
  });

  it('a body over the MCP limit (512 KB) answers 413 in the /agent envelope', async () => {
    const big = { ...list(1), params: { pad: 'x'.repeat(600 * 1024) } };
    const r = await post(big);
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      error: { code: 'bad_request', message: expect.stringContaining('too large'), request_id: expect.any(String) },
    });
  });
});

describe('MCP: answer bound', () => {
  it('an answer over MAX_ANSWER_BYTES becomes a JSON-RPC error with the same id; a smaller one passes unchanged', () => {
    const small = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { ok: true } });
    expect(boundAnswer(small)).toEqual({ text: small, tooLarge: false });
    const large = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { pad: 'x'.repeat(MAX_ANSWER_BYTES) } });
    const bounded = boundAnswer(large);
    expect(bounded.tooLarge).toBe(true);
    expect(JSON.parse(bounded.text)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: expect.stringContaining('larger than') },
    });
  });
});

describe('MCP: Origin', () => {
  it('an Origin that is present and not allowed answers 403 with a JSON-RPC error, before any message runs', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://console.example.com.evil.example']) {
      const r = await post(list(1), { origin });
      expect(r.status, origin).toBe(403);
      expect(r.body, origin).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringContaining('Origin') }, id: null });
    }
  });

  it('no Origin (an agent SDK) and an allowed Origin (MCP_ALLOWED_ORIGINS, any case) are served', async () => {
    expect((await post(list(1))).status).toBe(200);
    expect((await post(list(1), { origin: 'https://Console.Example.com' })).status).toBe(200);
    expect((await post(list(1), { origin: 'http://localhost:6274' })).status).toBe(200);
  });
});

describe('MCP: hints of the tools that mail a customer', () => {
  it('every tool that sends a mail (or SMS) to the customer says openWorldHint: true; no other tool does', async () => {
    const r = await post(list(1));
    const hints = Object.fromEntries(
      (r.body.result.tools as { name: string; annotations: { openWorldHint?: boolean } }[]).map((t) => [
        t.name,
        t.annotations.openWorldHint,
      ]),
    );
    const mails = [
      'issue_verification_code',
      'send_portal_link',
      'resend_invoice',
      'update_customer_contact',
      'apply_plan_change',
      'resend_change_confirmation',
    ];
    for (const [name, hint] of Object.entries(hints)) expect(hint, name).toBe(mails.includes(name));
  });
});
