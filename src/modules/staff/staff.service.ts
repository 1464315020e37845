// Provider staff management (internal API): only the provider admin (role service_provider with
// sp_role sp_admin or none) manages the staff of the own provider. Invitees are always
// service_provider users of the caller's provider: no admin or cross-provider escalation.
// Logins are one per email across providers (users_email_key): an invitation never tells whether an
// address has a login elsewhere, and a pending invitation never holds an address against a subscriber.
import type { Transaction } from 'kysely';
import type { Config } from '../../config.js';
import type { DB } from '../../db/types.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import {
  createLinkToken,
  deleteInvitedUser,
  findUserByEmail,
  findUserById,
  insertStaffUser,
  invalidateUserLinks,
  type UserPrincipal,
} from '../auth/index.js';
import { findProvider } from '../providers/index.js';
import { AppError, forbidden, isUniqueViolation, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import * as repo from './staff.repository.js';
import { mailBrand, platformBrand, staffInviteMail, staffInviteRefusedMail } from '../../mail/templates.js';

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

  type InviteInput = { email: string; sp_role: StaffRole; first_name?: string | null; last_name?: string | null };

  /**
   * An address with a login elsewhere (another provider's staff, a subscriber, an admin) answers the
   * same 201 summary a new invitation does, creates nothing, and mails that address a notice naming
   * the inviting provider: the answer is no probe of who has a login. The provider's own staff answer
   * 409 (the admin lists them anyway).
   */
  async function inviteIn(trx: Transaction<DB>, providerId: string, inviterId: string, input: InviteInput): Promise<StaffSummary> {
    const email = input.email.trim();
    const now = clock.now();
    const existing = await findUserByEmail(trx, email);
    if (existing?.role === 'service_provider' && existing.provider_id === providerId) {
      throw new AppError(409, 'conflict', 'A user with this email already exists');
    }
    if (existing) {
      const provider = await findProvider(trx, providerId);
      if (!provider) throw notFound('Provider not found');
      const notice = staffInviteRefusedMail(
        { brand: platformBrand(config.MAIL_FROM), baseUrl: config.publicBaseUrl },
        { providerName: provider.name },
      );
      await mailer.enqueue(trx, { to: existing.email, ...notice });
      return {
        id: newId(),
        email,
        first_name: input.first_name ?? null,
        last_name: input.last_name ?? null,
        sp_role: input.sp_role,
        status: 'invited',
        created_at: now.toISOString(),
      };
    }
    const id = newId();
    await insertStaffUser(trx, {
      id,
      email,
      spRole: input.sp_role,
      providerId,
      firstName: input.first_name ?? null,
      lastName: input.last_name ?? null,
      now,
    });
    await sendInvite(
      trx,
      { id, email, first_name: input.first_name ?? null, sp_role: input.sp_role },
      providerId,
      await inviterName(trx, inviterId),
    );
    return summarize((await repo.findStaff(trx, providerId, id))!);
  }

  async function invite(principal: UserPrincipal, input: InviteInput): Promise<StaffSummary> {
    const providerId = await adminProvider(principal);
    const attempt = () => db.transaction().execute((trx) => inviteIn(trx, providerId, principal.userId, input));
    try {
      return await attempt();
    } catch (err) {
      // A login with the address was created meanwhile: it is now a login elsewhere (or the own staff's 409).
      if (isUniqueViolation(err, 'users_email_key')) return attempt();
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

  /** Withdraws an invitation nobody accepted yet: the invited user and its links go. An active user answers 409. */
  async function withdrawInvite(principal: UserPrincipal, userId: string): Promise<{ ok: true }> {
    const providerId = await adminProvider(principal);
    await db.transaction().execute(async (trx) => {
      const user = await repo.findStaff(trx, providerId, userId);
      if (!user) throw notFound('User not found');
      if (user.password_hash || !(await deleteInvitedUser(trx, user.id))) {
        throw new AppError(409, 'conflict', 'This user has already set a password; only an invitation not yet accepted can be withdrawn');
      }
    });
    return { ok: true };
  }

  /**
   * The operator's invitation of a provider's admin (npm run ops -- provider admin, the admin route):
   * the same invitation mail and 14-day link as a staff invitation, naming no inviter. The operator
   * is trusted, so an address with a login anywhere answers 409 rather than the silent notice.
   */
  async function inviteProviderAdmin(
    providerId: string,
    input: { email: string; first_name?: string | null; last_name?: string | null },
  ): Promise<StaffSummary> {
    const email = input.email.trim();
    try {
      return await db.transaction().execute(async (trx) => {
        if (!(await findProvider(trx, providerId))) throw notFound('Provider not found');
        if (await findUserByEmail(trx, email)) throw new AppError(409, 'conflict', `A login with the email ${email} exists already`);
        const id = newId();
        const user = { id, email, first_name: input.first_name ?? null, last_name: input.last_name ?? null };
        await insertStaffUser(trx, {
          ...user,
          firstName: user.first_name,
          lastName: user.last_name,
          spRole: 'sp_admin',
          providerId,
          now: clock.now(),
        });
        await sendInvite(trx, { ...user, sp_role: 'sp_admin' }, providerId, null);
        return summarize((await repo.findStaff(trx, providerId, id))!);
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_key')) throw new AppError(409, 'conflict', `A login with the email ${email} exists already`);
      throw err;
    }
  }

  /** The provider's staff, for the operator (no caller to check). */
  const listForProvider = async (providerId: string) => (await repo.listStaff(db, providerId)).map(summarize);

  return { invite, list, resendInvite, withdrawInvite, inviteProviderAdmin, listForProvider };
}
