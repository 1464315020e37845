import { z } from 'zod';
import { FAULT_SPEC_RE } from './adapters/fault-spec.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  EMBEDDED_DB_DIR: z.string().min(1).default('var/db'),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Support <support@netsvc.local>'),
  MAIL_OUTBOX_DIR: z.string().min(1).default('var/outbox'),
  JOBS_ENABLED: bool.default(true),
  JOBS_POLL_MS: z.coerce.number().int().min(10).max(60000).default(500),
  JOBS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  JOBS_LEASE_SECONDS: z.coerce.number().int().min(5).default(60),
  SCHEDULER_ENABLED: bool.default(true),
  RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).default('memory'),
  TRUST_PROXY: bool.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  WEBHOOK_UNRESPONSIVE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  SEARCH_TIMEOUT_MS: z.coerce.number().int().min(1).max(60000).default(80),
  SANDBOX: bool.default(true),
  BENCH_ROUTES: bool.default(false),
  SIMULATOR_FAULTS: z.string().regex(FAULT_SPEC_RE, 'expected e.g. "switch=slow:3000,billing=unreachable"').optional(),
  DEMO_SEED: bool.default(true),
  DEMO_WEBHOOK_URL: z.url().optional(),
  DEMO_EXTERNAL_CHECKOUT_URL: z.url().optional(),
});

export type Config = z.infer<typeof schema> & {
  /** Where links in mails and checkout URLs point; derived from HOST/PORT when unset. */
  publicBaseUrl: string;
  jwtSecret: string;
};

/** Parses the environment once. Throws ConfigError with one readable line per problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings in .env files mean "unset".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const c = parsed.data;
  if (c.NODE_ENV === 'production' && !c.JWT_SECRET) {
    throw new ConfigError('invalid configuration: JWT_SECRET: required when NODE_ENV=production');
  }
  return {
    ...c,
    publicBaseUrl: (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/$/, ''),
    // Development without a secret still works, but tokens die with the process.
    jwtSecret: c.JWT_SECRET ?? `dev-only-${process.pid}-${Date.now()}-not-for-production-use`,
  };
}

export class ConfigError extends Error {}
