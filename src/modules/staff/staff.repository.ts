import type { Executor } from '../../db/executor.js';

const SUMMARY = ['id', 'email', 'first_name', 'last_name', 'sp_role', 'password_hash', 'created_at'] as const;

export function listStaff(ex: Executor, providerId: string) {
  return ex
    .selectFrom('users')
    .select([...SUMMARY])
    .where('provider_id', '=', providerId)
    .where('role', '=', 'service_provider')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findStaff(ex: Executor, providerId: string, userId: string) {
  return ex
    .selectFrom('users')
    .select([...SUMMARY])
    .where('id', '=', userId)
    .where('provider_id', '=', providerId)
    .where('role', '=', 'service_provider')
    .executeTakeFirst();
}

export async function emailTaken(ex: Executor, email: string): Promise<boolean> {
  const r = await ex
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return Boolean(r);
}

/** An invited staff user: no password until the invite link sets one. */
export async function insertStaffUser(
  ex: Executor,
  u: { id: string; email: string; spRole: string; providerId: string; firstName: string | null; lastName: string | null; now: Date },
) {
  await ex
    .insertInto('users')
    .values({
      id: u.id,
      email: u.email,
      role: 'service_provider',
      sp_role: u.spRole,
      provider_id: u.providerId,
      first_name: u.firstName,
      last_name: u.lastName,
      password_hash: null,
      password_set_at: null,
      created_at: u.now,
    })
    .execute();
}

export type StaffRow = NonNullable<Awaited<ReturnType<typeof findStaff>>>;
