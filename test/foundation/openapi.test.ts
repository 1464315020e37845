import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { EXPORT_ENV, OPENAPI_FILES, renderSpecs } from '../../scripts/export-openapi.js';

let t: TestApp;
let fresh: Record<keyof typeof OPENAPI_FILES, string>;
beforeAll(async () => {
  const { EMBEDDED_DB_DIR: _dir, ...env } = EXPORT_ENV;
  t = await buildTestApp({ env });
  fresh = await renderSpecs(t.app);
});
afterAll(() => t.close());

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
type Spec = { paths: Record<string, Record<string, { operationId?: string; tags?: string[]; summary?: string; description?: string }>> };
const operations = (spec: Spec) =>
  Object.entries(spec.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ where: `${m.toUpperCase()} ${p}`, op })),
  );

describe.each(Object.keys(OPENAPI_FILES) as (keyof typeof OPENAPI_FILES)[])('openapi/%s.json', (name) => {
  it('is the committed copy of a fresh export', () => {
    const committed = readFileSync(OPENAPI_FILES[name], 'utf8');
    if (committed !== fresh[name]) {
      mkdirSync('var/test', { recursive: true });
      writeFileSync(`var/test/${name}.fresh.json`, fresh[name]);
    }
    expect(
      committed === fresh[name],
      `${OPENAPI_FILES[name]} differs from the routes (this run's export: var/test/${name}.fresh.json): run \`npm run openapi\` and commit it`,
    ).toBe(true);
  });

  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(JSON.parse(fresh[name]))).resolves.toBeTruthy();
  });

  it('gives every operation a unique operationId, tags, and a summary or description', () => {
    const ops = operations(JSON.parse(fresh[name]));
    expect(ops.length).toBeGreaterThan(0);
    const missing = ops.filter(({ op }) => !op.operationId || !op.tags?.length || !(op.summary || op.description)).map((o) => o.where);
    expect(missing).toEqual([]);
    const ids = ops.map(({ op }) => op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

describe('served documents', () => {
  it('/agent/openapi.json lists only /agent paths; /openapi.json lists none of them', async () => {
    const agent = await t.app.inject({ url: '/agent/openapi.json' });
    const partner = await t.app.inject({ url: '/openapi.json' });
    expect(agent.statusCode).toBe(200);
    expect(partner.statusCode).toBe(200);
    const agentPaths = Object.keys(agent.json().paths);
    const partnerPaths = Object.keys(partner.json().paths);
    expect(agentPaths.length).toBeGreaterThan(0);
    expect(agentPaths.filter((p) => !p.startsWith('/agent/'))).toEqual([]);
    expect(partnerPaths).toContain('/auth/login');
    expect(partnerPaths.filter((p) => p === '/agent' || p.startsWith('/agent/'))).toEqual([]);
    // The /api/v1 mirror is served but not listed twice.
    expect(partnerPaths).not.toContain('/api/v1/auth/login');
  });

  it('serves what the committed files hold', async () => {
    expect(JSON.parse(fresh.agent)).toEqual((await t.app.inject({ url: '/agent/openapi.json' })).json());
    expect(JSON.parse(fresh.partner)).toEqual((await t.app.inject({ url: '/openapi.json' })).json());
  });
});
