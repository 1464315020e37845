// Every statement is prepared by its text (src/db/prepared.ts), and after five runs of one text
// PostgreSQL may keep a generic plan, planned without the words: a generic plan cannot read a word's
// LIKE prefix as an index range, and at 10M customers it read a provider's every invoice street
// (1.1 s where the custom plan took 95 ms). The search's statements are always planned for their
// words. A session that prefers generic plans stands in for PostgreSQL's own choice.
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/database.js';
import { createSubscriberSearchService } from '../../src/modules/subscribers/search.service.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { usingPostgres } from '../helpers/db.js';
import { createProvider, createSubscriber } from '../helpers/factories.js';

describe.skipIf(!usingPostgres())('search: statements planned for their words (real Postgres)', () => {
  let t: TestApp;
  let one: DbHandle;
  let providerId: string;
  beforeAll(async () => {
    t = await buildTestApp();
    providerId = (await createProvider(t.db)).id;
    await createSubscriber(t.db, providerId, { firstName: 'Wilma', lastName: 'Turnfeld' });
    // One connection, so the prepared statements and the setting below are the search's own.
    one = await createDb({ databaseUrl: t.testDb.url!, poolSize: 1 });
  });
  afterAll(async () => {
    await one?.close();
    await t.close();
  });

  it('runs no generic plan, however often one statement text runs', async () => {
    await sql`SET plan_cache_mode = force_generic_plan`.execute(one.db);
    const service = createSubscriberSearchService({ db: one.db, dbHandle: one, config: t.config, log: pino({ level: 'silent' }) });
    // A typo of the same length in one name word each: no whole name matches, so the word passes
    // answer, one statement text for all of them.
    for (const q of ['Wilmx Turnfeld', 'Wilmy Turnfeld', 'Xilma Turnfeld', 'Wxlma Turnfeld', 'Wilxa Turnfeld', 'Wilma Turnfelx']) {
      const r = await service.search(providerId, q, 10);
      expect({ q, count: r.match_count, incomplete: r.incomplete }).toEqual({ q, count: 1, incomplete: false });
    }
    const plans = await sql<{ generic: string; custom: string }>`
      SELECT coalesce(sum(generic_plans), 0) AS generic, coalesce(sum(custom_plans), 0) AS custom
      FROM pg_prepared_statements WHERE statement ILIKE '%subscribers%' AND statement NOT ILIKE '%pg_prepared_statements%'`.execute(one.db);
    expect(Number(plans.rows[0]!.custom)).toBeGreaterThan(0);
    expect(Number(plans.rows[0]!.generic)).toBe(0);
  });
});
