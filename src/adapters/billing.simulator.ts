import { createHash } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Db } from '../db/database.js';
import { isUuid } from '../lib/ids.js';
import { fastifyPath, IDEMPOTENCY_KEY_RE, type ContractOperation } from './contracts/contract.js';
import { billingContract } from './contracts/billing.contract.js';
import type { SimFaultControl } from './faults.js';
import { SimRefusal, type SimulatorPlugin } from './simulator-server.js';
import { findBillingSchedule, findCreditNoteRow, listCreditNoteRows, upsertBillingSchedule } from './simulator.repository.js';
import type { BillingCreditNote, BillingSystem } from './types.js';

/** The billing system adapter (HTTP, against the simulator server) with its test-facing extras. */
export interface BillingSystemSimulator extends BillingSystem {
  readonly faults: SimFaultControl;
  /** The send date the billing system holds for the subscription's next recurring invoice (null: never rescheduled). */
  getNextInvoiceSendDate(subscriptionId: string): Promise<string | null>;
}

export async function readSimulatedSendDate(db: Db, subscriptionId: string): Promise<string | null> {
  if (!isUuid(subscriptionId)) return null;
  return (await findBillingSchedule(db, subscriptionId))?.next_send_date ?? null;
}

const CREDIT_NOTE_STATES = new Set<BillingCreditNote['state']>(['draft', 'open', 'refunded', 'paid_out', 'applied', 'archived', 'voided']);

function wire(r: NonNullable<Awaited<ReturnType<typeof findCreditNoteRow>>>) {
  if (!CREDIT_NOTE_STATES.has(r.state as BillingCreditNote['state'])) {
    throw new SimRefusal(500, 'internal_error', `credit note ${r.id} has an unknown state`);
  }
  return {
    id: r.id,
    number: r.number,
    state: r.state,
    amount_cents: r.amount_cents,
    currency: r.currency.trim(),
    reason: r.reason,
    issued_at: r.issued_at.toISOString(),
    subscriber_id: r.subscriber_id,
    subscription_id: r.subscription_id,
  };
}

const op = (id: string): ContractOperation => billingContract.operations.find((o) => o.operationId === id)!;
const KEPT_KEYS = 10_000;

/**
 * The billing system simulator, as a plugin of the simulator server implementing
 * openapi/adapters/billing.json. Its credit-note store is the `credit_notes` table, returned as-is
 * in every state (drafts, archived and voided included: filtering is the service's rule). Invoice
 * send dates go to `sim_billing_schedules`, durable like the real system's schedule. The
 * Idempotency-Keys of reschedules are kept in memory (the last 10,000): a restart forgets them,
 * which the absolute date makes harmless.
 */
export const billingSimulator: SimulatorPlugin = {
  name: 'billing',
  signed: true,
  async plugin(instance, ctx) {
    const db = ctx.db;
    if (!db) throw new Error('the billing simulator keeps its credit notes in the database: give the simulator server a db');
    const app = instance.withTypeProvider<ZodTypeProvider>();
    const keys = new Map<string, { fingerprint: string; answer: unknown }>();

    const list = op('listCreditNotes');
    app.get(fastifyPath(list.path), { schema: { params: list.params } }, async (request) => {
      const { subscriber_id } = request.params as { subscriber_id: string };
      return { data: (await listCreditNoteRows(db, subscriber_id)).map(wire) };
    });

    const get = op('getCreditNote');
    app.get(fastifyPath(get.path), { schema: { params: get.params } }, async (request) => {
      const { credit_note_id } = request.params as { credit_note_id: string };
      const row = isUuid(credit_note_id) ? await findCreditNoteRow(db, credit_note_id) : undefined;
      if (!row) throw new SimRefusal(404, 'not_found', `no credit note ${credit_note_id}`);
      return wire(row);
    });

    const reschedule = op('rescheduleNextInvoice');
    app.put(fastifyPath(reschedule.path), { schema: { params: reschedule.params, body: reschedule.body } }, async (request) => {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || !IDEMPOTENCY_KEY_RE.test(key)) {
        throw new SimRefusal(400, 'invalid_request', 'Idempotency-Key must be 1 to 200 printable ASCII characters');
      }
      const { subscription_id } = request.params as { subscription_id: string };
      const { send_date } = request.body as { send_date: string };
      const fingerprint = createHash('sha256').update(`${subscription_id}\n${send_date}`).digest('hex');
      const prior = keys.get(key);
      if (prior) {
        if (prior.fingerprint !== fingerprint)
          throw new SimRefusal(409, 'idempotency_key_reused', `Idempotency-Key ${key} was used with another body`);
        return prior.answer;
      }
      await upsertBillingSchedule(db, { subscriptionId: subscription_id, sendDate: send_date, at: ctx.clock.now() });
      const answer = { subscription_id, next_send_date: send_date };
      if (keys.size >= KEPT_KEYS) keys.delete(keys.keys().next().value!);
      keys.set(key, { fingerprint, answer });
      return answer;
    });
  },
};
