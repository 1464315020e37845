// Issue 30 §4: a production start refuses a demo-grade configuration, every refused setting at once,
// one line each saying what to set; and a database loaded with the demo dataset, after connecting and
// before listening (docs/security.md lists every refusal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { estimatedBits } from '../../src/lib/secret-strength.js';
import { databaseRefusals, startServer } from '../../src/server.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { productionEnv } from '../helpers/production.js';

/** The refusal lines of an environment (each "invalid configuration: <VARIABLE>: ..."), [] when it loads. */
function refusals(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message.split('\n');
  }
}
const variableOf = (line: string) => /^invalid configuration: ([A-Z_]+): /.exec(line)?.[1];

describe('production refuses a demo-grade configuration', () => {
  it('the shared valid production environment loads', () => {
    expect(refusals(productionEnv())).toEqual([]);
    expect(refusals(productionEnv({ METRICS_TOKEN: 'f3c1a9e07b2d4c58a6e1f09d7c3b2a41' }))).toEqual([]);
  });

  it('what npm start takes with only NODE_ENV=production is refused with every line at once, each naming its variable and what to set', () => {
    const lines = refusals({
      NODE_ENV: 'production',
      JWT_SECRET: 'x'.repeat(40),
      METRICS_TOKEN: 'aaaaaaaaaaaaaaaaaaaa',
      PUBLIC_BASE_URL: 'http://api.example.com',
      RATE_LIMIT_ENABLED: 'false',
      BENCH_ROUTES: 'true',
      TRUST_PROXY: 'true',
      SANDBOX: 'true',
    });
    expect(lines.map(variableOf)).toEqual([
      'DATABASE_URL',
      'SMTP_URL',
      'PUBLIC_BASE_URL',
      'RATE_LIMIT_ENABLED',
      'BENCH_ROUTES',
      'JWT_SECRET',
      'METRICS_TOKEN',
      'SANDBOX',
      'TRUST_PROXY',
      'SWITCH_URL',
      'SWITCH_SECRET',
      'BILLING_URL',
      'BILLING_SECRET',
      'SECRETS_KEY',
    ]);
    expect(lines).toEqual([
      expect.stringMatching(/^invalid configuration: DATABASE_URL: required when NODE_ENV=production .*; set postgres:\/\//),
      expect.stringMatching(
        /^invalid configuration: SMTP_URL: required when NODE_ENV=production \(without it codes and reset links are written to var\/outbox\); set smtp:\/\//,
      ),
      expect.stringMatching(
        /^invalid configuration: PUBLIC_BASE_URL: must be an https:\/\/ URL when NODE_ENV=production .*; set e\.g\. https:\/\//,
      ),
      'invalid configuration: RATE_LIMIT_ENABLED: must not be false when NODE_ENV=production; unset it or set true',
      'invalid configuration: BENCH_ROUTES: must not be true when NODE_ENV=production (benchmark-only routes); unset it',
      expect.stringMatching(
        /^invalid configuration: JWT_SECRET: too weak when NODE_ENV=production \(.*\); set e\.g\. \$\(openssl rand -base64 48\)$/,
      ),
      expect.stringMatching(
        /^invalid configuration: METRICS_TOKEN: too weak when NODE_ENV=production \(.*\); set e\.g\. \$\(openssl rand -hex 24\)/,
      ),
      'invalid configuration: SANDBOX: must not be true when NODE_ENV=production',
      expect.stringMatching(/^invalid configuration: TRUST_PROXY: true would believe/),
      expect.stringMatching(/^invalid configuration: SWITCH_URL: required when NODE_ENV=production \(no switch controller simulator runs/),
      expect.stringMatching(/^invalid configuration: SWITCH_SECRET: required when NODE_ENV=production/),
      expect.stringMatching(/^invalid configuration: BILLING_URL: required when NODE_ENV=production \(no billing system simulator runs/),
      expect.stringMatching(/^invalid configuration: BILLING_SECRET: required when NODE_ENV=production/),
      expect.stringMatching(
        /^invalid configuration: SECRETS_KEY: required when NODE_ENV=production .*; set \$\(openssl rand -base64 48\)$/,
      ),
    ]);
  });

  it.each([
    [{ DATABASE_URL: '' }, 'DATABASE_URL'],
    [{ SMTP_URL: '' }, 'SMTP_URL'],
    [{ PUBLIC_BASE_URL: '' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'http://api.example.com' }, 'PUBLIC_BASE_URL'],
    [{ RATE_LIMIT_ENABLED: 'false' }, 'RATE_LIMIT_ENABLED'],
    [{ RATE_LIMIT_ENABLED: '0' }, 'RATE_LIMIT_ENABLED'],
    [{ BENCH_ROUTES: 'true' }, 'BENCH_ROUTES'],
    [{ JWT_SECRET: '' }, 'JWT_SECRET'],
    [{ JWT_SECRET: 's'.repeat(64) }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'ab'.repeat(32) }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'changeme-changeme-changeme-changeme' }, 'JWT_SECRET'],
    [{ METRICS_TOKEN: 'm'.repeat(32) }, 'METRICS_TOKEN'],
    [{ METRICS_TOKEN: 'secretsecretsecret' }, 'METRICS_TOKEN'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ SECRETS_KEY: '' }, 'SECRETS_KEY'],
    [{ SECRETS_KEY: 'k'.repeat(48) }, 'SECRETS_KEY'],
    [{ CARD_PROCESSOR: 'simulator' }, 'CARD_PROCESSOR'],
    [{ STRIPE_SECRET_KEY: 'sk_live_abcdefgh12345678', STRIPE_PUBLISHABLE_KEY: 'pk_live_abcdefgh12345678' }, 'STRIPE_WEBHOOK_SECRET'],
    [{ STRIPE_API_URL: 'http://stripe.internal' }, 'STRIPE_API_URL'],
    [{ TWILIO_API_URL: 'http://twilio.internal' }, 'TWILIO_API_URL'],
  ])('%o alone: exactly one line, naming %s', (override, variable) => {
    const lines = refusals(productionEnv(override));
    expect(lines.map(variableOf)).toEqual([variable]);
  });

  it('outside production the same settings load (the demo runs on them)', () => {
    expect(
      refusals({
        NODE_ENV: 'development',
        RATE_LIMIT_ENABLED: 'false',
        BENCH_ROUTES: 'true',
        JWT_SECRET: 'x'.repeat(40),
        TRUST_PROXY: 'true',
      }),
    ).toEqual([]);
  });

  it('the weakness measure: length times the entropy of the character frequencies, in bits', () => {
    expect(estimatedBits('x'.repeat(64))).toBe(0);
    expect(estimatedBits('ab'.repeat(16))).toBe(32);
    expect(estimatedBits('0123456789abcdef')).toBe(64);
    expect(estimatedBits('')).toBe(0);
  });
});

describe('production refuses a database loaded with the demo dataset', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(() => db.drop());

  it('an empty database passes; outside production nothing is checked', async () => {
    const config = loadConfig(productionEnv());
    expect(await databaseRefusals(config, db.handle.db)).toEqual([]);
  });

  it('a production start on it stops after connecting, before listening, with one line (demo_state keeps the demo secrets in clear)', async () => {
    await db.handle.db
      .insertInto('demo_state')
      .values({ id: 1, document: JSON.stringify(JSON.stringify({ note: 'as the demo loader stores it' })) })
      .execute();
    const config = loadConfig(
      productionEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', JOBS_ENABLED: 'false', SCHEDULER_ENABLED: 'false' }),
    );
    let err: unknown;
    const started = await startServer(config, { dbHandle: db.handle, migrate: false }).catch((e: unknown) => {
      err = e;
      return null;
    });
    expect(started).toBeNull();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^invalid configuration: DATABASE_URL: this database holds the demo dataset \(its keys and passwords are kept in clear in demo_state\); production needs a database that never held it[^\n]*$/,
    );
    expect(await databaseRefusals({ NODE_ENV: 'development' }, db.handle.db)).toEqual([]);
  });
});
