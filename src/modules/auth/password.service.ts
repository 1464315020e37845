import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { hashPassword } from '../../lib/crypto.js';
import { createCredentialGuard, subjects } from './credential-guard.js';
import { PASSWORD_LINKS, setPassword } from './auth.repository.js';
import { consumeLinkToken } from './link-tokens.js';

export interface PasswordDeps {
  db: Db;
  clock: Clock;
}

export function createPasswordService({ db, clock }: PasswordDeps) {
  const guard = createCredentialGuard({ db, clock });

  /**
   * POST /auth/set-password: reset, activation and staff-invite links all end here. 10 unusable
   * tokens from one client network in 15 minutes lock that network out of this route for 15 minutes.
   */
  async function setPasswordWithToken(token: string, password: string, clientIp: string) {
    const attempt = await guard.begin(subjects.tokenGuesses(clientIp), clientIp, 'Too many invalid links from this address');
    const hash = await hashPassword(password);
    await db.transaction().execute(async (trx) => {
      const row = await consumeLinkToken(trx, clock, token, PASSWORD_LINKS);
      if (!row?.user_id) throw new AppError(400, 'bad_request', 'This link is invalid, already used, or expired');
      // One link works once; other outstanding links of the same account stop working too.
      await setPassword(trx, row.user_id, hash, clock.now());
    });
    await attempt.succeeded();
  }
  return { setPasswordWithToken };
}
