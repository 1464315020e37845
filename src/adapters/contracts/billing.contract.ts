import { z } from 'zod';
import type { Contract, ContractOperation } from './contract.js';

/** A credit note id of the billing system: anything URL-safe (this server passes it back as given). */
export const CREDIT_NOTE_ID_RE = /^[A-Za-z0-9._~:-]{1,200}$/;

export const creditNote = z
  .object({
    id: z.string().regex(CREDIT_NOTE_ID_RE).describe("The billing system's id of the credit note."),
    number: z.string().min(1).max(100).describe('The number printed on the credit note.'),
    state: z
      .enum(['draft', 'open', 'refunded', 'paid_out', 'applied', 'archived', 'voided'])
      .describe('Every state is returned; which ones subscribers see is decided by this server.'),
    amount_cents: z.int().describe('Integer cents, positive.'),
    currency: z.string().regex(/^[A-Z]{3}$/),
    reason: z.string().max(2000),
    issued_at: z.iso.datetime({ offset: true }),
    subscriber_id: z.uuid().describe("This server's subscriber id."),
    subscription_id: z.uuid().nullable().describe("This server's subscription id, null when the note is not tied to one."),
  })
  .meta({ id: 'CreditNote' });

const subscriberParams = z.object({ subscriber_id: z.uuid().describe("This server's subscriber id.") });

const operations: ContractOperation[] = [
  {
    operationId: 'listCreditNotes',
    method: 'GET',
    path: '/subscribers/{subscriber_id}/credit-notes',
    summary: "List a subscriber's credit notes",
    description:
      'Every credit note of the subscriber, in every state, newest first. A subscriber the billing system does not know has none: ' +
      '200 with an empty list (not 404). Called while a subscriber waits: answer within the 5 s timeout.',
    params: subscriberParams,
    idempotent: false,
    ok: { schema: z.object({ data: z.array(creditNote) }), description: 'The credit notes (possibly none).' },
    errors: {},
  },
  {
    operationId: 'getCreditNote',
    method: 'GET',
    path: '/credit-notes/{credit_note_id}',
    summary: 'Read one credit note',
    description: 'One credit note by its id, for its PDF. Called while a subscriber waits.',
    params: z.object({ credit_note_id: z.string().regex(CREDIT_NOTE_ID_RE) }),
    idempotent: false,
    ok: { schema: creditNote, description: 'The credit note.' },
    errors: { 404: 'not_found: no credit note has this id (this server answers its own 404).' },
  },
  {
    operationId: 'rescheduleNextInvoice',
    method: 'PUT',
    path: '/subscriptions/{subscription_id}/next-invoice',
    summary: "Move the next recurring invoice's send date",
    description:
      "Sets the date on which the billing system sends the subscription's next recurring invoice (a subscriber changed their " +
      'billing day, or the monthly run moved it). An absolute value: setting the same date twice is harmless. Idempotency-Key ' +
      'names the call: a repeat with the same key and body answers the first answer without applying again; the same key with ' +
      'another body answers 409. A subscription the billing system does not know yet is created in its schedule.',
    params: z.object({ subscription_id: z.uuid().describe("This server's subscription id.") }),
    body: z.object({ send_date: z.iso.date().describe('The calendar date (YYYY-MM-DD) to send the next invoice on.') }).strict(),
    idempotent: true,
    ok: {
      schema: z.object({ subscription_id: z.uuid(), next_send_date: z.iso.date() }),
      description: 'The schedule as the billing system now holds it.',
    },
    errors: { 409: 'idempotency_key_reused: the key was used before with another body. Nothing changed.' },
  },
];

export const billingContract: Contract = {
  system: 'billing',
  title: 'Billing system contract',
  description:
    "What this server asks of a provider's billing system: its credit notes (shown to subscribers) and the send date of the next " +
    'recurring invoice. The provider implements these operations at a base URL of its choice (https); the operator of this server ' +
    'sets BILLING_URL to it and shares BILLING_SECRET with it.',
  operations,
};
