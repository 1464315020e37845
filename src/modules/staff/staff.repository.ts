import type { Executor } from '../../db/executor.js';

const SUMMARY = ['id', 'email', 'first_name', 'last_name', 'sp_role', 'password_hash', 'created_at'] as const;

export function findCaller(ex: Executor, userId: string) {
  return ex.selectFrom('users').select(['id', 'role', 'sp_role', 'provider_id']).where('id', '=', userId).executeTakeFirst();
}

export function listStaff(ex: Executor, providerId: string) {
  return ex.selectFrom('users').select([...SUMMARY])
    .where('provider_id', '=', providerId).where('role', '=', 'service_provider')
    .orderBy('created_at').orderBy('id').execute();
}

export function findStaff(ex: Executor, providerId: string, userId: string) {
  return ex.selectFrom('users').select([...SUMMARY])
    .where('id', '=', userId).where('provider_id', '=', providerId).where('role', '=', 'service_provider')
    .executeTakeFirst();
}

export async function emailTaken(ex: Executor, email: string): Promise<boolean> {
  const r = await ex.selectFrom('users').select('id').where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
  return Boolean(r);
}

export function findProvider(ex: Executor, providerId: string) {
  return ex.selectFrom('providers').select(['id', 'name', 'support_email', 'branding']).where('id', '=', providerId).executeTakeFirst();
}

export type StaffRow = NonNullable<Awaited<ReturnType<typeof findStaff>>>;
