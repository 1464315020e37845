// Credit notes are read live from the billing system (deps.adapters.billingSystem): never from a
// local copy, and never an empty list in place of an unreachable system (502).
import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError, type BillingCreditNote } from '../../adapters/types.js';
import { creditNotePdf } from '../../documents/index.js';
import { dependencyFailed, notFound } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import type { UserPrincipal } from '../auth/index.js';
import type { SubscriberService } from './account.service.js';
import { findSubscriberProvider, subscriberIdsOfUser } from './account.repository.js';

export interface CreditNoteDeps {
  db: Db;
  clock: Clock;
  adapters: Adapters;
  log: FastifyBaseLogger;
  subscribers: SubscriberService;
}

/** Drafts, archived and voided notes are never shown (nor served as PDF). */
const VISIBLE_STATES = ['open', 'refunded', 'paid_out', 'applied'] as const;
export type VisibleState = (typeof VISIBLE_STATES)[number];
const visible = (n: BillingCreditNote): n is BillingCreditNote & { state: VisibleState } =>
  (VISIBLE_STATES as readonly string[]).includes(n.state);

const BILLING_UNREACHABLE = 'The billing system is unreachable right now, so credit notes cannot be read; try again in a few minutes';

function creditNotePdfPath(id: string) {
  return `/api/v1/credit-notes/${encodeURIComponent(id)}/pdf`;
}

export function createCreditNoteService(deps: CreditNoteDeps) {
  const { db, adapters, log } = deps;
  const { subscribers } = deps;

  async function live<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof AdapterError) {
        log.warn({ err: err.message, failure: err.failure }, 'billing system call failed');
        throw dependencyFailed(BILLING_UNREACHABLE);
      }
      throw err;
    }
  }

  async function list(userId: string) {
    const s = await subscribers.requireSubscriber(userId);
    const notes = await live(() => adapters.billingSystem.listCreditNotes(s.id));
    return notes
      .filter(visible)
      .sort((a, b) => b.issued_at.getTime() - a.issued_at.getTime() || b.number.localeCompare(a.number))
      .map((n) => ({
        id: n.id,
        number: n.number,
        state: n.state,
        amount: formatCents(n.amount_cents),
        currency: n.currency.trim(),
        reason: n.reason,
        issued_at: n.issued_at.toISOString(),
        subscription_id: n.subscription_id,
        pdf_url: creditNotePdfPath(n.id),
      }));
  }

  /**
   * The PDF of one note, for the subscriber it belongs to, the staff of that subscriber's provider,
   * or a platform admin. Anything else (another subscriber's note, unknown id, a hidden state)
   * answers the same 404.
   */
  async function pdf(principal: UserPrincipal, id: string): Promise<{ number: string; pdf: Buffer }> {
    const note = await live(() => adapters.billingSystem.getCreditNote(id));
    if (!note || !visible(note)) throw notFound('Credit note not found');
    const sub = await findSubscriberProvider(db, note.subscriber_id);
    if (!sub) throw notFound('Credit note not found');
    const allowed =
      principal.role === 'platform_admin' ||
      (principal.role === 'service_provider' && principal.providerId === sub.provider_id) ||
      (principal.role === 'subscriber' && (await subscriberIdsOfUser(db, principal.userId)).includes(sub.id));
    if (!allowed) throw notFound('Credit note not found');

    const buf = await creditNotePdf(db, note);
    if (!buf) throw notFound('Credit note not found');
    return { number: note.number, pdf: buf };
  }

  return { list, pdf };
}
