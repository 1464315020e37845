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

export type StaffRow = NonNullable<Awaited<ReturnType<typeof findStaff>>>;
