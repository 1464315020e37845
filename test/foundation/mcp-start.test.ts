// The MCP endpoint of a real `npm start` (a child process on its own database and port, its demo
// dataset, its own job worker sending mail to a real SMTP sink), driven by the SDK's client: the
// section-1 conversation as an agent would hold it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { runScript, useChildDb, waitForOutput } from './server-helpers.js';

const childDb = useChildDb();
let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink?.close());

describe('npm start serves MCP', () => {
  it('identify (ambiguous, then narrowed), verify by the mailed code, read, preview, confirm, escalate: as tool calls', async () => {
    const p = runScript('scripts/start.ts', [], childDb().dir, {
      ...childDb().env,
      PORT: '0',
      HOST: '127.0.0.1',
      NODE_ENV: 'development',
      SMTP_URL: sink.url,
      // what a search matches, not how fast: a loaded machine must not hit the production time bound
      SEARCH_TIMEOUT_MS: '60000',
    });
    const client = new Client({ name: 'npm-start-agent', version: '1.0.0' });
    try {
      // Loading the demo dataset takes a while on a busy machine (and on a real PostgreSQL).
      const base = (await waitForOutput(p, /ready at (http:\/\/\S+)/, 240_000))[1]!;
      const doc = JSON.parse(readFileSync(path.join(childDb().dir, 'var/demo.json'), 'utf8'));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/agent/mcp`), {
          requestInit: { headers: { 'x-api-key': doc.providers.main.api_key } },
        }),
      );
      const tool = async (name: string, args: Record<string, unknown>) => {
        const r = await client.callTool({ name, arguments: args });
        return { isError: Boolean(r.isError), data: r.structuredContent as any };
      };
      const ok = async (name: string, args: Record<string, unknown>) => {
        const r = await tool(name, args);
        expect(r.isError, `${name}: ${JSON.stringify(r.data)}`).toBe(false);
        return r.data;
      };

      expect((await client.listTools()).tools).toHaveLength(18);
      const [anna] = doc.customers.ambiguous;
      expect(await ok('search_customers', { q: anna.name })).toMatchObject({ ambiguous: true });
      const one = await ok('search_customers', { q: `${anna.name} ${anna.unit_label}` });
      expect(one).toMatchObject({ ambiguous: false, match_count: 1, matches: [{ customer_id: anna.id }] });

      await ok('issue_verification_code', { customer_id: anna.id });
      const mail = await sink.waitFor((m) => m.to.includes(anna.email.toLowerCase()) && m.tag === 'verification_code', 30_000);
      const code = /(\d{6})/.exec(mail.text.split('Verification code:')[1] ?? '')![1];
      const { verified_session: session } = await ok('check_verification_code', { customer_id: anna.id, code });

      const profile = await ok('get_customer_profile', { customer_id: anna.id, verified_session: session });
      const sub = profile.subscriptions[0];
      await ok('get_billing_summary', { customer_id: anna.id, verified_session: session });
      const target = [doc.plans.fast, doc.plans.faster, doc.plans.basic]
        .map((x) => x.plan_version_id)
        .find((id: string) => id !== sub.plan.plan_version_id);
      const change = { customer_id: anna.id, verified_session: session, subscription_id: sub.subscription_id, plan_version_id: target };
      const quote = await ok('preview_plan_change', change);
      expect(quote.new_plan.plan_version_id).toBe(target);
      expect((await tool('apply_plan_change', change)).data.error.code).toBe('confirmation_required');
      // The tool binds the price: without the preview's quote_token it refuses (issue 31 §2).
      expect((await tool('apply_plan_change', { ...change, confirm: true })).data.error.code).toBe('quote_required');
      const applied = await ok('apply_plan_change', { ...change, confirm: true, quote_token: quote.quote_token });
      expect(applied.new_plan).toEqual(quote.new_plan);
      const ticket = await ok('create_ticket', {
        customer_id: anna.id,
        verified_session: session,
        priority: 'low',
        ai_summary: 'Changed plan by phone; wants a call-back about the router.',
      });
      expect(ticket).toMatchObject({ status: 'open', ticket_id: expect.any(String) });
    } finally {
      await client.close();
      p.child.kill('SIGTERM');
      await p.done;
    }
  }, 360_000);
});
