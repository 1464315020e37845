import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { FAULT_SPEC_RE } from './adapters/fault-spec.js';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const MIN_SECRET_BYTES = 32;

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  EMBEDDED_DB_DIR: z.string().min(1).default('var/db'),
  JWT_SECRET: z
    .string()
    .refine((v) => Buffer.byteLength(v, 'utf8') >= MIN_SECRET_BYTES, 'must be at least 32 bytes')
    .optional(),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Support <support@netsvc.local>'),
  MAIL_OUTBOX_DIR: z.string().min(1).default('var/outbox'),
  JOBS_ENABLED: bool.default(true),
  JOBS_POLL_MS: z.coerce.number().int().min(10).max(60000).default(500),
  JOBS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  JOBS_LEASE_SECONDS: z.coerce.number().int().min(5).default(60),
  SCHEDULER_ENABLED: bool.default(true),
  RETENTION_DAYS: z.coerce.number().int().min(0).default(30),
  RATE_LIMIT_ENABLED: bool.default(true),
  RATE_LIMIT_STORE: z.enum(['memory', 'postgres', 'redis']).default('memory'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default('netsvc:rate-limit:'),
  TRUST_PROXY: bool.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  WEBHOOK_UNRESPONSIVE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  SEARCH_TIMEOUT_MS: z.coerce.number().int().min(1).max(60000).optional(),
  SANDBOX: bool.default(false),
  BENCH_ROUTES: bool.default(false),
  SIMULATOR_FAULTS: z.string().regex(FAULT_SPEC_RE, 'expected e.g. "switch=slow:3000,billing=unreachable"').optional(),
  DEMO_SEED: bool.default(true),
  DEMO_WEBHOOK_URL: z.url().optional(),
  DEMO_EXTERNAL_CHECKOUT_URL: z.url().optional(),
  // GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>` when set; in production it is required.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
});

export type Config = Omit<z.infer<typeof schema>, 'SEARCH_TIMEOUT_MS'> & {
  /** The agent search's time bound: 80 ms on PostgreSQL, 2 s on the embedded database, unless set. */
  SEARCH_TIMEOUT_MS: number;
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
  // The sandbox page completes checkouts without a payment: never on a production server.
  if (c.NODE_ENV === 'production' && c.SANDBOX) {
    throw new ConfigError('invalid configuration: SANDBOX: must not be true when NODE_ENV=production');
  }
  if (c.RATE_LIMIT_STORE === 'redis' && !c.REDIS_URL) {
    throw new ConfigError('invalid configuration: REDIS_URL: required when RATE_LIMIT_STORE=redis (e.g. redis://127.0.0.1:6379)');
  }
  let jwtSecret = c.JWT_SECRET;
  return {
    ...c,
    publicBaseUrl: (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/$/, ''),
    // The 80 ms bound protects a shared PostgreSQL at a million customers. The embedded database
    // cannot interrupt a statement (the bound is only checked between them) and runs a few
    // statements a search at a fraction of the speed, so there 80 ms cut off whole passes: a demo
    // search for "Berlin" or a name with a street answered nothing.
    SEARCH_TIMEOUT_MS: c.SEARCH_TIMEOUT_MS ?? (c.DATABASE_URL ? 80 : 2000),
    // Resolved on first use (the server reads it at start, see loadConfigOrExit), so tools that sign
    // nothing (migrate, provider:webhook, seed:demo) run on DATABASE_URL without a key.
    get jwtSecret() {
      jwtSecret ??= missingJwtSecret(c);
      return jwtSecret;
    },
  };
}

function missingJwtSecret(c: { DATABASE_URL?: string; EMBEDDED_DB_DIR: string }): string {
  if (c.DATABASE_URL) {
    throw new ConfigError(
      'invalid configuration: JWT_SECRET: required with DATABASE_URL (at least 32 random bytes, e.g. openssl rand -base64 48)',
    );
  }
  return embeddedJwtSecret(c.EMBEDDED_DB_DIR);
}

/**
 * The embedded demo database only: one random secret, generated on first use and kept next to the
 * database folder (var/jwt-secret by default, owner-only), so tokens survive a restart. Never derived
 * from anything an attacker can learn (a pid, a start time): a guessable key forges any account.
 */
function embeddedJwtSecret(dbDir: string): string {
  const fresh = () => randomBytes(MIN_SECRET_BYTES).toString('base64url');
  // A throwaway database gets a throwaway secret.
  if (dbDir.startsWith('memory://')) return fresh();
  const file = path.join(path.dirname(path.resolve(dbDir)), 'jwt-secret');
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: two processes starting at once cannot both win, and
  // neither reads a half-written file; the loser reads the winner's secret.
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, fresh(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
  chmodSync(file, 0o600);
  const secret = readFileSync(file, 'utf8').trim();
  if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) {
    throw new ConfigError(`invalid configuration: JWT_SECRET: ${file} holds fewer than 32 bytes (delete it to generate a new one)`);
  }
  return secret;
}

export class ConfigError extends Error {}
