// The billing rows a plan change writes for its one-time adjustment (inside the apply transaction).
import type { Transaction } from 'kysely';
import type { DB } from '../../db/types.js';
import { newId } from '../../lib/ids.js';
import { formatCents } from '../../lib/money.js';
import { creditNoteNumber, foldCarried, insertCreditNote, insertPendingAdjustment, monthLabel } from '../invoices/index.js';
import * as repo from './plan-change.repository.js';
import type { CalendarPosition } from './plan-change.quote.js';
import type { Quote } from './plan-change.types.js';

export interface AdjustmentContext {
  sub: NonNullable<repo.SubscriptionRow>;
  currentPlan: repo.PlanVersionRow;
  newPlan: repo.PlanVersionRow;
  pos: CalendarPosition;
  quote: Quote;
  planChangeId: string;
  now: Date;
}

/**
 * Upgrade: a pending `upgrade_line` for the next monthly invoice. Downgrade: an `open` credit note,
 * issued now. None: this change's own part as a `carried_correction`. The carried rows the
 * adjustment settled are closed. The null cases write nothing.
 */
export async function writeAdjustment(trx: Transaction<DB>, c: AdjustmentContext): Promise<void> {
  const { sub, pos, quote: q, planChangeId, now } = c;
  const adj = q.adjustment;
  if (!adj) return;
  const what = `Plan change ${c.currentPlan.name} → ${c.newPlan.name} on ${pos.today}: ${pos.days} of ${pos.daysInPeriod} days of ${monthLabel(pos.month)}`;
  const carriedText = adj.carriedInCents !== 0 ? ` (includes carried correction ${formatCents(adj.carriedInCents)} ${q.currency})` : '';
  const base = { provider_id: sub.provider_id, subscription_id: sub.id, plan_change_id: planChangeId };
  if (adj.type === 'next_invoice_line') {
    await insertPendingAdjustment(trx, {
      ...base,
      id: newId(),
      kind: 'upgrade_line',
      amount_cents: adj.amountCents,
      description: `${what} at the new price${carriedText}`,
      created_at: now,
    });
  } else if (adj.type === 'credit') {
    await insertCreditNote(trx, {
      ...base,
      id: newId(),
      subscriber_id: sub.subscriber_id,
      number: creditNoteNumber(pos.month),
      amount_cents: -adj.amountCents,
      currency: q.currency,
      reason: `${what} at the lower price${carriedText}`,
      issued_at: now,
    });
  } else if (adj.carryForwardCents !== 0) {
    await insertPendingAdjustment(trx, {
      ...base,
      id: newId(),
      kind: 'carried_correction',
      amount_cents: adj.carryForwardCents,
      description: `${what}: correction under 0.50 carried into the next correction`,
      created_at: now,
    });
  }
  await foldCarried(trx, q.carriedIds, planChangeId);
}
