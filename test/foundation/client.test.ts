// The typed client in clients/ts is generated from the committed OpenAPI files; it must not drift
// from them, and it must talk to the real routes.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';
import { CLIENT_FILES, renderClientTypes } from '../../scripts/generate-client.js';
import { createAgentClient, createPartnerClient } from '../../clients/ts/src/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** fetch served by the app in-process (no socket), as openapi-fetch calls it. */
const viaApp = async (request: Request): Promise<Response> => {
  const url = new URL(request.url);
  const body = request.body ? await request.text() : undefined;
  const r = await t.app.inject({
    method: request.method as 'GET',
    url: url.pathname + url.search,
    headers: Object.fromEntries(request.headers),
    payload: body,
  });
  return new Response(r.rawPayload.length ? r.rawPayload : null, { status: r.statusCode, headers: r.headers as Record<string, string> });
};

describe('clients/ts', () => {
  it.each(Object.keys(CLIENT_FILES) as (keyof typeof CLIENT_FILES)[])(
    'src/%s.ts is a fresh generation from openapi/*.json (else run `npm run client`)',
    async (name) => {
      const fresh = await renderClientTypes();
      expect(
        readFileSync(CLIENT_FILES[name], 'utf8') === fresh[name],
        `${CLIENT_FILES[name]} is stale: run \`npm run client\` and commit it`,
      ).toBe(true);
    },
  );

  it('the agent client sends X-API-Key and answers the typed envelope on an error', async () => {
    const p = await createProvider(t.db);
    const agent = createAgentClient({ baseUrl: 'http://api.test', apiKey: p.apiKey, fetch: viaApp });
    const ok = await agent.GET('/agent/customers/search', { params: { query: { q: 'nobody here at all' } } });
    expect(ok.response.status).toBe(200);
    expect(ok.data).toMatchObject({ ambiguous: false, match_count: 0, matches: [] });
    const refused = await createAgentClient({ baseUrl: 'http://api.test', apiKey: 'wrong', fetch: viaApp }).GET('/agent/customers/search', {
      params: { query: { q: 'ab' } },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('the partner client sends the credential it was made with', async () => {
    const p = await createProvider(t.db);
    const partner = createPartnerClient({ baseUrl: 'http://api.test', apiKey: p.apiKey, fetch: viaApp });
    const r = await partner.GET('/provisioning/jobs/{job_id}', { params: { path: { job_id: '3f1c9a52-5c1e-4a57-9b1e-7d2f0c8e4b11' } } });
    expect(r.response.status).toBe(404);
    const anonymous = await createPartnerClient({ baseUrl: 'http://api.test', fetch: viaApp }).GET('/provisioning/jobs/{job_id}', {
      params: { path: { job_id: '3f1c9a52-5c1e-4a57-9b1e-7d2f0c8e4b11' } },
    });
    expect(anonymous.response.status).toBe(401);
  });
});
