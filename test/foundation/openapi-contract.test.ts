// The OpenAPI documents say what the server enforces. Walks the app's route table (every route,
// whoever adds it) and holds each route's credential hooks and rate limit against its OpenAPI
// operation, then calls each documented route without credentials and checks the answer is one the
// operation documents and agrees with its `security`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteOptions } from 'fastify';
import { agentSpec, partnerSpec } from '../../src/plugins/docs.js';
import { perMinuteOf, routeCredentials, securityOf } from '../../src/plugins/route-contract.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

type Op = { security?: Record<string, string[]>[]; responses: Record<string, unknown> };
type Spec = {
  paths: Record<string, Record<string, Op>>;
  servers?: { url: string }[];
  components: { securitySchemes: Record<string, unknown> };
};

let t: TestApp;
let docs: { agent: Spec; partner: Spec };
beforeAll(async () => {
  t = await buildTestApp();
  await t.app.ready();
  docs = { agent: agentSpec(t.app) as Spec, partner: partnerSpec(t.app) as Spec };
});
afterAll(() => t.close());

const isHidden = (o: RouteOptions) => Boolean(o.schema?.hide);
const openapiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');
const docOf = (url: string) => (url === '/agent' || url.startsWith('/agent/') ? docs.agent : docs.partner);

/** Every route the documents list: one per method and path (the /api/v1 mirror copies are hidden). */
function documentedRoutes() {
  const seen = new Map<string, { method: string; url: string; options: RouteOptions }>();
  for (const r of t.app.routeTable) if (!isHidden(r.options)) seen.set(`${r.method} ${r.url}`, r);
  return [...seen.values()].map((r) => ({
    ...r,
    label: `${r.method} ${r.url}`,
    op: docOf(r.url).paths[openapiPath(r.url)]?.[r.method.toLowerCase()],
  }));
}

describe("every route's OpenAPI operation states what its hooks and limits enforce", () => {
  it('every route is documented, or hidden on purpose (the landing page, the docs pages, the sandbox pages, the MCP endpoint, health and metrics, the CORS preflight of the session status, the plan-change aliases, and the /api/v1 mirror)', () => {
    const hidden = t.app.routeTable.filter((r) => isHidden(r.options)).map((r) => r.url);
    const unexplained = hidden.filter(
      (u) =>
        u !== '/' &&
        !u.startsWith('/api/v1/') &&
        !/^\/((agent\/)?(docs|openapi\.json)|agent\/mcp$|sandbox\/|healthz$|readyz$|metrics$|subscriptions\/:id\/change-plan(\/preview)?$|external-checkout\/sessions\/:session_id\/status\*$)/.test(
          u,
        ),
    );
    expect(unexplained).toEqual([]);
    expect(
      documentedRoutes()
        .filter((r) => !r.op)
        .map((r) => r.label),
    ).toEqual([]);
  });

  it("security is exactly the credentials the route's hooks check (none: `security: []`), with their 401/403 documented", () => {
    const wrong: string[] = [];
    for (const r of documentedRoutes()) {
      const credentials = routeCredentials(r.options);
      const expected = securityOf(credentials);
      if (JSON.stringify(r.op!.security) !== JSON.stringify(expected))
        wrong.push(`${r.label}: security ${JSON.stringify(r.op!.security)}, hooks check ${JSON.stringify(expected)}`);
      for (const c of credentials) {
        for (const status of Object.keys(c.statuses))
          if (!r.op!.responses[status]) wrong.push(`${r.label}: ${c.scheme} answers ${status}, undocumented`);
      }
      const schemes = docOf(r.url).components.securitySchemes;
      for (const name of (r.op!.security ?? []).flatMap((req) => Object.keys(req)))
        if (!schemes[name]) wrong.push(`${r.label}: no security scheme ${name}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a rate-limited route documents 429 with its limit per minute', () => {
    const wrong: string[] = [];
    let limited = 0;
    for (const r of documentedRoutes()) {
      const perMinute = perMinuteOf(r.options.config);
      if (perMinute === null) continue;
      limited++;
      if (!r.op!.responses['429']) wrong.push(`${r.label}: limited to ${perMinute}/min, 429 undocumented`);
    }
    expect(wrong).toEqual([]);
    expect(limited).toBeGreaterThan(40);
  });

  it('the /api/v1 mirror checks the same credentials and limits as the base route it copies', () => {
    const base = new Map(t.app.routeTable.filter((r) => !r.url.startsWith('/api/v1/')).map((r) => [`${r.method} ${r.url}`, r.options]));
    let mirrored = 0;
    for (const r of t.app.routeTable.filter((x) => x.url.startsWith('/api/v1/') && isHidden(x.options))) {
      const twin = base.get(`${r.method} ${r.url.slice('/api/v1'.length)}`);
      expect(twin, `${r.method} ${r.url} mirrors no base route`).toBeDefined();
      expect(securityOf(routeCredentials(r.options)), r.url).toEqual(securityOf(routeCredentials(twin!)));
      expect(perMinuteOf(r.options.config), r.url).toBe(perMinuteOf(twin!.config));
      mirrored++;
    }
    expect(mirrored).toBeGreaterThan(20);
  });

  it('servers: the partner base and /api/v1 (internal-only paths from the base alone); the agent document its base; absolute (PUBLIC_BASE_URL)', () => {
    const base = t.config.publicBaseUrl.replace(/\/+$/, '');
    expect(docs.partner.servers?.map((s) => s.url)).toEqual([base, `${base}/api/v1`]);
    expect(docs.agent.servers?.map((s) => s.url)).toEqual([base]);
    const internal = Object.entries(docs.partner.paths).filter(([p]) => p.startsWith('/api/v1/'));
    expect(internal.length).toBeGreaterThan(0);
    for (const [p, item] of internal) {
      for (const op of Object.values(item))
        expect(
          (op as { servers?: { url: string }[] }).servers?.map((s) => s.url),
          p,
        ).toEqual([base]);
    }
  });
});

describe('calling every documented route without credentials', () => {
  it('answers a documented status: 401/403 where security demands a credential, never 401/403 where it demands none', async () => {
    const wrong: string[] = [];
    let probed = 0;
    for (const r of documentedRoutes()) {
      const url = r.url.replace(/:(\w+)/g, () => '7a1f0c5e-3b2d-4c8e-9f6a-1d2e3f4a5b6c');
      const body = ['POST', 'PUT', 'PATCH'].includes(r.method) ? { payload: {} } : {};
      const res = await t.app.inject({ method: r.method as never, url, ...body });
      probed++;
      const status = res.statusCode;
      if (status >= 500) wrong.push(`${r.label}: ${status}`);
      if (!r.op!.responses[String(status)])
        wrong.push(`${r.label}: answered ${status}, documents ${Object.keys(r.op!.responses).join(',')}`);
      const security = r.op!.security ?? [];
      const needsCredential = security.length > 0 && security.every((req) => Object.keys(req).length > 0);
      // An id checked before the credential (the checkout session's 410 or 404, as the partner document orders) may answer first.
      if (needsCredential && ![401, 403, 404, 410].includes(status))
        wrong.push(`${r.label}: needs ${JSON.stringify(security)} but answered ${status} without it`);
      if (!needsCredential && (status === 401 || (status === 403 && security.length === 0)))
        wrong.push(`${r.label}: declares no credential but answered ${status}`);
    }
    expect(wrong).toEqual([]);
    expect(probed).toBeGreaterThan(50);
  });
});
