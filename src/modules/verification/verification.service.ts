import { createHmac } from 'node:crypto';
import type { SmsSender } from '../../adapters/twilio.sms.js';
import type { Executor } from '../../db/executor.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { AdapterError } from '../../adapters/types.js';
import { bytesEqual, sha256 } from '../../lib/crypto.js';
import { AppError, dependencyFailed, rateLimitExceeded, serviceUnavailable } from '../../lib/errors.js';
import { newId, randomToken, sixDigitCode } from '../../lib/ids.js';
import { maskEmail, maskPhone } from '../../lib/mask.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { subscriberNotFound, findOwnedSubscriber, lockOwnedSubscriber } from '../subscribers/index.js';
import { getProvider } from '../providers/index.js';
import { insertSession } from '../verified-sessions/index.js';
import { oneTimeCodeMessage } from './verification.mail.js';
import * as repo from './verification.repository.js';
import { present } from '../../lib/present.js';

/** Fixed by decisions.md. */
const CODE_TTL_MS = 10 * 60_000;
const SESSION_TTL_MS = 15 * 60_000;
const MAX_WRONG_ATTEMPTS = 5;
const MAX_ISSUES_PER_WINDOW = 5;
const ISSUE_WINDOW_MS = 10 * 60_000;

export type Channel = 'email' | 'sms';

interface Caller extends Actor {
  providerId: string;
  requestId: string;
}

export interface VerificationDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
  /** How the provider's SMS codes are sent (modules/integrations), or null: 503 dependency_unconfigured. */
  smsSenderFor: (ex: Executor, providerId: string) => Promise<SmsSender | null>;
}

export function createVerificationService(deps: VerificationDeps) {
  const { db, clock, mailer } = deps;
  // Six digits are guessable offline from a plain hash; a keyed hash is not (the key never
  // reaches the database). Rotating JWT_SECRET only invalidates codes in flight (10 minutes).
  const codeKey = sha256(`verification-code:${deps.config.jwtSecret}`);
  const hashCode = (codeId: string, code: string) => createHmac('sha256', codeKey).update(`${codeId}:${code}`).digest();

  async function issue(caller: Caller, customerId: string, channel: Channel) {
    const issued = await db.transaction().execute(async (trx) => {
      // The row lock serialises issues for one customer, so the limit below cannot be raced.
      const customer = await lockOwnedSubscriber(trx, caller.providerId, customerId);
      if (!customer) throw subscriberNotFound();
      const provider = await getProvider(trx, caller.providerId);
      const sender = channel === 'sms' ? await deps.smsSenderFor(trx, caller.providerId) : null;
      if (channel === 'sms') {
        if (!sender) {
          throw serviceUnavailable(
            'dependency_unconfigured',
            'SMS one-time codes are not configured for this provider account; use channel "email"',
          );
        }
        if (!customer.phone_e164) {
          throw new AppError(422, 'unprocessable', 'The customer has no mobile number on file; use channel "email"');
        }
      }
      const now = clock.now();
      const recent = await repo.recentIssues(trx, customer.id, new Date(now.getTime() - ISSUE_WINDOW_MS));
      if (recent.length >= MAX_ISSUES_PER_WINDOW) {
        const freeAt =
          new Date(present(recent[recent.length - MAX_ISSUES_PER_WINDOW], 'the issue that frees a slot').created_at).getTime() +
          ISSUE_WINDOW_MS;
        const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
        // The standard rate-limit 429 like every other 429 of /agent (agent document), not the envelope.
        throw rateLimitExceeded(retryAfter);
      }
      await repo.supersedeOpenCodes(trx, customer.id);
      const id = newId();
      const code = sixDigitCode();
      const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
      await repo.insertCode(trx, {
        id,
        providerId: caller.providerId,
        subscriberId: customer.id,
        channel,
        codeHash: hashCode(id, code),
        expiresAt,
        now,
      });
      const msg = oneTimeCodeMessage({ provider, customer, code, baseUrl: deps.config.publicBaseUrl });
      // Email: a durable mail job in this transaction. SMS: sent after commit (adapters are remote
      // systems and never called inside a transaction).
      if (channel === 'email') await mailer.enqueue(trx, { to: customer.email, ...msg.mail });
      await recordAudit(trx, {
        ...caller,
        action: 'agent.verify.issue',
        entityType: 'customer',
        entityId: customer.id,
        after: { code_id: id, channel, expires_at: expiresAt.toISOString() },
        at: now,
      });
      return { id, customer, expiresAt, sms: msg.sms, sender };
    });

    let destinationMasked: string | null;
    if (channel === 'sms') {
      try {
        await issued.sender!.send({ to: issued.customer.phone_e164!, text: issued.sms });
      } catch (err) {
        if (!(err instanceof AdapterError)) throw err;
        // Undelivered: the code must not stay usable, and the trail says why.
        await db.transaction().execute(async (trx) => {
          await repo.supersedeCode(trx, issued.id);
          await recordAudit(trx, {
            ...caller,
            action: 'agent.verify.issue_failed',
            entityType: 'customer',
            entityId: issued.customer.id,
            after: { code_id: issued.id, channel, failure: err.failure },
            at: clock.now(),
          });
        });
        throw dependencyFailed('The SMS gateway did not accept the message; use channel "email" or retry later');
      }
      destinationMasked = maskPhone(issued.customer.phone_e164);
    } else {
      destinationMasked = maskEmail(issued.customer.email);
    }
    return { sent: true as const, channel, destination_masked: destinationMasked ?? '***', expires_at: issued.expiresAt.toISOString() };
  }

  type CheckOutcome = { ok: true; token: string; expiresAt: Date } | { ok: false; error: AppError };

  async function check(caller: Caller, customerId: string, code: string) {
    const outcome = await db.transaction().execute(async (trx): Promise<CheckOutcome> => {
      const customer = await findOwnedSubscriber(trx, caller.providerId, customerId);
      if (!customer) return { ok: false, error: subscriberNotFound() };
      const now = clock.now();
      const audit = (result: string, after: Record<string, unknown> = {}) =>
        recordAudit(trx, {
          ...caller,
          action: 'agent.verify.check',
          entityType: 'customer',
          entityId: customer.id,
          after: { result, ...after },
          at: now,
        });

      const current = await repo.lockCurrentCode(trx, caller.providerId, customer.id);
      if (!current) {
        await audit('invalid_code', { reason: 'no_active_code' });
        return {
          ok: false,
          error: new AppError(401, 'invalid_code', 'There is no active code for this customer', {
            next: { say: 'issue one with', operation: 'verifyIssue' },
          }),
        };
      }
      if (current.attempts >= MAX_WRONG_ATTEMPTS) {
        await audit('too_many_attempts', { code_id: current.id });
        return { ok: false, error: tooManyAttempts() };
      }
      if (new Date(current.expires_at).getTime() <= now.getTime()) {
        await audit('code_expired', { code_id: current.id });
        return {
          ok: false,
          error: new AppError(401, 'code_expired', 'The code has expired (codes are valid 10 minutes); issue a new one'),
        };
      }
      if (!bytesEqual(hashCode(current.id, code), current.code_hash)) {
        // Committed although the request fails: the counter is the point.
        const attempts = await repo.recordWrongAttempt(trx, current.id);
        await audit(attempts >= MAX_WRONG_ATTEMPTS ? 'too_many_attempts' : 'invalid_code', { code_id: current.id, attempts });
        if (attempts >= MAX_WRONG_ATTEMPTS) return { ok: false, error: tooManyAttempts() };
        const left = MAX_WRONG_ATTEMPTS - attempts;
        return {
          ok: false,
          error: new AppError(401, 'invalid_code', `The code is not correct; ${left} attempt${left === 1 ? '' : 's'} left`),
        };
      }
      await repo.consumeCode(trx, current.id, now);
      const token = `vs_${randomToken(32)}`;
      const sessionId = newId();
      const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
      await insertSession(trx, {
        id: sessionId,
        providerId: caller.providerId,
        subscriberId: customer.id,
        tokenHash: sha256(token),
        expiresAt,
        now,
      });
      await audit('verified', { code_id: current.id, session_id: sessionId, expires_at: expiresAt.toISOString() });
      return { ok: true, token, expiresAt };
    });
    if (!outcome.ok) throw outcome.error;
    return { verified_session: outcome.token, customer_id: customerId, expires_at: outcome.expiresAt.toISOString() };
  }

  return { issue, check };
}

const tooManyAttempts = () =>
  new AppError(403, 'too_many_attempts', 'Too many wrong codes: this code is locked', {
    next: { say: 'issue a new one with', operation: 'verifyIssue' },
  });

/** @public The type of what the container builds. */
export type VerificationService = ReturnType<typeof createVerificationService>;
