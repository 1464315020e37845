// Property-based bad input against every operation of both OpenAPI documents: wrong types, huge
// strings, unicode, nulls, extra fields, injection strings, malformed JSON, wrong content type and
// oversized bodies. Never a 500, always the surface's error shape, and nothing written by a
// rejected request.
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentSpec, partnerSpec } from '../../src/plugins/docs.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider, createSubscriber, createUser } from '../helpers/factories.js';

let t: TestApp;
let headers: Record<string, string>;
let tables: string[];

const INJECTIONS = ["' OR 1=1 --", '"; DROP TABLE subscribers; --', '\r\nX-Injected: 1', '${jndi:ldap://x}', '<script>alert(1)</script>', '../../etc/passwd', '\u0000', '%00', '🙂🙃'.repeat(50), 'ß'.repeat(3000)];
const weird = fc.oneof(
  fc.constantFrom(...INJECTIONS),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string({ maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constant('x'.repeat(70_000)),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

function exampleFor(schema: any): unknown {
  if (!schema) return null;
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.anyOf) return exampleFor(schema.anyOf[0]);
  if (schema.oneOf) return exampleFor(schema.oneOf[0]);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, exampleFor(v)]));
    case 'array':
      return [exampleFor(schema.items)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      if (schema.format === 'email') return 'someone@example.test';
      if (schema.format === 'date') return '2026-12-01';
      return 'text';
  }
}

/** A valid-looking body with one field replaced, removed, or an extra field added. */
const mutatedBody = (schema: any) =>
  fc.tuple(fc.nat(), weird, fc.constantFrom('replace', 'remove', 'extra', 'whole')).map(([i, value, how]) => {
    const base = exampleFor(schema);
    if (how === 'whole' || typeof base !== 'object' || base === null || Array.isArray(base)) return value;
    const keys = Object.keys(base);
    const copy: Record<string, unknown> = { ...(base as object) };
    if (how === 'extra' || keys.length === 0) copy[`unexpected_${i % 7}`] = value;
    else if (how === 'remove') delete copy[keys[i % keys.length]];
    else copy[keys[i % keys.length]] = value;
    return copy;
  });

async function rowCounts(): Promise<string> {
  const parts = tables.map((name) => `(SELECT count(*) FROM "${name}")::int AS "${name}"`);
  const r = await sql.raw(`SELECT ${parts.join(', ')}`).execute(t.db);
  return JSON.stringify(r.rows[0]);
}

function assertShape(url: string, status: number, body: string, contentType = 'application/json') {
  expect(status, `${url} answered ${status}: ${body.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  if (status === 429) return; // the standard rate-limit shape, on both surfaces
  if (contentType.startsWith('text/html')) return; // the booking and payment pages answer people in HTML
  const json = JSON.parse(body);
  if (url.startsWith('/agent')) {
    expect(json.error?.code, `${url}: ${body.slice(0, 200)}`).toEqual(expect.any(String));
    expect(json.error.request_id).toEqual(expect.any(String));
  } else {
    expect(json, `${url}: ${body.slice(0, 200)}`).toHaveProperty('detail');
  }
  expect(body).not.toMatch(/\bat .*\.(ts|js):\d+|node_modules|SELECT .* FROM/);
}

beforeAll(async () => {
  t = await buildTestApp();
  const p = await createProvider(t.db);
  const sub = await createUser(t.db, { role: 'subscriber' });
  await createSubscriber(t.db, p.id, { userId: sub.id });
  const admin = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
  const adminJwt = await t.deps.auth.issueJwt({ id: admin.id, role: 'service_provider', sp_role: 'sp_admin', provider_id: p.id });
  const subJwt = await t.deps.auth.issueJwt({ id: sub.id, role: 'subscriber', sp_role: null, provider_id: null });
  headers = { 'x-api-key': p.apiKey, 'x-webhook-secret': p.webhookSecret, 'x-verified-session': 'not-a-session' };
  (headers as any).subscriberAuth = `Bearer ${subJwt.access_token}`;
  (headers as any).dashboardAuth = `Bearer ${adminJwt.access_token}`;
  const r = await sql<{ tablename: string }>`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'rate_limit_buckets', 'credential_failures', 'idempotency_records', 'audit_entries')`.execute(t.db);
  tables = r.rows.map((x) => x.tablename);
});
afterAll(() => t.close());

function operations() {
  const ops: { method: string; path: string; op: any }[] = [];
  for (const spec of [agentSpec(t.app), partnerSpec(t.app)]) {
    for (const [path, methods] of Object.entries<any>(spec.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) ops.push({ method: method.toUpperCase(), path, op });
    }
  }
  return ops;
}

const fillPath = (path: string, value: string) => path.replace(/\{[^}]+\}/g, encodeURIComponent(value));
const authFor = (path: string) => ({
  authorization: path.startsWith('/subscriber') || path.includes('/credit-notes') ? (headers as any).subscriberAuth : (headers as any).dashboardAuth,
});

describe('bad input never breaks the service', () => {
  it('every operation survives mutated bodies, params and queries with a 4xx in its surface shape and no write', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(3);
    for (const { method, path, op } of ops) {
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const queryParams = (op.parameters ?? []).filter((p: any) => p.in === 'query');
      await fc.assert(
        fc.asyncProperty(mutatedBody(bodySchema), fc.oneof(fc.uuid(), fc.constantFrom(...INJECTIONS), fc.string({ maxLength: 20 })), weird, async (body, idValue, queryValue) => {
          const url = fillPath(path, idValue);
          const query = queryParams.length ? `?${queryParams.map((p: any) => `${p.name}=${encodeURIComponent(String(queryValue))}`).join('&')}` : '';
          const before = method === 'GET' ? '' : await rowCounts();
          const r = await t.app.inject({
            method: method as any,
            url: url + query,
            headers: { ...headers, ...authFor(path), 'content-type': 'application/json' },
            ...(method === 'GET' || method === 'DELETE' ? {} : { payload: JSON.stringify(body) }),
          });
          assertShape(path, r.statusCode, r.body, String(r.headers['content-type'] ?? ''));
          if (method !== 'GET' && r.statusCode >= 400) expect(await rowCounts(), `${method} ${path} wrote despite ${r.statusCode}`).toBe(before);
        }),
        { numRuns: 12, seed: 20261122 },
      );
    }
  }, 300_000);

  it('malformed JSON, wrong content types and oversized bodies are 4xx on every writing operation', async () => {
    for (const { method, path, op } of operations().filter((o) => !['GET', 'DELETE'].includes(o.method))) {
      const url = fillPath(path, '00000000-0000-4000-8000-000000000000');
      const cases = [
        { 'content-type': 'application/json', payload: '{"a":' },
        { 'content-type': 'application/json', payload: JSON.stringify({ big: 'x'.repeat(1_100_000) }) },
        // An operation that takes no body ignores one; one that takes JSON refuses other types.
        ...(op.requestBody ? [{ 'content-type': 'text/plain', payload: 'hello' }] : []),
      ];
      for (const c of cases) {
        const r = await t.app.inject({ method: method as any, url, headers: { ...headers, ...authFor(path), 'content-type': c['content-type'] }, payload: c.payload });
        assertShape(path, r.statusCode, r.body, String(r.headers['content-type'] ?? ''));
        expect(r.statusCode, `${method} ${path} with ${c['content-type']}`).toBeGreaterThanOrEqual(400);
      }
    }
  }, 120_000);
});
