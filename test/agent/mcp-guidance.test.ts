// MCP as good as the HTTP documents (issue 31 §6): a tool error carries the HTTP error's next step,
// the server's instructions give the flow and the code-to-next-step table, the parameter
// descriptions speak of tools and fields (no HTTP paths), and the documents say where MCP is.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/lib/errors.catalogue.js';
import { connectMcp, expectNoLeaks, seedCustomer, setupAgent, type AgentKit } from './helpers.js';

let kit: AgentKit;
let client: Client;

beforeAll(async () => {
  kit = await setupAgent();
  client = await connectMcp(kit, 'guidance-test');
});
afterAll(async () => {
  await client.close();
  await expectNoLeaks(kit);
  await kit.close();
});

describe('MCP guidance', () => {
  it('a tool error carries the same next step as the HTTP error, in the tools words', async () => {
    const c = await seedCustomer(kit, { lastName: 'Guided' });
    const http = await kit.call('GET', `/agent/customers/${c.id}`);
    const tool = await client.callTool({ name: 'get_customer_profile', arguments: { customer_id: c.id, verified_session: 'nope' } });
    expect(tool.isError).toBe(true);
    const err = (tool.structuredContent as { error: { code: string; message: string } }).error;
    expect(http.body.error.code).toBe('verification_required');
    expect(err.code).toBe('session_invalid');
    expect(err.message).toContain('Next step: the verified session is unknown or expired');
    const missing = await client.callTool({ name: 'get_customer_profile', arguments: { customer_id: c.id } });
    const m = (missing.structuredContent as { error: { code: string; message: string } }).error;
    expect(m.code).toBe('verification_required');
    // The HTTP next step names POST /agent/verify/issue; the tool's names the tools instead.
    expect(http.body.error.message).toContain('Next step: verify the caller (POST /agent/verify/issue');
    expect(m.message).toContain('Next step: verify the caller (`issue_verification_code`');
    expect(m.message).not.toMatch(/(GET|POST|PATCH) \/agent\//);
  });

  it("the server's instructions give the flow and every code with its next step, without HTTP paths", () => {
    const text = client.getInstructions() ?? '';
    for (const tool of [
      'search_customers',
      'check_verification_code',
      'list_plan_options',
      'apply_plan_change',
      'list_recent_changes',
      'create_ticket',
    ])
      expect(text).toContain(tool);
    for (const code of Object.keys(ERRORS)) expect(text).toContain(`- ${code} (`);
    expect(text).not.toMatch(/(GET|POST|PATCH) \/agent\//);
  });

  it('parameter descriptions speak of tools and fields, not HTTP paths or headers', async () => {
    const { tools } = await client.listTools();
    const offenders = tools.flatMap((t) =>
      [...JSON.stringify(t.inputSchema).matchAll(/(GET|POST|PATCH) \/agent\/[^"]*|X-Verified-Session/g)].map((m) => `${t.name}: ${m[0]}`),
    );
    expect(offenders).toEqual([]);
    const apply = tools.find((t) => t.name === 'preview_plan_change')!;
    expect(JSON.stringify(apply.inputSchema)).toContain('`list_plan_options`');
  });

  it('the agent OpenAPI document and the landing page say where the MCP endpoint is', async () => {
    const spec = await kit.call('GET', '/agent/openapi.json', { key: null });
    expect(spec.body.info.description).toContain('POST /agent/mcp');
    const page = await kit.t.app.inject({ method: 'GET', url: '/' });
    expect(page.body).toContain('/agent/mcp');
  });
});
