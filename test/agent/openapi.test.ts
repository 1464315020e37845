// /agent/openapi.json is what an LLM agent reads: every operation of this surface names itself,
// says what it does, and describes every request and response field.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeaks, setupAgent, type AgentKit } from './helpers.js';

let kit: AgentKit;
let spec: any;
beforeAll(async () => {
  kit = await setupAgent();
  spec = (await kit.call('GET', '/agent/openapi.json', { key: null })).body;
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

const OPERATIONS: Record<string, [method: string, path: string]> = {
  searchCustomers: ['get', '/agent/customers/search'],
  issueVerificationCode: ['post', '/agent/verify/issue'],
  checkVerificationCode: ['post', '/agent/verify/check'],
  getCustomerProfile: ['get', '/agent/customers/{customerId}'],
  getBillingSummary: ['get', '/agent/customers/{customerId}/billing-summary'],
  listPayments: ['get', '/agent/customers/{customerId}/payments'],
  getNetworkHealth: ['get', '/agent/customers/{customerId}/network-health'],
  listCustomerTickets: ['get', '/agent/customers/{customerId}/tickets'],
  updateCustomerContact: ['patch', '/agent/customers/{customerId}/contact'],
  sendPortalLink: ['post', '/agent/customers/{customerId}/password-reset'],
  resendInvoice: ['post', '/agent/customers/{customerId}/invoices/{invoiceId}/resend'],
  addCustomerNote: ['post', '/agent/customers/{customerId}/notes'],
  createTicket: ['post', '/agent/tickets'],
};

/** Paths of properties (nested, in arrays and unions) that lack a description. */
function undescribed(schema: any, at: string, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const [i, s] of (schema[key] ?? []).entries()) undescribed(s, `${at}|${i}`, out);
  if (schema.items) undescribed(schema.items, `${at}[]`, out);
  for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
    const described = typeof prop.description === 'string' && prop.description.length > 0;
    // An object or array is described by its own description or by all of its fields.
    if (!described) out.push(`${at}.${name}`);
    undescribed(prop, `${at}.${name}`, out);
  }
  return out;
}

describe('GET /agent/openapi.json', () => {
  it('is a valid OpenAPI document listing only /agent paths', async () => {
    await SwaggerParser.validate(structuredClone(spec));
    expect(Object.keys(spec.paths).every((p) => p.startsWith('/agent/'))).toBe(true);
  });

  it.each(Object.entries(OPERATIONS))(
    '%s: operationId, tags, summary, description, security and every status documented',
    (operationId, [method, path]) => {
      const op = spec.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(operationId);
      expect(op.tags.length).toBeGreaterThan(0);
      expect(op.summary.length).toBeGreaterThan(10);
      expect(op.description.length).toBeGreaterThan(80);
      expect(op.security?.[0]).toHaveProperty('apiKey');
      for (const status of ['400', '403', '429', '500']) expect(Object.keys(op.responses), `${operationId} ${status}`).toContain(status);
      expect(Object.keys(op.responses).some((s) => s.startsWith('2'))).toBe(true);
      if (path.includes('{customerId}')) {
        expect(op.security[0]).toHaveProperty('verifiedSession');
        for (const status of ['401', '404']) expect(Object.keys(op.responses)).toContain(status);
      }
    },
  );

  it.each(Object.entries(OPERATIONS))(
    '%s: every parameter and every request/response field is described',
    (operationId, [method, path]) => {
      const op = spec.paths[path][method];
      const missing: string[] = [];
      for (const p of op.parameters ?? []) if (!(p.description ?? p.schema?.description)) missing.push(`param ${p.in}.${p.name}`);
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) undescribed(body, 'body', missing);
      for (const [status, r] of Object.entries<any>(op.responses))
        undescribed(r.content?.['application/json']?.schema, `response ${status}`, missing);
      expect(missing).toEqual([]);
    },
  );

  it('request fields carry examples for the agent to imitate', () => {
    const body = spec.paths['/agent/tickets'].post.requestBody.content['application/json'].schema;
    for (const f of ['contact_email', 'priority', 'subject', 'ai_summary', 'ai_diagnosis'])
      expect(body.properties[f].example, f).toBeDefined();
    const q = spec.paths['/agent/customers/search'].get.parameters.find((p: any) => p.name === 'q');
    expect(q.schema.example ?? q.example).toBeDefined();
  });
});
