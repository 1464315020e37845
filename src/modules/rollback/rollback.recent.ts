// What the agent sees of the undo links (issue 31 §3): the customer's recent confirmed changes,
// whether each can still be undone and until when, and a resend of the confirmation mail (with a
// fresh undo link, same expiry) to the address that received it.
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { sha256 } from '../../lib/crypto.js';
import { AppError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import { maskEmail } from '../../lib/mask.js';
import { contactChangeMail, planChangeMail } from '../../mail/change-confirmation.js';
import { mailBrand } from '../../mail/templates.js';
import type { Mailer } from '../../mail/types.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { getProvider } from '../providers/index.js';
import * as links from '../rollback-links/index.js';
import * as repo from './rollback.repository.js';

/** How far back the agent sees changes (the undo links live 24 hours; older ones show as expired). */
const RECENT_DAYS = 30;
const RECENT_LIMIT = 20;

const UndoState = z
  .enum(['available', 'used', 'expired', 'superseded'])
  .describe(
    'available: the undo link in the confirmation mail works until `undo_until`. used: it was used (the change was undone). ' +
      'expired: its 24 hours passed. superseded: the plan changed again since, so this change can no longer be undone by its link.',
  );

export const RecentChanges = z.object({
  customer_id: z.uuid(),
  changes: z
    .array(
      z.object({
        change_id: z.uuid().describe('Pass it to resend-confirmation (MCP resend_change_confirmation) to mail the undo link again'),
        kind: z.enum(['plan', 'contact']),
        summary: z.string().describe('What changed, in words'),
        changed_at: z.iso.datetime(),
        undo_state: UndoState,
        can_undo: z.boolean().describe('true while undo_state is available'),
        undo_until: z.iso.datetime().describe('When the undo link stops working (24 hours after the change)'),
        confirmation_sent_to_masked: z
          .string()
          .nullable()
          .describe('Where the confirmation mail with the undo link went (masked); null for a change made before this was recorded'),
      }),
    )
    .describe(`The customer's changes of the last ${RECENT_DAYS} days that sent a confirmation mail with an undo link, newest first`),
});

export const ResendConfirmationResponse = z.object({
  sent: z.literal(true),
  change_id: z.uuid(),
  destination_masked: z.string().describe('The address the mail went to: the one that received the first confirmation'),
  undo_until: z.iso.datetime().describe('Unchanged: the undo link still stops working 24 hours after the change'),
});

const FIELD_OF_COLUMN = (col: string) => (col.endsWith('_e164') ? null : col.replace(/^invoice_/, ''));
const contactFields = (restore: unknown) => [
  ...new Set(
    Object.keys(restore ?? {})
      .map(FIELD_OF_COLUMN)
      .filter((f): f is string => Boolean(f)),
  ),
];

export interface RecentChangesDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
}

export function createRecentChanges({ db, clock, mailer, config }: RecentChangesDeps) {
  async function list(providerId: string, customerId: string): Promise<z.infer<typeof RecentChanges>> {
    const now = clock.now();
    const rows = await links.recentLinks(db, providerId, customerId, new Date(now.getTime() - RECENT_DAYS * 86_400_000), RECENT_LIMIT);
    const changes = [];
    for (const r of rows) {
      let state: z.infer<typeof UndoState> = r.used_at
        ? 'used'
        : new Date(r.expires_at).getTime() <= now.getTime()
          ? 'expired'
          : 'available';
      if (state === 'available' && r.kind === 'plan' && r.subscription_id && r.plan_change_id) {
        if (await repo.changedSince(db, r.subscription_id, r.plan_change_id, new Date(r.created_at))) state = 'superseded';
      }
      const summary =
        r.kind === 'plan'
          ? `Plan changed from ${r.from_name ?? '?'} to ${r.to_name ?? '?'}`
          : `${r.contact_type === 'invoice' ? 'Invoice' : 'Contract'} contact changed: ${contactFields(r.restore).join(', ')}`;
      changes.push({
        change_id: r.id,
        kind: r.kind as 'plan' | 'contact',
        summary,
        changed_at: new Date(r.created_at).toISOString(),
        undo_state: state,
        can_undo: state === 'available',
        undo_until: new Date(r.expires_at).toISOString(),
        confirmation_sent_to_masked: r.mailed_to ? maskEmail(r.mailed_to) : null,
      });
    }
    return { customer_id: customerId, changes };
  }

  /**
   * Sends the confirmation mail again with a fresh undo link (the earlier mail's link stops working;
   * the expiry stays) to the address that received it. 404 not_found: no such change of this
   * customer; 409 conflict: its undo link was used or has expired (nothing to resend).
   */
  async function resend(caller: Actor & { providerId: string; requestId?: string }, customerId: string, changeId: string) {
    const now = clock.now();
    return db.transaction().execute(async (trx) => {
      const link = await links.lockSubscriberLink(trx, caller.providerId, customerId, changeId);
      if (!link) throw new AppError(404, 'not_found', 'No such change for this customer; take change_id from recent-changes');
      if (link.used_at) throw new AppError(409, 'conflict', 'This change was already undone with its link; there is nothing to resend');
      if (new Date(link.expires_at).getTime() <= now.getTime())
        throw new AppError(409, 'conflict', 'The undo link of this change has expired (24 hours); it can no longer be undone by link');
      const contact = await links.findMailContact(trx, customerId);
      const to = link.mailed_to ?? contact.email;
      const token = randomToken(32);
      await links.rotateLinkToken(trx, link.id, sha256(token));
      const ctx = { brand: mailBrand(await getProvider(trx, caller.providerId)), baseUrl: config.publicBaseUrl };
      const expiresAt = new Date(link.expires_at);
      let content;
      if (link.kind === 'plan') {
        const pc = await repo.findPlanChangeForRollback(trx, link.plan_change_id!);
        if (!pc) throw new Error(`rollback link ${link.id} names a missing plan change`);
        content = planChangeMail(ctx, {
          firstName: contact.first_name,
          fromName: pc.from_name,
          fromPriceCents: pc.from_price_cents,
          toName: pc.to_name,
          toPriceCents: pc.to_price_cents,
          currency: pc.currency,
          effectiveDate: String(pc.change_date).slice(0, 10),
          adjustment: pc.adjustment_type ? { type: pc.adjustment_type, amountCents: pc.adjustment_cents ?? 0 } : null,
          token,
          expiresAt,
        });
      } else {
        content = contactChangeMail(ctx, {
          firstName: contact.first_name,
          contactType: link.contact_type === 'invoice' ? 'invoice' : 'contract',
          fields: contactFields(link.restore),
          token,
          expiresAt,
        });
      }
      await mailer.enqueue(trx, { to, ...content });
      await recordAudit(trx, {
        ...caller,
        action: 'agent.change_confirmation.resend',
        entityType: 'customer',
        entityId: customerId,
        before: null,
        after: { change_id: link.id, kind: link.kind },
        at: now,
      });
      return { sent: true as const, change_id: link.id, destination_masked: maskEmail(to)!, undo_until: expiresAt.toISOString() };
    });
  }

  return { list, resend };
}

/** @public The type of what the container builds. */
export type RecentChangesService = ReturnType<typeof createRecentChanges>;
