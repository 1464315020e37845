import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { FAULT_SPEC_RE } from './adapters/fault-spec.js';
import { estimatedBits } from './lib/secret-strength.js';
import { parseTrustProxy } from './lib/trust-proxy.js';
import { isLoopbackUrl } from './lib/outbound-url.js';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const MIN_SECRET_BYTES = 32;

const httpUrl = z
  .url({ protocol: /^https?$/ })
  .refine((v) => !new URL(v).username && !new URL(v).password, 'must not carry credentials (requests are signed)');
// A Standard Webhooks secret: optional whsec_ prefix, then base64 of at least 32 bytes.
const contractSecret = z
  .string()
  .regex(/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/, 'must be whsec_<base64> (e.g. whsec_$(openssl rand -base64 32))')
  .refine((v) => Buffer.from(v.replace(/^whsec_/, ''), 'base64').length >= MIN_SECRET_BYTES, 'must hold at least 32 random bytes');

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
  TRUST_PROXY: z.string().transform(parseTrustProxy).default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  WEBHOOK_UNRESPONSIVE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  SEARCH_TIMEOUT_MS: z.coerce.number().int().min(1).max(60000).optional(),
  SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(4),
  SANDBOX: bool.default(false),
  BENCH_ROUTES: bool.default(false),
  SIMULATOR_FAULTS: z.string().regex(FAULT_SPEC_RE, 'expected e.g. "switch=slow:3000,billing=unreachable"').optional(),
  // The switch controller and the billing system: base URLs of their published HTTP contracts
  // (openapi/adapters/*.json) and the shared signing secrets (whsec_<base64 of 32+ random bytes>).
  // Required in production; elsewhere unset means "the simulator server this process starts".
  SWITCH_URL: httpUrl.optional(),
  SWITCH_SECRET: contractSecret.optional(),
  BILLING_URL: httpUrl.optional(),
  BILLING_SECRET: contractSecret.optional(),
  // Where the simulator server listens (0: a free port); never used in production. A container sets
  // SIMULATOR_HOST=0.0.0.0 and publishes SIMULATOR_PORT so a browser on the host reaches the card
  // simulator's test form (docker-compose.yml); this process still calls it through 127.0.0.1.
  SIMULATOR_HOST: z.union([z.ipv4(), z.ipv6(), z.literal('localhost')]).default('127.0.0.1'),
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  DEMO_SEED: bool.default(true),
  // Tests only: lets a production-mode server (and the operator CLI) reach loopback addresses (the
  // simulators' servers, a webhook receiver) where production refuses them. Honoured only inside
  // the test runner (VITEST set); anywhere else it is refused (see productionRefusals).
  TEST_ALLOW_LOOPBACK: bool.default(false),
  DEMO_WEBHOOK_URL: z.url().optional(),
  DEMO_EXTERNAL_CHECKOUT_URL: z.url().optional(),
  // Browser origins (scheme://host[:port], comma-separated) allowed to call POST /agent/mcp; a request
  // with any other Origin header answers 403. Unset: none (agents' SDKs send no Origin).
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  // The platform-admin credential of /api/v1/admin (X-Admin-Token), beside a platform_admin login's
  // Bearer token; unset: only such a login. In production it must be random (at least 128 estimated bits).
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
  // GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>` when set; in production it is required.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain spaces').optional(),
  // Seals secrets kept in the database (a provider's SMS gateway token): src/lib/secret-box.ts.
  SECRETS_KEY: z
    .string()
    .refine((v) => Buffer.byteLength(v, 'utf8') >= MIN_SECRET_BYTES, 'must be at least 32 bytes')
    .optional(),
  // The card processor every provider's connection goes through: the embedded simulator (default
  // outside production, never built in production) or Stripe Connect (docs/integration/card.md).
  CARD_PROCESSOR: z.enum(['simulator', 'stripe']).optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/, 'must be a Stripe secret or restricted key (sk_live_…, rk_live_…)')
    .optional(),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .regex(/^pk_(test|live)_[A-Za-z0-9_]{8,}$/, 'must be a Stripe publishable key (pk_live_…)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_+/=]{16,}$/, 'must be a Stripe endpoint secret (whsec_…)')
    .optional(),
  // Tests and the local Stripe stand-in: where the SDK sends its requests (default https://api.stripe.com).
  STRIPE_API_URL: z.url().optional(),
  // Twilio's REST API (default https://api.twilio.com); tests point it at the local stand-in.
  TWILIO_API_URL: z.url().default('https://api.twilio.com'),
  // The card simulator's own server (its test card form posts there, as Stripe.js posts to Stripe).
  CARD_SIMULATOR_URL: z.url().optional(),
});

export type Config = Omit<z.infer<typeof schema>, 'SEARCH_TIMEOUT_MS' | 'CARD_PROCESSOR'> & {
  /** 'simulator' outside production unless set; 'stripe' in production. */
  CARD_PROCESSOR: 'simulator' | 'stripe';
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
  const refused = [...productionRefusals(c, env), ...consistencyRefusals(c)];
  if (refused.length) throw new ConfigError(refused.map((line) => `invalid configuration: ${line}`).join('\n'));
  let jwtSecret = c.JWT_SECRET;
  return {
    ...c,
    publicBaseUrl: (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/$/, ''),
    // The 80 ms bound protects a shared PostgreSQL at a million customers. The embedded database
    // cannot interrupt a statement (the bound is only checked between them) and runs a few
    // statements a search at a fraction of the speed, so there 80 ms cut off whole passes: a demo
    // search for "Berlin" or a name with a street answered nothing.
    SEARCH_TIMEOUT_MS: c.SEARCH_TIMEOUT_MS ?? (c.DATABASE_URL ? 80 : 2000),
    CARD_PROCESSOR: c.CARD_PROCESSOR ?? (c.NODE_ENV === 'production' ? 'stripe' : 'simulator'),
    // Resolved on first use (the server reads it at start, see loadConfigOrExit), so tools that sign
    // nothing (migrate, provider:webhook, seed:demo) run on DATABASE_URL without a key.
    get jwtSecret() {
      jwtSecret ??= missingJwtSecret(c);
      return jwtSecret;
    },
  };
}

type Parsed = z.infer<typeof schema>;

// Estimated bits (estimatedBits: length times the entropy of the character frequencies) a production
// secret needs: a random 32-byte key scores 170 or more, a random 16-byte hex token 90 or more.
const MIN_JWT_SECRET_BITS = 128;
const MIN_METRICS_TOKEN_BITS = 64;
const weakness = 'a repeated character or pattern; it needs random bytes';

/**
 * What a production start refuses: every demo-grade or unsafe setting, each as one line that says
 * what to set, all of them at once (docs/security.md lists them). An empty list: nothing refused.
 */
function productionRefusals(c: Parsed, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  if (c.TEST_ALLOW_LOOPBACK && !env.VITEST) out.push('TEST_ALLOW_LOOPBACK: only the test runner may set it; unset it');
  if (c.NODE_ENV !== 'production') return out;
  const when = 'when NODE_ENV=production';
  if (!c.DATABASE_URL) {
    out.push(
      `DATABASE_URL: required ${when} (the embedded database lives in a folder of this machine); set postgres://user:password@host:5432/db`,
    );
  }
  if (!c.SMTP_URL)
    out.push(`SMTP_URL: required ${when} (without it codes and reset links are written to ${c.MAIL_OUTBOX_DIR}); set smtp:// or smtps://`);
  if (!c.PUBLIC_BASE_URL?.startsWith('https://')) {
    out.push(
      `PUBLIC_BASE_URL: must be an https:// URL ${when} (links in mails and checkout URLs point there); set e.g. https://api.example.com`,
    );
  }
  if (!c.RATE_LIMIT_ENABLED) out.push(`RATE_LIMIT_ENABLED: must not be false ${when}; unset it or set true`);
  if (c.BENCH_ROUTES) out.push(`BENCH_ROUTES: must not be true ${when} (benchmark-only routes); unset it`);
  if (!c.JWT_SECRET) out.push(`JWT_SECRET: required ${when}`);
  else if (estimatedBits(c.JWT_SECRET) < MIN_JWT_SECRET_BITS)
    out.push(`JWT_SECRET: too weak ${when} (${weakness}); set e.g. $(openssl rand -base64 48)`);
  if (c.METRICS_TOKEN && estimatedBits(c.METRICS_TOKEN) < MIN_METRICS_TOKEN_BITS) {
    out.push(
      `METRICS_TOKEN: too weak ${when} (${weakness}); set e.g. $(openssl rand -hex 24), or unset it (then GET /metrics answers 404)`,
    );
  }
  if (c.ADMIN_TOKEN && estimatedBits(c.ADMIN_TOKEN) < MIN_JWT_SECRET_BITS) {
    out.push(
      `ADMIN_TOKEN: too weak ${when} (${weakness}); set e.g. $(openssl rand -base64 48), or unset it (then only a platform_admin login reaches /api/v1/admin)`,
    );
  }
  // The sandbox page completes checkouts without a payment: never on a production server.
  if (c.SANDBOX) out.push(`SANDBOX: must not be true ${when}`);
  if (c.TRUST_PROXY === true) {
    out.push(
      "TRUST_PROXY: true would believe whatever a client writes first in X-Forwarded-For; set the proxies' addresses or CIDRs (e.g. 127.0.0.1 or 10.0.0.0/8) or a hop count",
    );
  }
  out.push(...contractRefusals(c, when));
  out.push(...integrationRefusals(c, env));
  return out;
}

/**
 * The switch controller and the billing system serve every provider: production never simulates
 * them, so their contract URLs (https, not this machine) and signing secrets are required.
 */
function contractRefusals(c: Parsed, when: string): string[] {
  const out: string[] = [];
  const systems = [
    ['SWITCH', 'switch controller', c.SWITCH_URL, c.SWITCH_SECRET, 'openapi/adapters/switch.json'],
    ['BILLING', 'billing system', c.BILLING_URL, c.BILLING_SECRET, 'openapi/adapters/billing.json'],
  ] as const;
  for (const [name, system, url, secret, contract] of systems) {
    if (!url)
      out.push(
        `${name}_URL: required ${when} (no ${system} simulator runs in production); set the https base URL of the ${system}'s implementation of ${contract}`,
      );
    else if (isLoopbackUrl(new URL(url)) && !c.TEST_ALLOW_LOOPBACK)
      out.push(`${name}_URL: must not point at this machine (loopback) ${when}; set the ${system}'s https URL`);
    else if (!url.startsWith('https://') && !(c.TEST_ALLOW_LOOPBACK && isLoopbackUrl(new URL(url))))
      out.push(`${name}_URL: must be an https:// URL ${when} (requests carry subscriber and port data)`);
    if (!secret)
      out.push(
        `${name}_SECRET: required ${when} (requests to the ${system} are signed with it); set e.g. whsec_$(openssl rand -base64 32) and give it to the ${system}`,
      );
  }
  if (c.SIMULATOR_FAULTS) out.push(`SIMULATOR_FAULTS: must not be set ${when} (no simulator runs); unset it`);
  return out;
}

/** Card processor, SMS gateway and secrets at rest in production (docs/integration/card.md, sms.md). */
function integrationRefusals(c: Parsed, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const when = 'when NODE_ENV=production';
  if (!c.SECRETS_KEY) out.push(`SECRETS_KEY: required ${when} (seals SMS gateway tokens in the database); set $(openssl rand -base64 48)`);
  else if (estimatedBits(c.SECRETS_KEY) < MIN_JWT_SECRET_BITS)
    out.push(`SECRETS_KEY: too weak ${when} (${weakness}); set e.g. $(openssl rand -base64 48)`);
  if (c.CARD_PROCESSOR === 'simulator')
    out.push(`CARD_PROCESSOR: the simulator marks invoices paid without a payment; unset it ${when} (Stripe)`);
  if (c.STRIPE_SECRET_KEY && !c.STRIPE_WEBHOOK_SECRET)
    out.push(`STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY ${when} (Stripe's events move invoices); set the endpoint's whsec_…`);
  const loopbackOk = c.TEST_ALLOW_LOOPBACK && env.VITEST;
  for (const name of ['STRIPE_API_URL', 'TWILIO_API_URL'] as const) {
    const url = c[name];
    if (url && !url.startsWith('https://') && !loopbackOk) out.push(`${name}: must be an https:// URL ${when}; unset it`);
  }
  return out;
}

/** Settings that only make sense together, in any environment. */
function consistencyRefusals(c: Parsed): string[] {
  const out: string[] = [];
  if (c.RATE_LIMIT_STORE === 'redis' && !c.REDIS_URL) {
    out.push('REDIS_URL: required when RATE_LIMIT_STORE=redis (e.g. redis://127.0.0.1:6379)');
  }
  // Outside production a missing secret would be a guess; in production contractRefusals says it already.
  if (c.NODE_ENV !== 'production') {
    if (c.SWITCH_URL && !c.SWITCH_SECRET)
      out.push('SWITCH_SECRET: required when SWITCH_URL is set (the secret the switch controller checks)');
    if (c.BILLING_URL && !c.BILLING_SECRET)
      out.push('BILLING_SECRET: required when BILLING_URL is set (the secret the billing system checks)');
  }
  if (c.STRIPE_SECRET_KEY && !c.STRIPE_PUBLISHABLE_KEY) {
    out.push("STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY (the pay page's Payment Element); set pk_…");
  }
  if (c.CARD_PROCESSOR === 'stripe' && c.NODE_ENV !== 'production' && !c.STRIPE_SECRET_KEY) {
    out.push('STRIPE_SECRET_KEY: required when CARD_PROCESSOR=stripe; set the platform key (sk_test_… or rk_test_…)');
  }
  return out;
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
