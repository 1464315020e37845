import type { Executor } from '../../db/executor.js';

export interface NewTicket {
  id: string;
  providerId: string;
  subscriberId: string | null;
  contactEmail: string;
  subject: string;
  priority: 'low' | 'normal' | 'high';
  queue: string;
  article: string;
  /** Opened with a live verified session for subscriberId. */
  callerVerified: boolean;
  now: Date;
}

export async function insertTicket(db: Executor, t: NewTicket) {
  await db
    .insertInto('tickets')
    .values({
      id: t.id,
      provider_id: t.providerId,
      subscriber_id: t.subscriberId,
      contact_email: t.contactEmail,
      subject: t.subject,
      priority: t.priority,
      status: 'open',
      queue: t.queue,
      source: 'ai_agent',
      article: t.article,
      caller_verified: t.callerVerified,
      created_at: t.now,
      updated_at: t.now,
    })
    .execute();
}

export async function insertComment(
  db: Executor,
  c: { id: string; ticketId: string; public: boolean; author: string; body: string; now: Date },
) {
  await db
    .insertInto('ticket_comments')
    .values({ id: c.id, ticket_id: c.ticketId, public: c.public, author: c.author, body: c.body, created_at: c.now })
    .execute();
}

/** The customer's tickets: linked to the customer, or opened with an email address on file. */
export function listSubscriberTickets(db: Executor, providerId: string, customerId: string, emails: string[], limit: number) {
  const lowered = [...new Set(emails.map((e) => e.toLowerCase()))];
  return db
    .selectFrom('tickets')
    .select([
      'id',
      'subscriber_id',
      'subject',
      'status',
      'priority',
      'queue',
      'source',
      'caller_verified',
      'article',
      'created_at',
      'updated_at',
    ])
    .where('provider_id', '=', providerId)
    .where((eb) => {
      const bySubscriber = eb('subscriber_id', '=', customerId);
      return lowered.length ? eb.or([bySubscriber, eb(eb.fn('lower', ['contact_email']), 'in', lowered)]) : bySubscriber;
    })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
