/** Every stable error code either surface can answer. The /agent envelope carries it as `code`. */
export type ErrorCode =
  | 'validation_error'
  | 'invalid_api_key'
  | 'feature_not_enabled'
  | 'not_authenticated'
  | 'invalid_credentials'
  | 'forbidden'
  | 'verification_required'
  | 'session_invalid'
  | 'session_customer_mismatch'
  | 'invalid_code'
  | 'code_expired'
  | 'too_many_attempts'
  | 'customer_not_found'
  | 'not_found'
  | 'method_not_allowed'
  | 'confirmation_required'
  | 'plan_change_limit'
  | 'subscription_not_active'
  | 'same_plan'
  | 'plan_not_available'
  | 'already_activated'
  | 'conflict'
  | 'gone'
  | 'unprocessable'
  | 'bad_request'
  | 'idempotency_key_reused'
  | 'idempotency_in_progress'
  | 'rate_limited'
  | 'dependency_unconfigured'
  | 'dependency_failed'
  | 'payment_declined'
  | 'service_unavailable'
  | 'internal_error'
  | 'portal_account_missing'
  | 'quote_invalid'
  | 'quote_expired'
  | 'quote_changed'
  | 'quote_required'
  | 'billing_escalation';

export interface ValidationDetail {
  field: string;
  message: string;
}

/**
 * What the caller does next, by operation: the module names the step, the surface that answers
 * writes it out with its own route ("; issue one with POST /agent/verify/issue").
 */
export interface NextStep {
  say: string;
  operation: 'verifyIssue' | 'customerSearch';
}

/**
 * One error type for the whole service. `message` is safe to show a client. The partner surface
 * answers `{detail}`: `detail` overrides the message there (e.g. the nested object of a 410).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      detail?: unknown;
      details?: ValidationDetail[];
      headers?: Record<string, string>;
      next?: NextStep;
      /** /agent: extra fields of the error object (e.g. plan_change_limit's next_change_at). */
      fields?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * A 429 in the rate limiter's standard shape `{statusCode, error, message}` plus Retry-After, on
 * both surfaces (never the /agent envelope): the limiter throws it, and so do the per-customer limits.
 */
export class RateLimitError extends Error {
  constructor(
    readonly body: { statusCode: 429; error: string; message: string },
    readonly retryAfterSeconds: number,
  ) {
    super(body.message);
  }
}

/** A wait in words, as @fastify/rate-limit words it: "45 seconds", "1 minute", "15 minutes". */
export function waitText(seconds: number): string {
  const [n, unit] = seconds < 60 ? [seconds, 'second'] : [Math.round(seconds / 60), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** The limiter's answer for a wait of `retryAfterSeconds`. */
export function rateLimitExceeded(retryAfterSeconds: number): RateLimitError {
  const s = Math.max(1, Math.ceil(retryAfterSeconds));
  return new RateLimitError({ statusCode: 429, error: 'Too Many Requests', message: `Rate limit exceeded, retry in ${waitText(s)}` }, s);
}

export const notFound = (message = 'Not found', code: ErrorCode = 'not_found') => new AppError(404, code, message);
export const conflict = (code: ErrorCode, message: string) => new AppError(409, code, message);
export const unprocessable = (message: string) => new AppError(422, 'unprocessable', message);
export const forbidden = (code: ErrorCode, message: string) => new AppError(403, code, message);
export const dependencyFailed = (message: string) => new AppError(502, 'dependency_failed', message);
export const serviceUnavailable = (code: ErrorCode, message: string) => new AppError(503, code, message);

/** Postgres error codes the services branch on. */
const PG_UNIQUE_VIOLATION = '23505';
const PG_FOREIGN_KEY_VIOLATION = '23503';
const PG_QUERY_CANCELED = '57014';

/** The statement ran past the transaction's statement_timeout (not a cancel by a client or an operator). */
export function isStatementTimeout(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === PG_QUERY_CANCELED && /statement timeout/i.test(e.message ?? '');
}

export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return isViolation(err, PG_UNIQUE_VIOLATION, constraint);
}

export function isForeignKeyViolation(err: unknown, constraint?: string): boolean {
  return isViolation(err, PG_FOREIGN_KEY_VIOLATION, constraint);
}

function isViolation(err: unknown, code: string, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string } | null;
  if (!e || e.code !== code) return false;
  if (!constraint) return true;
  // pg sets `constraint`; PGlite does not always, but names it in the message.
  return e.constraint === constraint || (e.message ?? '').includes(`"${constraint}"`);
}
