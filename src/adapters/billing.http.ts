import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { isUuid } from '../lib/ids.js';
import type { ContractClient } from './contract-client.js';
import { IDEMPOTENCY_KEY_RE, type ContractOperation } from './contracts/contract.js';
import { billingContract, CREDIT_NOTE_ID_RE, type creditNote } from './contracts/billing.contract.js';
import { noFaults } from './switch.http.js';
import { AdapterError, type BillingCreditNote, type BillingSystem, type FaultControl } from './types.js';

const op = (id: string): ContractOperation => billingContract.operations.find((o) => o.operationId === id)!;
const LIST = op('listCreditNotes');
const GET = op('getCreditNote');
const RESCHEDULE = op('rescheduleNextInvoice');

type WireCreditNote = z.infer<typeof creditNote>;
const toCreditNote = (n: WireCreditNote): BillingCreditNote => ({ ...n, issued_at: new Date(n.issued_at) });

/**
 * The billing system over its published HTTP contract (openapi/adapters/billing.json). Subscriber
 * ids are this server's UUIDs and credit-note ids are URL-safe by the contract: anything else cannot
 * exist there, so it answers none without a call.
 */
export function createHttpBillingSystem(o: { client: ContractClient; faults?: FaultControl }): BillingSystem {
  const { client } = o;
  return {
    faults: o.faults ?? noFaults('the billing system at BILLING_URL'),

    async listCreditNotes(subscriberId) {
      if (!isUuid(subscriberId)) return [];
      const answer = await client.send(LIST, { params: { subscriber_id: subscriberId } });
      if (answer.status !== 200) throw client.refusal(answer, LIST);
      return client.read<{ data: WireCreditNote[] }>(answer, LIST).data.map(toCreditNote);
    },

    async getCreditNote(id) {
      if (typeof id !== 'string' || !CREDIT_NOTE_ID_RE.test(id)) return null;
      const answer = await client.send(GET, { params: { credit_note_id: id } });
      if (answer.status === 404) return null;
      if (answer.status !== 200) throw client.refusal(answer, GET);
      return toCreditNote(client.read<WireCreditNote>(answer, GET));
    },

    async rescheduleNextInvoice(req) {
      // A caller without an operation key makes one call: a fresh key (the PUT sets an absolute date, so a
      // later call with the same date and another key is harmless).
      const key = req.operationKey ?? `reschedule:${randomUUID()}`;
      if (!IDEMPOTENCY_KEY_RE.test(key))
        throw new AdapterError('billing', 'failed', 'operationKey must be 1 to 200 printable ASCII characters');
      const answer = await client.send(RESCHEDULE, {
        params: { subscription_id: String(req.subscriptionId) },
        body: { send_date: req.sendDate },
        idempotencyKey: key,
      });
      if (answer.status !== 200) throw client.refusal(answer, RESCHEDULE);
      client.read(answer, RESCHEDULE);
    },
  };
}
