// The signed quote of an /agent plan-change preview (docs/decisions.md "Signed quote"). The agent
// hands it back on apply, which then applies exactly the quoted change or refuses.
import { createHmac, createSecretKey } from 'node:crypto';
import { jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { BillingState } from './plan-change.quote.js';

/** How long a quote holds: long enough to read it to the customer and hear a yes. */
const QUOTE_TTL_SECONDS = 15 * 60;

// Signed with the JWT secret (random, never derived), but under its own `typ`, issuer and audience:
// a login JWT is not a quote (typ and issuer differ) and a quote is not a login JWT (authenticateBearer
// demands the issuer `netsvc-api`).
const TYP = 'quote+jwt';
const ISSUER = 'netsvc-api/plan-change-quote';
const AUDIENCE = 'agent:plan-change';

/** What a quote binds: who, which change, the amounts the customer heard and the day. */
export interface QuoteClaims {
  providerId: string;
  customerId: string;
  subscriptionId: string;
  fromPlanVersionId: string;
  toPlanVersionId: string;
  fromPriceCents: number;
  toPriceCents: number;
  currency: string;
  billingState: BillingState;
  /** Signed cents of the one-time adjustment; null when none is quoted (the null cases). */
  adjustmentType: string | null;
  adjustmentCents: number | null;
  /** The change day, YYYY-MM-DD (UTC). */
  day: string;
}

const CLAIM_KEYS: (keyof QuoteClaims)[] = [
  'providerId',
  'customerId',
  'subscriptionId',
  'fromPlanVersionId',
  'toPlanVersionId',
  'fromPriceCents',
  'toPriceCents',
  'currency',
  'billingState',
  'adjustmentType',
  'adjustmentCents',
  'day',
];

const quoteInvalid = () =>
  new AppError(
    401,
    'quote_invalid',
    'The quote_token is not a quote of this change (altered, forged, or issued for another customer, subscription or plan): preview again and confirm the new quote with the customer',
  );
const quoteExpired = () =>
  new AppError(401, 'quote_expired', 'The quote_token is older than 15 minutes: preview again and confirm the new quote with the customer');
export const quoteChanged = (what: string) =>
  new AppError(
    409,
    'quote_changed',
    `The quoted change no longer holds (${what} moved since the preview); nothing was applied: preview again and confirm the new quote with the customer`,
  );

const base64url = (o: object) => Buffer.from(JSON.stringify(o), 'utf8').toString('base64url');

export function createQuoteTokens({ clock, secret }: { clock: Clock; secret: string }) {
  const header = base64url({ alg: 'HS256', typ: TYP });
  // One key object signs (node:crypto) and verifies (jose takes a KeyObject on Node).
  const key = createSecretKey(Buffer.from(secret, 'utf8'));

  /**
   * The compact JWS of the claims (RFC 7515), HMAC-SHA256 through node:crypto. jose 6 signs through
   * WebCrypto, whose every call is a job on the thread pool: a preview spent about a tenth of its CPU
   * on that (bench/README.md, "The preview's two costs"). jose still verifies every token.
   */
  function sign(c: QuoteClaims): string {
    const now = Math.floor(clock.now().getTime() / 1000);
    const input = `${header}.${base64url({ q: c, iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + QUOTE_TTL_SECONDS })}`;
    return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
  }

  /**
   * The claims of a token this service signed for this request's provider, customer, subscription
   * and plan version. Throws 401 quote_expired (genuine but old) or 401 quote_invalid.
   */
  async function verify(
    token: string,
    expect: Pick<QuoteClaims, 'providerId' | 'customerId' | 'subscriptionId' | 'toPlanVersionId'>,
  ): Promise<QuoteClaims> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['HS256'],
        typ: TYP,
        issuer: ISSUER,
        audience: AUDIENCE,
        currentDate: clock.now(),
        requiredClaims: ['exp', 'iat'],
      }));
    } catch (err) {
      // jose checks the signature before the claims: an expired token is one we signed.
      if (err instanceof joseErrors.JWTExpired) throw quoteExpired();
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw quoteInvalid();
      throw err;
    }
    const c = payload.q as Partial<QuoteClaims> | undefined;
    if (!c || typeof c !== 'object' || CLAIM_KEYS.some((k) => !(k in c))) throw quoteInvalid();
    const claims = c as QuoteClaims;
    if (
      claims.providerId !== expect.providerId ||
      claims.customerId !== expect.customerId ||
      claims.subscriptionId !== expect.subscriptionId ||
      claims.toPlanVersionId !== expect.toPlanVersionId
    )
      throw quoteInvalid();
    return claims;
  }

  return { sign, verify };
}

/** What moved between the quote and now (the 409's words), or null when the quote still holds. */
export function quoteDifference(quoted: QuoteClaims, now: QuoteClaims): string | null {
  if (quoted.day !== now.day) return 'the day';
  if (
    quoted.fromPlanVersionId !== now.fromPlanVersionId ||
    quoted.fromPriceCents !== now.fromPriceCents ||
    quoted.toPriceCents !== now.toPriceCents ||
    quoted.currency !== now.currency
  )
    return 'the price';
  if (quoted.billingState !== now.billingState) return 'the billing state';
  if (quoted.adjustmentType !== now.adjustmentType || quoted.adjustmentCents !== now.adjustmentCents) return 'the one-time adjustment';
  return null;
}
