// At most SEARCH_CONCURRENCY searches of one process run statements at once (one on the embedded
// database, whatever it says); the others wait their turn and still answer. Counted at the query
// builder: a statement is in flight from the moment it is compiled (before it waits for a
// connection) until its result is back.
import type { KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { createProvider, createSubscriber } from '../helpers/factories.js';

let t: TestApp;
let providerId: string;
beforeAll(async () => {
  t = await buildTestApp();
  providerId = (await createProvider(t.db)).id;
  for (let i = 0; i < 3; i++) await createSubscriber(t.db, providerId, { firstName: 'Wilma', lastName: 'Turnfeld' });
});
afterAll(() => t.close());

/** Runs `n` searches at once through a service allowed `concurrency`; the most statements in flight at once. */
async function mostAtOnce(concurrency: number, n: number) {
  let now = 0;
  let most = 0;
  const counting: KyselyPlugin = {
    transformQuery(args) {
      most = Math.max(most, ++now);
      return args.node;
    },
    async transformResult(args) {
      now--;
      return args.result;
    },
  };
  const service = createSubscriberSearchService({
    db: t.db.withPlugin(counting),
    dbHandle: t.testDb.handle,
    config: { ...t.config, SEARCH_CONCURRENCY: concurrency },
    log: pino({ level: 'silent' }),
  });
  const answers = await Promise.all(Array.from({ length: n }, () => service.search(providerId, 'Wilma Turnfeld', 10)));
  for (const a of answers) expect(a).toMatchObject({ match_count: 3, incomplete: false });
  return most;
}

describe('searches in turn', () => {
  it('a search whose time bound passed while it waited answers incomplete at once, without a statement', async () => {
    let statements = 0;
    const service = createSubscriberSearchService({
      db: t.db.withPlugin({
        transformQuery: (args) => (statements++, args.node),
        transformResult: async (args) => args.result,
      }),
      dbHandle: t.testDb.handle,
      config: t.config,
      log: pino({ level: 'silent' }),
    });
    const late = await service.search(providerId, 'Wilma Turnfeld', 10, Date.now() - t.config.SEARCH_TIMEOUT_MS - 1);
    expect(late).toEqual({ ambiguous: false, match_count: 0, match_count_capped: false, incomplete: true, matches: [] });
    expect(statements).toBe(0);
  });

  it('a search that fails frees its turn: the next one answers', async () => {
    let failOnce = true;
    const service = createSubscriberSearchService({
      db: t.db.withPlugin({
        transformQuery(args) {
          if (failOnce) {
            failOnce = false;
            throw new Error('the database went away');
          }
          return args.node;
        },
        transformResult: async (args) => args.result,
      }),
      dbHandle: t.testDb.handle,
      config: { ...t.config, SEARCH_CONCURRENCY: 1 },
      log: pino({ level: 'silent' }),
    });
    const [first, second] = await Promise.allSettled([
      service.search(providerId, 'Wilma Turnfeld', 10),
      service.search(providerId, 'Wilma Turnfeld', 10),
    ]);
    expect(first.status).toBe('rejected');
    expect(second).toMatchObject({ status: 'fulfilled', value: { match_count: 3, incomplete: false } });
  });

  it('runs at most SEARCH_CONCURRENCY searches at once, and every search answers', async () => {
    expect(await mostAtOnce(2, 8)).toBe(usingPostgres() ? 2 : 1);
  });

  it.runIf(usingPostgres())('without the bound, the same searches run all at once (what the count would show)', async () => {
    expect(await mostAtOnce(8, 8)).toBe(8);
  });

  it.runIf(!usingPostgres())('on the embedded database, one at a time whatever the setting', async () => {
    expect(await mostAtOnce(8, 8)).toBe(1);
  });
});
