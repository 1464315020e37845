// The customer search on the embedded database (issue 30 §2). PGlite runs every statement in the
// server's own thread on one connection: a search there must hold it only briefly, so the rest of
// the server (here /healthz) answers while searches run, and the demo's disambiguation searches
// must answer complete under the default bound.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemo, type DemoDocument } from '../../src/demo/seed.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import pino from 'pino';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';

let t: TestApp;
let doc: DemoDocument;
let url: string;
beforeAll(async () => {
  // SEARCH_TIMEOUT_MS unset: the server's own default bound (buildTestApp raises it for other files).
  t = await buildTestApp({ env: { SEARCH_TIMEOUT_MS: '' } });
  doc = (await loadDemo({ db: t.db, clock: t.clock, config: t.config })).document;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

const search = async (q: string) => {
  const r = await fetch(`${url}/agent/customers/search?q=${encodeURIComponent(q)}`, {
    headers: { 'x-api-key': doc.providers.main.api_key },
  });
  return (await r.json()) as { ambiguous: boolean; match_count: number; incomplete: boolean; matches: { customer_id: string }[] };
};

describe('the search on the embedded database', () => {
  it('the default bound: 2 s on the embedded database, 80 ms on PostgreSQL', () => {
    expect(t.config.SEARCH_TIMEOUT_MS).toBe(t.config.DATABASE_URL ? 80 : 2000);
  });

  it("the demo's disambiguation searches answer complete under the default bound: the name is ambiguous, name and unit unique", async () => {
    const [a, b] = doc.customers.ambiguous;
    const both = await search(a.name);
    expect(both).toMatchObject({ ambiguous: true, match_count: 2, incomplete: false });
    expect(both.matches.map((m) => m.customer_id).sort()).toEqual([a.id, b.id].sort());
    for (const c of [a, b]) {
      const one = await search(`${c.name} ${c.unit_label}`);
      expect(one).toMatchObject({ ambiguous: false, match_count: 1, incomplete: false });
      expect(one.matches[0]!.customer_id).toBe(c.id);
    }
  });

  it('/healthz answers while parallel multi-statement searches run: a search holds the thread one statement at a time', async () => {
    const order: string[] = [];
    const searches = Array.from({ length: 5 }, (_, i) => search('H Brandt').then(() => order.push(`search ${i}`)));
    // Once the searches are under way (the timer itself waits for the thread).
    await new Promise((r) => setTimeout(r, 30));
    const health = fetch(`${url}/healthz`).then(async (r) => {
      expect(r.status).toBe(200);
      order.push('healthz');
    });
    await Promise.all([...searches, health]);
    expect(order.indexOf('healthz'), order.join(', ')).toBeLessThan(order.length - 1);
  });

  it('a search stops between statements at its bound: with 1 ms, a multi-statement search answers incomplete', async () => {
    const bounded = createSubscriberSearchService({
      db: t.db,
      dbHandle: t.testDb.handle,
      config: { ...t.config, SEARCH_TIMEOUT_MS: 1 },
      log: pino({ level: 'silent' }),
    });
    const r = await bounded.search(doc.providers.main.id, 'H Brandt', 25, Date.now() - 5);
    expect(r).toEqual({ ambiguous: false, match_count: 0, match_count_capped: false, incomplete: true, matches: [] });
  });
});
