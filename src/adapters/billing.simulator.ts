import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { isUuid } from '../lib/ids.js';
import { createFaults, simulateCall, type SimFaultControl } from './faults.js';
import { findBillingSchedule, findCreditNoteRow, listCreditNoteRows, upsertBillingSchedule } from './simulator.repository.js';
import { AdapterError, type BillingCreditNote, type BillingSystem } from './types.js';

export interface BillingSystemSimulator extends BillingSystem {
  readonly faults: SimFaultControl;
  /** The send date the billing system holds for the subscription's next recurring invoice (null: never rescheduled). */
  getNextInvoiceSendDate(subscriptionId: string): Promise<string | null>;
}

const CREDIT_NOTE_STATES = new Set<BillingCreditNote['state']>(['draft', 'open', 'refunded', 'paid_out', 'applied', 'archived', 'voided']);

function toCreditNote(r: NonNullable<Awaited<ReturnType<typeof findCreditNoteRow>>>): BillingCreditNote {
  const state = r.state as BillingCreditNote['state'];
  if (!CREDIT_NOTE_STATES.has(state)) throw new AdapterError('billing', 'failed', `credit note ${r.id} has an unknown state`);
  return {
    id: r.id,
    number: r.number,
    state,
    amount_cents: r.amount_cents,
    currency: r.currency.trim(),
    reason: r.reason,
    issued_at: r.issued_at,
    subscriber_id: r.subscriber_id,
    subscription_id: r.subscription_id,
  };
}

function isCalendarDate(s: unknown): s is string {
  if (typeof s !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * The billing system simulator. Its credit-note store is the `credit_notes` table, returned as-is
 * in every state (drafts, archived and voided included: filtering is the service's rule). Invoice
 * send dates go to `sim_billing_schedules`, durable like the real system's schedule, so a restart
 * keeps them and a test can check them in the database.
 */
export function createBillingSimulator({ db, clock, timeoutMs }: { db: Db; clock: Clock; timeoutMs?: number }): BillingSystemSimulator {
  const faults = createFaults(timeoutMs);
  return {
    faults: faults.control,

    listCreditNotes(subscriberId) {
      return simulateCall('billing', faults, async () => {
        if (!isUuid(subscriberId)) return [];
        return (await listCreditNoteRows(db, subscriberId)).map(toCreditNote);
      });
    },

    getCreditNote(id) {
      return simulateCall('billing', faults, async () => {
        if (!isUuid(id)) return null;
        const row = await findCreditNoteRow(db, id);
        return row ? toCreditNote(row) : null;
      });
    },

    rescheduleNextInvoice(req) {
      return simulateCall('billing', faults, async () => {
        if (typeof req?.subscriptionId !== 'string' || !isUuid(req.subscriptionId)) {
          throw new AdapterError('billing', 'failed', 'subscriptionId must be a UUID');
        }
        if (!isCalendarDate(req.sendDate)) throw new AdapterError('billing', 'failed', 'sendDate must be a calendar date YYYY-MM-DD');
        await upsertBillingSchedule(db, { subscriptionId: req.subscriptionId, sendDate: req.sendDate, at: clock.now() });
      });
    },

    async getNextInvoiceSendDate(subscriptionId) {
      if (!isUuid(subscriptionId)) return null;
      return (await findBillingSchedule(db, subscriptionId))?.next_send_date ?? null;
    },
  };
}
