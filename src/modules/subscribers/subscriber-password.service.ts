import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import { hashPassword, verifyPassword } from '../../lib/crypto.js';
import { createCredentialGuard, findUserById, setPassword, subjects } from '../auth/index.js';
export interface SubscriberPasswordDeps {
  db: Db;
  clock: Clock;
}

/** PATCH /subscriber/me/password: the current password proves the caller; other links stop working. */
export function createSubscriberPasswordService({ db, clock }: SubscriberPasswordDeps) {
  const guard = createCredentialGuard({ db, clock });
  async function changePassword(userId: string, currentPassword: string, newPassword: string, clientIp: string) {
    const user = await findUserById(db, userId);
    if (!user) throw notFound('Account not found');
    // The login's count: a stolen token must not buy more guesses at the password than the login form.
    const attempt = await guard.begin(subjects.account(userId), clientIp, 'Too many wrong passwords for this account from this network');
    if (!(await verifyPassword(user.password_hash, currentPassword))) {
      throw new AppError(400, 'bad_request', 'Current password is incorrect');
    }
    await attempt.succeeded();
    const hash = await hashPassword(newPassword);
    await db.transaction().execute(async (trx) => {
      // A reset link mailed before the change must not undo it.
      await setPassword(trx, userId, hash, clock.now());
    });
    return { success: true, message: 'Password changed' };
  }
  return { changePassword };
}
