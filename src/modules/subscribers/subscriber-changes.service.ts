import { parsePhoneNumber } from 'awesome-phonenumber';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { AppError, isUniqueViolation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { maskEmail } from '../../lib/mask.js';
import { activationMail, mailBrand, passwordResetMail } from '../../mail/templates.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { createLinkToken, deleteInvitedUser, findUserByEmail, findUserById } from '../auth/index.js';
import { confirmContactChange, contactNoticeAddress } from '../rollback-links/index.js';
import { isContactColumn, readContactColumns } from './contact.repository.js';
import { getProvider } from '../providers/index.js';
import { subscriberNotFound } from './subscriber.errors.js';
import * as repo from './profile.repository.js';
import { providerRegions } from './search.repository.js';

// The approved changes of the /agent surface. Each runs in one transaction with its audit entry
// (and its mail, enqueued), so a change is never applied without its trail or the other way round.

export interface Caller extends Actor {
  providerId: string;
  requestId: string;
}

export interface ContactUpdate {
  contact_type: 'contract' | 'invoice';
  first_name?: string;
  last_name?: string;
  email?: string;
  phone?: string;
}

const FIELD_COLUMNS = {
  contract: { first_name: 'first_name', last_name: 'last_name', email: 'email', phone: 'phone' },
  invoice: { first_name: 'invoice_first_name', last_name: 'invoice_last_name', email: 'invoice_email', phone: 'invoice_phone' },
} as const;

type Field = 'first_name' | 'last_name' | 'email' | 'phone';

const invalidPhone = () =>
  new AppError(400, 'validation_error', 'Request validation failed', {
    details: [{ field: 'phone', message: 'is not a valid phone number (use international format, e.g. +49 30 1234567)' }],
  });

export interface SubscriberChangeDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
}

export function createSubscriberChangeService({ db, clock, mailer, config }: SubscriberChangeDeps) {
  async function normalisePhone(trx: Parameters<typeof providerRegions>[0], providerId: string, phone: string, country: string | null) {
    const regions = country ? [country.trim().toUpperCase()] : await providerRegions(trx, providerId);
    for (const regionCode of regions) {
      const p = parsePhoneNumber(phone, { regionCode });
      if (p.valid) return p.number.e164;
    }
    throw invalidPhone();
  }

  /**
   * Only the sent fields change, at once. When something changed, the contract email on file before
   * the edit gets a confirmation with a rollback link (24 hours, single use) in the same transaction.
   */
  async function updateContact(caller: Caller, customerId: string, input: ContactUpdate) {
    try {
      return await db.transaction().execute(async (trx) => {
        const c = await repo.lockOwnedSubscriber(trx, caller.providerId, customerId);
        if (!c) throw subscriberNotFound();
        const cols = FIELD_COLUMNS[input.contact_type];
        const patch: repo.ContactPatch = {};
        const before: Record<string, string | null> = {};
        const after: Record<string, string | null> = {};
        for (const f of ['first_name', 'last_name', 'email', 'phone'] as Field[]) {
          const value = input[f];
          if (value === undefined) continue;
          const col = cols[f];
          const current = c[col];
          if (current === value) continue;
          (patch as Record<string, string>)[col] = value;
          before[f] = current;
          after[f] = value;
        }
        if (input.contact_type === 'contract' && patch.phone !== undefined) {
          patch.phone_e164 = await normalisePhone(trx, caller.providerId, patch.phone, c.invoice_country);
        }
        if (input.contact_type === 'invoice' && patch.invoice_phone !== undefined) {
          // Searched by its whole number in any format, like the contract phone.
          patch.invoice_phone_e164 = await normalisePhone(trx, caller.providerId, patch.invoice_phone, c.invoice_country);
        }
        const now = clock.now();
        const changed = Object.keys(after) as Field[];
        // The notice goes to the address that held the changed contact before the change (issue 31 §4).
        const noticeTo = await contactNoticeAddress(trx, now, c, input.contact_type);
        if (changed.length) {
          const cols = Object.keys(patch).filter(isContactColumn);
          const restore = await readContactColumns(trx, c.id, cols);
          await repo.updateContact(trx, c.id, patch, now);
          await confirmContactChange(
            trx,
            { mailer, config },
            {
              providerId: caller.providerId,
              subscriberId: c.id,
              now,
              contactType: input.contact_type,
              fields: changed,
              restore,
              expected: Object.fromEntries(cols.map((k) => [k, (patch as Record<string, string | null>)[k] ?? null])),
              mailTo: noticeTo,
              firstName: noticeTo === c.invoice_email ? (c.invoice_first_name ?? c.first_name) : c.first_name,
            },
          );
        }
        await recordAudit(trx, {
          ...caller,
          action: 'agent.contact.update',
          entityType: 'customer',
          entityId: c.id,
          before: { contact_type: input.contact_type, ...before },
          after: { contact_type: input.contact_type, ...after },
          at: now,
        });
        const merged = { ...c, ...patch };
        return {
          customer_id: c.id,
          contact_type: input.contact_type,
          contact: {
            first_name: merged[cols.first_name],
            last_name: merged[cols.last_name],
            email: merged[cols.email],
            phone: merged[cols.phone],
          },
          changed_fields: changed,
          applied_at: now.toISOString(),
          confirmation_sent_to_masked: changed.length ? maskEmail(noticeTo) : null,
        };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'subscribers_provider_email_key')) {
        throw new AppError(409, 'conflict', 'Another customer of this provider already uses this email address');
      }
      throw err;
    }
  }

  /**
   * Emails a portal link. password_reset: 15-minute reset link to the login's address.
   * resend_activation: 14-day set-up link while no password was ever chosen (else 409
   * already_activated); a customer without a login gets one created (no password) first.
   */
  async function sendPortalLink(caller: Caller, customerId: string, action: 'password_reset' | 'resend_activation') {
    return db.transaction().execute(async (trx) => {
      const c = await repo.lockOwnedSubscriber(trx, caller.providerId, customerId);
      if (!c) throw subscriberNotFound();
      const provider = await getProvider(trx, caller.providerId);
      const ctx = { brand: mailBrand(provider), baseUrl: config.publicBaseUrl };
      const now = clock.now();
      let user: { id: string; email: string; password_hash: string | null; role: string } | undefined = c.user_id
        ? await findUserById(trx, c.user_id)
        : undefined;
      let userCreated = false;
      let invitationWithdrawn = false;

      if (action === 'password_reset') {
        if (!user) {
          throw new AppError(
            409,
            'portal_account_missing',
            'This customer has no online account yet; send the set-up link with action "resend_activation"',
          );
        }
      } else {
        if (user?.password_hash) {
          throw new AppError(409, 'already_activated', 'The customer already chose a password; use action "password_reset" instead');
        }
        if (!user) {
          const taken = await findUserByEmail(trx, c.email);
          // A staff invitation nobody accepted yet never holds the address against a customer: it is withdrawn.
          invitationWithdrawn = Boolean(taken) && (await deleteInvitedUser(trx, taken!.id));
          if (taken && !invitationWithdrawn) {
            throw new AppError(
              409,
              'conflict',
              "A login with this customer's email exists but belongs to another account; escalate with a ticket",
            );
          }
          const id = newId();
          await repo.createPortalUser(trx, { id, email: c.email, firstName: c.first_name, lastName: c.last_name, now });
          await repo.linkUser(trx, c.id, id, now);
          user = { id, email: c.email, password_hash: null, role: 'subscriber' };
          userCreated = true;
        }
      }

      const purpose = action === 'password_reset' ? 'password_reset' : 'activation';
      const link = await createLinkToken(trx, clock, { purpose, userId: user.id, subscriberId: c.id });
      const content =
        action === 'password_reset'
          ? passwordResetMail(ctx, { firstName: c.first_name, token: link.token })
          : activationMail(ctx, { firstName: c.first_name, token: link.token, customerNumber: c.customer_number });
      await mailer.enqueue(trx, { to: user.email, ...content });
      await recordAudit(trx, {
        ...caller,
        action: `agent.portal_link.${action}`,
        entityType: 'customer',
        entityId: c.id,
        after: {
          link_purpose: purpose,
          expires_at: link.expiresAt.toISOString(),
          login_created: userCreated,
          ...(invitationWithdrawn ? { staff_invitation_withdrawn: true } : {}),
        },
        at: now,
      });
      return { sent: true as const, action, destination_masked: maskEmail(user.email) ?? '***', expires_at: link.expiresAt.toISOString() };
    });
  }

  return { updateContact, sendPortalLink };
}

/** @public The type of what the container builds. */
export type SubscriberChangeService = ReturnType<typeof createSubscriberChangeService>;
