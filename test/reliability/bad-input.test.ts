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
let customerId: string;

const INJECTIONS = [
  "' OR 1=1 --",
  '"; DROP TABLE subscribers; --',
  '\r\nX-Injected: 1',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '\u0000',
  '%00',
  '🙂🙃'.repeat(50),
  'ß'.repeat(3000),
];
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
    const copy: Record<string, unknown> = { ...base };
    if (how === 'extra' || keys.length === 0) copy[`unexpected_${i % 7}`] = value;
    else if (how === 'remove') delete copy[keys[i % keys.length]!];
    else copy[keys[i % keys.length]!] = value;
    return copy;
  });

const UNSTORABLE = ['\u0000', '\ud800', '\udfff', 'x\udc00'];
interface Target {
  part: 'body' | 'query' | 'path';
  at: string[];
}

/** The paths of every string field of a request body schema (first branch of a union, first item of an array). */
function stringFields(schema: any, at: string[] = []): string[][] {
  if (!schema) return [];
  if (schema.anyOf || schema.oneOf)
    return stringFields(
      (schema.anyOf ?? schema.oneOf).find((s: any) => s.type !== 'null'),
      at,
    );
  if (schema.type === 'object') return Object.entries<any>(schema.properties ?? {}).flatMap(([k, v]) => stringFields(v, [...at, k]));
  if (schema.type === 'array') return stringFields(schema.items, [...at, '0']);
  if (schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'))) return [at];
  return [];
}

/** A path parameter that passes its own schema, so validation reaches the part under test. */
const validParam = (schema: any) =>
  schema?.type === 'string' && !schema.example && !schema.format ? 'a'.repeat(Math.max(schema.minLength ?? 1, 12)) : exampleFor(schema);

function setAt(target: any, at: string[], value: unknown) {
  let node = target;
  for (const key of at.slice(0, -1)) node = node[key];
  node[at.at(-1)!] = value;
}

/**
 * Rows inserted or deleted so far in the watched tables: a trigger on each counts them (as comparing
 * every table's row count before and after each request did, at a fraction of the cost, and an insert
 * with a delete no longer cancel out). A rolled-back request's count rolls back with it.
 */
async function rowCounts(): Promise<string> {
  const r = await sql<{ n: string }>`SELECT n::text FROM test_rows_written`.execute(t.db);
  return r.rows[0]!.n;
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
  t = await buildTestApp({ env: { SANDBOX: 'true' } });
  const p = await createProvider(t.db);
  const sub = await createUser(t.db, { role: 'subscriber' });
  customerId = (await createSubscriber(t.db, p.id, { userId: sub.id })).id;
  const admin = await createUser(t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: p.id });
  const adminJwt = await t.services.auth.issueJwt({ id: admin.id, role: 'service_provider', sp_role: 'sp_admin', provider_id: p.id });
  const subJwt = await t.services.auth.issueJwt({ id: sub.id, role: 'subscriber', sp_role: null, provider_id: null });
  const operator = await createUser(t.db, { role: 'platform_admin' });
  const operatorJwt = await t.services.auth.issueJwt({ id: operator.id, role: 'platform_admin', sp_role: null, provider_id: null });
  headers = { 'x-api-key': p.apiKey, 'x-webhook-secret': p.webhookSecret, 'x-verified-session': 'not-a-session' };
  (headers as any).subscriberAuth = `Bearer ${subJwt.access_token}`;
  (headers as any).dashboardAuth = `Bearer ${adminJwt.access_token}`;
  (headers as any).platformAdminAuth = `Bearer ${operatorJwt.access_token}`;
  const r = await sql<{
    tablename: string;
  }>`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'rate_limit_buckets', 'credential_failures', 'idempotency_records', 'audit_entries')`.execute(
    t.db,
  );
  tables = r.rows.map((x) => x.tablename);
  await sql`CREATE TABLE test_rows_written (n bigint NOT NULL)`.execute(t.db);
  await sql`INSERT INTO test_rows_written VALUES (0)`.execute(t.db);
  await sql`CREATE FUNCTION test_count_row() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE test_rows_written SET n = n + 1; RETURN NULL; END $$`.execute(t.db);
  for (const name of tables)
    await sql`CREATE TRIGGER test_count_row AFTER INSERT OR DELETE ON ${sql.table(name)} FOR EACH ROW EXECUTE FUNCTION test_count_row()`.execute(
      t.db,
    );
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
  authorization:
    path.startsWith('/subscriber') || path.includes('/credit-notes')
      ? (headers as any).subscriberAuth
      : path.startsWith('/api/v1/admin/')
        ? (headers as any).platformAdminAuth
        : (headers as any).dashboardAuth,
});

describe('bad input never breaks the service', () => {
  it('every operation survives mutated bodies, params and queries with a 4xx in its surface shape and no write', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(3);
    for (const { method, path, op } of ops) {
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const queryParams = (op.parameters ?? []).filter((p: any) => p.in === 'query');
      await fc.assert(
        fc.asyncProperty(
          mutatedBody(bodySchema),
          fc.oneof(fc.uuid(), fc.constantFrom(...INJECTIONS), fc.string({ maxLength: 20 })),
          weird,
          async (body, idValue, queryValue) => {
            const url = fillPath(path, idValue);
            const query = queryParams.length
              ? `?${queryParams.map((p: any) => `${p.name}=${encodeURIComponent(String(queryValue))}`).join('&')}`
              : '';
            const before = method === 'GET' ? '' : await rowCounts();
            const r = await t.app.inject({
              method: method as any,
              url: url + query,
              headers: { ...headers, ...authFor(path), 'content-type': 'application/json' },
              ...(method === 'GET' || method === 'DELETE' ? {} : { payload: JSON.stringify(body) }),
            });
            assertShape(path, r.statusCode, r.body, String(r.headers['content-type'] ?? ''));
            if (method !== 'GET' && r.statusCode >= 400)
              expect(await rowCounts(), `${method} ${path} wrote despite ${r.statusCode}`).toBe(before);
          },
        ),
        { numRuns: 12, seed: 20261122 },
      );
    }
  }, 300_000);

  it('a string holding U+0000 or a lone surrogate in any body field, query parameter or path parameter is the surface validation error naming the field, never a 500, and writes nothing', async () => {
    let checked = 0;
    for (const { method, path, op } of operations()) {
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const targets: Target[] = [
        ...stringFields(bodySchema).map((at): Target => ({ part: 'body', at })),
        ...(op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any): Target => ({ part: 'query', at: [p.name] })),
        ...(op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any): Target => ({ part: 'path', at: [p.name] })),
      ];
      if (targets.length === 0) continue;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...targets),
          fc.string({ maxLength: 8 }),
          fc.constantFrom(...UNSTORABLE),
          fc.string({ maxLength: 8 }),
          async (target, before, bad, after) => {
            // A query or path carries bytes: U+0000 travels as %00; a lone surrogate has no UTF-8 form,
            // so it can only arrive inside JSON (as \\ud800).
            if (target.part !== 'body' && bad !== '\u0000') return;
            const value = before + bad + after;
            const params = Object.fromEntries(
              (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => [p.name, validParam(p.schema)]),
            );
            // The customer must be the API key's (checked before validation): a real one reaches validation.
            if ('customerId' in params) params.customerId = customerId;
            if (target.part === 'path') params[target.at[0]!] = value;
            const url = path.replace(/\{([^}]+)\}/g, (_m, name) => encodeURIComponent(String(params[name])));
            const query = target.part === 'query' ? `?${target.at[0]}=${encodeURIComponent(value)}` : '';
            const body = exampleFor(bodySchema);
            if (target.part === 'body') setAt(body, target.at, value);
            const rowsBefore = method === 'GET' ? '' : await rowCounts();
            const send = (authorization: string) =>
              t.app.inject({
                method: method as any,
                url: url + query,
                headers: { ...headers, authorization, ...(bodySchema ? { 'content-type': 'application/json' } : {}) },
                ...(bodySchema ? { payload: JSON.stringify(body) } : {}),
              });
            let r = await send(authFor(path).authorization);
            // The role is checked before validation: a route for the other kind of account gets its token.
            if (r.statusCode === 403)
              r = await send(
                authFor(path).authorization === (headers as any).subscriberAuth
                  ? (headers as any).dashboardAuth
                  : (headers as any).subscriberAuth,
              );
            const field = target.at.join('.');
            const where = `${method} ${path} ${target.part} ${field}`;
            if (path.startsWith('/agent') && target.part === 'path' && target.at[0] === 'customerId') {
              // A malformed customer id answers like any unknown one (agent-surface.md), before validation.
              expect(r.statusCode, `${where}: ${r.body.slice(0, 300)}`).toBe(404);
              expect(r.json().error.code).toBe('customer_not_found');
            } else if (path.startsWith('/agent')) {
              expect(r.statusCode, `${where}: ${r.body.slice(0, 300)}`).toBe(400);
              expect(r.json().error.code).toBe('validation_error');
              expect(
                r.json().error.details.map((d: any) => d.field),
                where,
              ).toContain(target.part === 'body' ? field : target.at[0]);
            } else {
              expect(r.statusCode, `${where}: ${r.body.slice(0, 300)}`).toBe(422);
              expect(r.json().detail, where).toMatch(
                new RegExp(`^${(target.part === 'body' ? field : target.at[0])!.replaceAll('.', '\\.')}: `),
              );
            }
            if (method !== 'GET') expect(await rowCounts(), `${where} wrote`).toBe(rowsBefore);
            checked++;
          },
        ),
        { numRuns: Math.max(4, targets.length * 3), seed: 20261125 },
      );
    }
    expect(checked).toBeGreaterThan(50);
  }, 300_000);

  it('a U+0000 in the path or query of every registered route, pages and mirrors included, is a 4xx, never a 500', async () => {
    for (const { method, url } of t.app.routeTable) {
      if (!url.includes(':') && method !== 'GET') continue;
      const path = url.replace(/:[A-Za-z_]+/g, 'ab%00cd').replace(/\*$/, 'x');
      const r = await t.app.inject({
        method: method as any,
        url: `${path}?q=%00&token=%00&session=%00&email=a%00b`,
        headers: { ...headers, authorization: (headers as any).dashboardAuth },
      });
      expect(r.statusCode, `${method} ${url}: ${r.body.slice(0, 200)}`).toBeLessThan(500);
    }
  }, 120_000);

  it('malformed JSON, wrong content types, oversized and deeply nested bodies are 4xx on every writing operation', async () => {
    for (const { method, path, op } of operations().filter((o) => !['GET', 'DELETE'].includes(o.method))) {
      const url = fillPath(path, '00000000-0000-4000-8000-000000000000');
      const cases = [
        { 'content-type': 'application/json', payload: '{"a":' },
        { 'content-type': 'application/json', payload: JSON.stringify({ big: 'x'.repeat(1_100_000) }) },
        // An operation that takes no body ignores one; one that takes JSON refuses other types, and a body
        // nested 200,000 deep (400 kB) that no check may walk by recursion into a stack overflow (a 500).
        ...(op.requestBody
          ? [
              { 'content-type': 'text/plain', payload: 'hello' },
              { 'content-type': 'application/json', payload: `{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}` },
            ]
          : []),
      ];
      for (const c of cases) {
        const r = await t.app.inject({
          method: method as any,
          url,
          headers: { ...headers, ...authFor(path), 'content-type': c['content-type'] },
          payload: c.payload,
        });
        assertShape(path, r.statusCode, r.body, String(r.headers['content-type'] ?? ''));
        expect(r.statusCode, `${method} ${path} with ${c['content-type']}`).toBeGreaterThanOrEqual(400);
      }
    }
  }, 120_000);
});
