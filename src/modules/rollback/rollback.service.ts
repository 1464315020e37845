// The rollback link's page: GET describes what the link would undo and changes nothing (link
// scanners and previews open links); POST undoes it, once, within 24 hours, while the state it
// undoes still stands. Answers are page states, not exceptions: every refusal is a page.
import type { Clock } from '../../lib/clock.js';
import type { Db } from '../../db/database.js';
import { AppError, isUniqueViolation } from '../../lib/errors.js';
import { sha256 } from '../../lib/crypto.js';
import { formatCents } from '../../lib/money.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { lockOwnedSubscriber } from '../subscribers/index.js';
import type { PlanChangeService } from '../plan-change/index.js';
import * as links from '../rollback-links/index.js';
import * as subscribers from '../subscribers/index.js';
import * as repo from './rollback.repository.js';
import { resolveContactUndo } from './contact-undo.js';

export type RollbackState = 'ready' | 'done' | 'invalid' | 'used' | 'expired' | 'moved_on' | 'conflict' | 'not_possible';

export interface RollbackView {
  state: RollbackState;
  kind?: 'contact' | 'plan';
  /** What the link undoes (ready) or undid (done), in words for the page. */
  summary?: string;
  /** Why not, for the refusals that depend on the account (not_possible). */
  reason?: string;
}

const FIELD_NAMES: Record<string, string> = {
  first_name: 'first name',
  last_name: 'last name',
  email: 'email address',
  phone: 'phone number',
};

/** A refusal found under the row locks; the transaction rolls back (the link stays as it was). */
class Refused extends Error {
  constructor(
    readonly state: RollbackState,
    readonly reason?: string,
  ) {
    super(state);
  }
}

export interface RollbackDeps {
  db: Db;
  clock: Clock;
  planChange: PlanChangeService;
}

export function createRollbackService(deps: RollbackDeps) {
  const { db, clock, planChange } = deps;
  const actor: Actor = { actorType: 'system', actor: 'rollback_link' };

  const contactFields = (expected: links.ContactColumns) =>
    [...new Set(Object.keys(expected).map((c) => c.replace(/^invoice_/, '').replace(/_e164$/, '')))].map((f) => FIELD_NAMES[f] ?? f);

  async function load(token: string) {
    if (token.length < 20 || token.length > 200) return { state: 'invalid' as const };
    const link = await links.findRollbackLink(db, sha256(token));
    if (!link) return { state: 'invalid' as const };
    if (link.used_at) return { state: 'used' as const, link };
    if (new Date(link.expires_at).getTime() <= clock.now().getTime()) return { state: 'expired' as const, link };
    return { state: 'ready' as const, link };
  }

  async function planSummary(link: links.RollbackLinkRow) {
    const pc = (await repo.findPlanChangeForRollback(db, link.plan_change_id!))!;
    const summary =
      `Return from ${pc.to_name} (${formatCents(pc.to_price_cents)} ${pc.currency} per month) to ${pc.from_name} ` +
      `(${formatCents(pc.from_price_cents)} ${pc.currency} per month). This month's amount is corrected on your next invoice.`;
    return { pc, summary };
  }

  const planMovedOn = async (
    pc: { id: string; subscription_id: string; to_plan_version_id: string; created_at: Date | string },
    planVersionId: string,
  ) => planVersionId !== pc.to_plan_version_id || (await repo.changedSince(db, pc.subscription_id, pc.id, new Date(pc.created_at)));

  /** What undoing a contact link writes now (walking back later linked edits), or null: moved on. */
  const contactUndo = async (link: links.RollbackLinkRow, ex: Parameters<typeof links.findLaterContactLinks>[0] = db) => {
    const asLink = (l: { id: string; restore: unknown; expected: unknown }) => ({
      id: l.id,
      restore: l.restore as links.ContactColumns,
      expected: l.expected as links.ContactColumns,
    });
    const later = (await links.findLaterContactLinks(ex, link)).map(asLink);
    const own = asLink(link);
    const cols = [...new Set([own, ...later].flatMap((l) => [...Object.keys(l.restore), ...Object.keys(l.expected)]))].filter(
      subscribers.isContactColumn,
    );
    const current = await subscribers.readContactColumns(ex, link.subscriber_id, cols);
    const undo = resolveContactUndo(own, later, current);
    return undo && { ...undo, current };
  };

  /** GET: what the link would undo, or why it cannot; no side effect. */
  async function view(token: string): Promise<RollbackView> {
    const l = await load(token);
    if (l.state !== 'ready') return { state: l.state };
    const link = l.link;
    if (link.kind === 'plan') {
      const { pc, summary } = await planSummary(link);
      const sub = await repo.currentPlanOf(db, pc.subscription_id);
      if (!sub || (await planMovedOn(pc, sub.plan_version_id))) return { state: 'moved_on', kind: 'plan' };
      return { state: 'ready', kind: 'plan', summary };
    }
    const undo = await contactUndo(link);
    if (!undo) return { state: 'moved_on', kind: 'contact' };
    return { state: 'ready', kind: 'contact', summary: `Restore your previous ${contactFields(undo.values).join(', ')}.` };
  }

  /** POST: undoes the change (one transaction with its audit entry and the link's use), or says why not. */
  async function perform(token: string, requestId: string): Promise<RollbackView> {
    const l = await load(token);
    if (l.state !== 'ready') return { state: l.state };
    const link = l.link;
    try {
      return link.kind === 'plan' ? await rollbackPlan(link, requestId) : await rollbackContact(link, requestId);
    } catch (err) {
      if (err instanceof Refused) return { state: err.state, kind: link.kind as 'contact' | 'plan', reason: err.reason };
      throw err;
    }
  }

  async function consume(trx: Parameters<typeof links.consumeRollbackLink>[0], id: string) {
    // Two clicks at once: the second waits on the row lock the first holds, then finds the link used.
    if (!(await links.consumeRollbackLink(trx, id, clock.now()))) throw new Refused('used');
  }

  async function rollbackPlan(link: links.RollbackLinkRow, requestId: string): Promise<RollbackView> {
    const { pc, summary } = await planSummary(link);
    try {
      await planChange.apply({
        source: 'rollback',
        providerId: link.provider_id,
        customerId: link.subscriber_id,
        subscriptionId: pc.subscription_id,
        planVersionId: pc.from_plan_version_id,
        actor,
        requestId,
        rollback: {
          planChangeId: pc.id,
          guard: async (trx, sub) => {
            if (
              sub.plan_version_id !== pc.to_plan_version_id ||
              (await repo.changedSince(trx, pc.subscription_id, pc.id, new Date(pc.created_at)))
            ) {
              throw new Refused('moved_on');
            }
            await consume(trx, link.id);
          },
        },
      });
    } catch (err) {
      // Only the subscription's own state can refuse a rollback now (e.g. it was suspended or cancelled).
      if (err instanceof AppError && err.status === 409) throw new Refused('not_possible', err.message);
      if (err instanceof AppError && err.status === 404) throw new Refused('moved_on');
      throw err;
    }
    return { state: 'done', kind: 'plan', summary };
  }

  async function rollbackContact(link: links.RollbackLinkRow, requestId: string): Promise<RollbackView> {
    let restored: links.ContactColumns = {};
    try {
      await db.transaction().execute(async (trx) => {
        if (!(await lockOwnedSubscriber(trx, link.provider_id, link.subscriber_id))) throw new Refused('moved_on');
        const undo = await contactUndo(link, trx);
        if (!undo) throw new Refused('moved_on');
        await consume(trx, link.id);
        const now = clock.now();
        await links.useRollbackLinks(trx, undo.chain, now);
        restored = undo.values;
        const cols = Object.keys(restored).filter(subscribers.isContactColumn);
        await subscribers.writeContactColumns(trx, link.subscriber_id, Object.fromEntries(cols.map((c) => [c, restored[c]])), now);
        await recordAudit(trx, {
          ...actor,
          providerId: link.provider_id,
          action: 'customer.contact.rollback',
          entityType: 'customer',
          entityId: link.subscriber_id,
          before: { contact_type: link.contact_type, ...Object.fromEntries(cols.map((c) => [c, undo.current[c]])) },
          after: { contact_type: link.contact_type, ...restored, rollback_link_id: link.id, undone_later_links: undo.chain },
          requestId,
          at: now,
        });
      });
    } catch (err) {
      if (isUniqueViolation(err, 'subscribers_provider_email_key')) {
        throw new Refused(
          'conflict',
          'The previous email address is now used by another account of this provider. Please contact support.',
        );
      }
      throw err;
    }
    return { state: 'done', kind: 'contact', summary: `Restored your previous ${contactFields(restored).join(', ')}.` };
  }

  return { view, perform };
}
