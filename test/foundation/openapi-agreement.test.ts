// The documents and the server agree (issue 30 §5, a conformance fuzzer's findings): a walk over
// both OpenAPI documents as the server serves them (the same as openapi/*.json, `npm run openapi`),
// then the behaviours they now declare.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';

let t: TestApp;
let docs: { name: string; spec: any }[];
let key: string;
beforeAll(async () => {
  t = await buildTestApp();
  key = (await createProvider(t.db)).apiKey;
  docs = [
    { name: 'partner', spec: (await t.app.inject({ url: '/openapi.json' })).json() },
    { name: 'agent', spec: (await t.app.inject({ url: '/agent/openapi.json' })).json() },
  ];
});
afterAll(() => t.close());

interface Op {
  doc: string;
  id: string;
  method: string;
  path: string;
  op: any;
}
const operations = (): Op[] =>
  docs.flatMap(({ name, spec }) =>
    Object.entries<any>(spec.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(([method, op]) => ({ doc: name, id: `${name} ${method.toUpperCase()} ${path}`, method, path, op })),
    ),
  );

/** Every named property of every schema of an operation (request body, parameters, responses). */
function properties(op: any): { at: string; name: string; schema: any }[] {
  const out: { at: string; name: string; schema: any }[] = [];
  const walk = (s: any, at: string) => {
    if (!s || typeof s !== 'object') return;
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(alt, at);
    if (s.items) walk(s.items, `${at}[]`);
    for (const [name, p] of Object.entries<any>(s.properties ?? {})) {
      out.push({ at: `${at}.${name}`, name, schema: p });
      walk(p, `${at}.${name}`);
    }
  };
  for (const c of Object.values<any>(op.requestBody?.content ?? {})) walk(c.schema, 'body');
  for (const p of op.parameters ?? []) out.push({ at: `${p.in}.${p.name}`, name: p.name, schema: p.schema ?? {} });
  for (const [status, r] of Object.entries<any>(op.responses ?? {}))
    for (const c of Object.values<any>(r.content ?? {})) walk(c.schema, status);
  return out;
}

const formatOf = (s: any): string | undefined => s.format ?? (s.anyOf ?? []).map((a: any) => a.format).find(Boolean);

describe('both documents, walked', () => {
  it('every operation that takes a JSON body declares 400 (malformed JSON) and 413 (too large)', () => {
    const withBody = operations().filter((o) => o.op.requestBody?.content?.['application/json']);
    expect(withBody.length).toBeGreaterThan(20);
    for (const o of withBody) {
      expect(o.op.responses['400'], o.id).toBeDefined();
      expect(o.op.responses['413'], o.id).toBeDefined();
    }
    const login = operations().find((o) => o.doc === 'partner' && o.path === '/auth/login')!;
    expect(login.op.responses['400'].description).toContain('Malformed JSON body');
  });

  it('every date-named string declares format: date', () => {
    const dates = operations().flatMap((o) =>
      properties(o.op)
        .filter((p) => /(^|_)date$/.test(p.name))
        .map((p) => ({ ...p, id: o.id })),
    );
    expect(dates.length).toBeGreaterThan(10);
    for (const d of dates) expect(formatOf(d.schema), `${d.id} ${d.at}`).toBe('date');
  });

  it('no error response is declared as a page or a file: the server answers errors of file routes, and refusals and rate limits of pages, as JSON', () => {
    for (const o of operations()) {
      const pdf = Object.values<any>(o.op.responses ?? {}).some((r) => r.content?.['application/pdf']);
      for (const [status, r] of Object.entries<any>(o.op.responses ?? {})) {
        if (Number(status) < 400 || !r.content) continue;
        if (pdf || ['400', '413', '422', '429'].includes(status))
          expect(Object.keys(r.content), `${o.id} ${status}`).toEqual(['application/json']);
      }
    }
  });

  it('every Idempotency-Key header declares minLength 1; every email field format email with the label pattern', () => {
    const headers = operations().flatMap((o) =>
      (o.op.parameters ?? []).filter((p: any) => p.in === 'header' && p.name === 'idempotency-key').map((p: any) => ({ id: o.id, p })),
    );
    expect(headers.length).toBeGreaterThan(5);
    for (const h of headers) expect(h.p.schema.minLength, h.id).toBe(1);
    const emails = operations().flatMap((o) =>
      properties(o.op)
        .filter((p) => formatOf(p.schema) === 'email')
        .map((p) => ({ ...p, id: o.id })),
    );
    expect(emails.length).toBeGreaterThan(3);
    for (const e of emails) expect(e.schema.pattern, `${e.id} ${e.at}`).toContain('[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?');
  });

  it('"one of these fields" rules are in the schema (anyOf), and both documents state the U+0000 refusal', () => {
    const bodyOf = (doc: string, method: string, path: string) =>
      operations().find((o) => o.doc === doc && o.method === method && o.path === path)!.op.requestBody.content['application/json'].schema;
    expect(bodyOf('agent', 'post', '/agent/tickets').anyOf).toEqual([{ required: ['customer_id'] }, { required: ['contact_email'] }]);
    expect(bodyOf('agent', 'patch', '/agent/customers/{customerId}/contact').anyOf).toHaveLength(4);
    expect(bodyOf('partner', 'post', '/external-checkout/sessions').anyOf.map((a: any) => a.required[0])).toEqual([
      'location_hash',
      'unit_id',
      'building_id',
    ]);
    for (const { spec } of docs) expect(spec.info.description).toContain('U+0000');
  });

  it('path tokens: every documented maxLength of a path parameter is reachable (the router takes up to 300 characters)', () => {
    const lengths = operations().flatMap((o) =>
      (o.op.parameters ?? []).filter((p: any) => p.in === 'path' && p.schema?.maxLength).map((p: any) => p.schema.maxLength as number),
    );
    expect(Math.max(...lengths)).toBeLessThanOrEqual(300);
  });
});

describe('the behaviours the documents now declare', () => {
  it('a 250-character rollback token is read by the route (404 page), not refused by the router as an undocumented 400', async () => {
    const r = await t.app.inject({ url: `/rollback/${'a'.repeat(250)}` });
    expect(r.statusCode).toBe(404);
    const over = await t.app.inject({ url: `/pay/${'a'.repeat(250)}` });
    expect(over.statusCode).toBe(422);
    expect(over.json()).toEqual({ detail: expect.stringMatching(/^token: /) });
  });

  it('POST /pay and the booking page answer their 422 as JSON {detail}, as now declared', async () => {
    const pay = await t.app.inject({ method: 'POST', url: `/pay/${'b'.repeat(20)}`, payload: { card_number: 12 } });
    expect(pay.statusCode).toBe(422);
    expect(pay.headers['content-type']).toMatch(/^application\/json/);
    const booking = await t.app.inject({ url: '/booking/short' });
    expect(booking.statusCode).toBe(422);
    expect(booking.json()).toEqual({ detail: expect.any(String) });
  });

  it('an empty Idempotency-Key answers 422 naming the header on the partner surface (minLength 1), as the agent surface refuses it with 400', async () => {
    const partner = await t.app.inject({
      method: 'POST',
      url: '/partner/subscriptions/3f1c2a9e-0000-4000-8000-000000000001/change-plan',
      headers: { 'x-api-key': key, 'idempotency-key': '' },
      payload: { plan_version_id: '3f1c2a9e-0000-4000-8000-000000000002' },
    });
    expect(partner.statusCode).toBe(422);
    expect(partner.json()).toEqual({ detail: expect.stringMatching(/^idempotency-key: /) });
    const agent = await t.app.inject({
      method: 'POST',
      url: '/agent/tickets',
      headers: { 'x-api-key': key, 'idempotency-key': '' },
      payload: { contact_email: 'caller@example.com', priority: 'low', ai_summary: 'Question' },
    });
    expect(agent.statusCode).toBe(400);
    expect(agent.json().error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'idempotency-key' })]));
  });
});
