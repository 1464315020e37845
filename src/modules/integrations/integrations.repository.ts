import type { Executor } from '../../db/executor.js';

export interface SmsGatewayRow {
  provider_id: string;
  kind: string;
  account_sid: string;
  auth_token_sealed: Uint8Array;
  sender: string;
}

export async function upsertSmsGateway(
  ex: Executor,
  row: { providerId: string; accountSid: string; authTokenSealed: Buffer; sender: string; now: Date },
): Promise<void> {
  const values = { account_sid: row.accountSid, auth_token_sealed: row.authTokenSealed, sender: row.sender, updated_at: row.now };
  await ex
    .insertInto('provider_sms_gateways')
    .values({ provider_id: row.providerId, kind: 'twilio', ...values })
    .onConflict((oc) => oc.column('provider_id').doUpdateSet(values))
    .execute();
}

export async function deleteSmsGateway(ex: Executor, providerId: string): Promise<void> {
  await ex.deleteFrom('provider_sms_gateways').where('provider_id', '=', providerId).execute();
}

export function findSmsGateway(ex: Executor, providerId: string): Promise<SmsGatewayRow | undefined> {
  return ex
    .selectFrom('provider_sms_gateways')
    .select(['provider_id', 'kind', 'account_sid', 'auth_token_sealed', 'sender'])
    .where('provider_id', '=', providerId)
    .executeTakeFirst();
}
