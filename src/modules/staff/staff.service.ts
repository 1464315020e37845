// Provider staff management (internal API): only the provider admin (role service_provider with
// sp_role sp_admin or none) manages the staff of the own provider. Invitees are always
// service_provider users of the caller's provider: no admin or cross-provider escalation.
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import type { UserPrincipal } from '../auth/auth.service.js';
import { findUserById } from '../auth/auth.repository.js';
import { createLinkToken } from '../auth/link-tokens.js';
import { invalidateUserLinks } from '../auth/link-tokens.repository.js';
import { AppError, forbidden, isUniqueViolation, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './staff.repository.js';
import { findProvider } from '../providers/providers.repository.js';
import { mailBrand, staffInviteMail } from '../../mail/templates.js';

export interface StaffDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
}

export const SP_ROLES = ['sp_admin', 'support', 'sales', 'bookkeeping'] as const;
export type StaffRole = (typeof SP_ROLES)[number];

export interface StaffSummary {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  sp_role: StaffRole | null;
  status: 'invited' | 'active';
  created_at: string;
}

const summarize = (u: repo.StaffRow): StaffSummary => ({
  id: u.id,
  email: u.email,
  first_name: u.first_name,
  last_name: u.last_name,
  sp_role: (u.sp_role as StaffRole | null) ?? null,
  status: u.password_hash ? 'active' : 'invited',
  created_at: u.created_at.toISOString(),
});

const NOT_ADMIN = 'Only the provider admin (sp_admin) may manage staff';

export function createStaffService(deps: StaffDeps) {
  const { db, clock, mailer, config } = deps;

  /**
   * The caller as the database knows it now (a JWT issued before a demotion must not keep its
   * old powers): a service_provider of a provider, sp_role sp_admin or none. Returns its provider.
   */
  async function adminProvider(principal: UserPrincipal): Promise<string> {
    if (principal.role !== 'service_provider') throw forbidden('forbidden', NOT_ADMIN);
    const caller = await findUserById(db, principal.userId);
    if (!caller || caller.role !== 'service_provider' || !caller.provider_id) throw forbidden('forbidden', NOT_ADMIN);
    if (caller.sp_role !== null && caller.sp_role !== 'sp_admin') throw forbidden('forbidden', NOT_ADMIN);
    return caller.provider_id;
  }

  async function sendInvite(
    trx: Parameters<typeof createLinkToken>[0],
    user: { id: string; email: string; first_name: string | null; sp_role: string | null },
    providerId: string,
    invitedBy: string | null,
  ) {
    const provider = await findProvider(trx, providerId);
    if (!provider) throw notFound('Provider not found');
    const { token } = await createLinkToken(trx, clock, { purpose: 'staff_invite', userId: user.id });
    const content = staffInviteMail(
      { brand: mailBrand(provider), baseUrl: config.publicBaseUrl },
      { firstName: user.first_name, token, spRole: user.sp_role ?? 'sp_admin', invitedBy },
    );
    await mailer.enqueue(trx, { to: user.email, ...content });
  }

  async function inviterName(ex: Parameters<typeof createLinkToken>[0], userId: string): Promise<string | null> {
    const u = await findUserById(ex, userId);
    const name = [u?.first_name, u?.last_name].filter(Boolean).join(' ').trim();
    return name || null;
  }

  async function invite(
    principal: UserPrincipal,
    input: { email: string; sp_role: StaffRole; first_name?: string | null; last_name?: string | null },
  ): Promise<StaffSummary> {
    const providerId = await adminProvider(principal);
    const email = input.email.trim();
    try {
      return await db.transaction().execute(async (trx) => {
        if (await repo.emailTaken(trx, email)) throw new AppError(409, 'conflict', 'A user with this email already exists');
        const id = newId();
        await repo.insertStaffUser(trx, {
          id,
          email,
          spRole: input.sp_role,
          providerId,
          firstName: input.first_name ?? null,
          lastName: input.last_name ?? null,
          now: clock.now(),
        });
        await sendInvite(
          trx,
          { id, email, first_name: input.first_name ?? null, sp_role: input.sp_role },
          providerId,
          await inviterName(trx, principal.userId),
        );
        const row = await repo.findStaff(trx, providerId, id);
        return summarize(row!);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AppError(409, 'conflict', 'A user with this email already exists');
      throw err;
    }
  }

  async function list(principal: UserPrincipal): Promise<StaffSummary[]> {
    const providerId = await adminProvider(principal);
    return (await repo.listStaff(db, providerId)).map(summarize);
  }

  /** A fresh 14-day link; earlier invite links of the user stop working. */
  async function resendInvite(principal: UserPrincipal, userId: string): Promise<{ ok: true }> {
    const providerId = await adminProvider(principal);
    await db.transaction().execute(async (trx) => {
      const user = await repo.findStaff(trx, providerId, userId);
      if (!user) throw notFound('User not found');
      if (user.password_hash) throw new AppError(409, 'conflict', 'This user has already set a password; use the password reset instead');
      await invalidateUserLinks(trx, user.id, ['staff_invite'], clock.now());
      await sendInvite(trx, user, providerId, await inviterName(trx, principal.userId));
    });
    return { ok: true };
  }

  return { invite, list, resendInvite };
}
