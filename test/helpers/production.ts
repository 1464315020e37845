import { randomBytes } from 'node:crypto';

/**
 * A complete production environment that src/config.ts accepts (productionRefusals: nothing refused),
 * for tests that load a production configuration or build a production-mode app; a test overrides
 * what it is about. DATABASE_URL is the run's PostgreSQL when there is one; on the embedded database a
 * test app is handed its database (buildTestApp), so the URL is only what the configuration reads.
 */
export function productionEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://netsvc@db.invalid:5432/netsvc',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SMTP_URL: 'smtp://mail.invalid:587',
    PUBLIC_BASE_URL: 'https://api.example.test',
    RATE_LIMIT_ENABLED: 'true',
    // The switch controller and billing system are required in production (never simulated). These
    // hosts do not resolve: a call fails as unreachable. A test that calls them starts a simulator
    // server and points these at it with TEST_ALLOW_LOOPBACK (test/adapters/production-posture.test.ts).
    SWITCH_URL: 'https://switch.invalid/v1',
    SWITCH_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    BILLING_URL: 'https://billing.invalid/v1',
    BILLING_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    SECRETS_KEY: randomBytes(48).toString('base64url'),
    ...overrides,
  };
}
