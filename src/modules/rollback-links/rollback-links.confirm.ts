// Creating a rollback link and its change-confirmation mail, inside the transaction of the change
// they confirm (so a rolled-back change sends nothing, and a committed one always has its mail).
import type { Config } from '../../config.js';
import type { Executor } from '../../db/executor.js';
import { sha256 } from '../../lib/crypto.js';
import { newId, randomToken } from '../../lib/ids.js';
import { contactChangeMail, planChangeMail } from '../../mail/change-confirmation.js';
import { mailBrand } from '../../mail/templates.js';
import type { Mailer } from '../../mail/types.js';
import { getProvider } from '../providers/index.js';
import * as repo from './rollback-links.repository.js';

/** A rollback link works for 24 hours after the change, once. */
const ROLLBACK_TTL_MS = 24 * 3600_000;

export interface RollbackMailDeps {
  mailer: Mailer;
  config: Config;
}

async function createLink(
  trx: Executor,
  now: Date,
  who: { providerId: string; subscriberId: string; mailedTo: string },
  link: repo.NewRollbackLink['link'],
) {
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + ROLLBACK_TTL_MS);
  await repo.insertRollbackLink(trx, {
    id: newId(),
    token_hash: sha256(token),
    provider_id: who.providerId,
    subscriber_id: who.subscriberId,
    expires_at: expiresAt,
    created_at: now,
    mailed_to: who.mailedTo,
    link,
  });
  return { token, expiresAt };
}

async function mailContext(trx: Executor, deps: RollbackMailDeps, providerId: string) {
  return { brand: mailBrand(await getProvider(trx, providerId)), baseUrl: deps.config.publicBaseUrl };
}

/** After an /agent plan change: a link that returns to the previous plan, mailed to the contract email. */
export async function confirmPlanChange(
  trx: Executor,
  deps: RollbackMailDeps,
  c: {
    providerId: string;
    subscriberId: string;
    planChangeId: string;
    now: Date;
    effectiveDate: string;
    currency: string;
    from: { name: string; monthly_price_cents: number };
    to: { name: string; monthly_price_cents: number };
    adjustment: { type: string; amountCents: number } | null;
  },
): Promise<void> {
  const to = await repo.findMailContact(trx, c.subscriberId);
  const link = await createLink(trx, c.now, { ...c, mailedTo: to.email }, { kind: 'plan', plan_change_id: c.planChangeId });
  const content = planChangeMail(await mailContext(trx, deps, c.providerId), {
    firstName: to.first_name,
    fromName: c.from.name,
    fromPriceCents: c.from.monthly_price_cents,
    toName: c.to.name,
    toPriceCents: c.to.monthly_price_cents,
    currency: c.currency,
    effectiveDate: c.effectiveDate,
    adjustment: c.adjustment,
    token: link.token,
    expiresAt: link.expiresAt,
  });
  await deps.mailer.enqueue(trx, { to: to.email, ...content });
}

/**
 * After an /agent contact edit: a link that restores the columns it changed, mailed to the contract
 * email on file BEFORE the edit (after an email change, the address that can notice a hijack).
 */
export async function confirmContactChange(
  trx: Executor,
  deps: RollbackMailDeps,
  c: {
    providerId: string;
    subscriberId: string;
    now: Date;
    contactType: 'contract' | 'invoice';
    fields: string[];
    restore: repo.ContactColumns;
    expected: repo.ContactColumns;
    mailTo: string;
    firstName: string | null;
  },
): Promise<void> {
  const link = await createLink(
    trx,
    c.now,
    { ...c, mailedTo: c.mailTo },
    { kind: 'contact', contact_type: c.contactType, restore: c.restore, expected: c.expected },
  );
  const content = contactChangeMail(await mailContext(trx, deps, c.providerId), {
    firstName: c.firstName,
    contactType: c.contactType,
    fields: c.fields,
    token: link.token,
    expiresAt: link.expiresAt,
  });
  await deps.mailer.enqueue(trx, { to: c.mailTo, ...content });
}

/**
 * Where the notice of a contact change goes (issue 31 §4): the address that held the changed contact
 * before the change. Contract: the contract email now (before this change). Invoice: its own email,
 * or, when it had none (invoices went to the contract email), the contract email as it was before
 * any agent change of it still within its undo window, so a notice never goes to an address an
 * earlier call just set.
 */
export async function contactNoticeAddress(
  trx: Executor,
  now: Date,
  c: { id: string; email: string; invoice_email: string | null },
  contactType: 'contract' | 'invoice',
): Promise<string> {
  if (contactType === 'contract') return c.email;
  if (c.invoice_email) return c.invoice_email;
  return (await repo.contractEmailBefore(trx, c.id, new Date(now.getTime() - ROLLBACK_TTL_MS))) ?? c.email;
}
