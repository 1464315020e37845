import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import { newId } from '../../lib/ids.js';
import { mailBrand, ticketNotificationMail } from '../../mail/templates.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { subscriberNotFound, findSubscriberIdByEmail, findOwnedSubscriber } from '../subscribers/index.js';
import { getProvider } from '../providers/index.js';
import { findSessionByHash, judgeSession, sessionTokenHash } from '../verified-sessions/index.js';
import * as repo from './tickets.repository.js';

/** Tickets from the agent land in the provider's support queue. */
const SUPPORT_QUEUE = 'support';
const SUBJECT_MAX = 200;

interface Caller extends Actor {
  providerId: string;
  requestId: string;
}

export interface AgentTicketInput {
  customer_id?: string;
  contact_email?: string;
  priority: 'low' | 'normal' | 'high';
  subject?: string;
  ai_summary: string;
  ai_diagnosis?: string;
  transcript?: string;
}

/** The first line of the summary, cut at a word boundary: what a support queue shows. */
function subjectFromSummary(summary: string): string {
  const line =
    summary
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? 'Support request';
  if (line.length <= 120) return line;
  const cut = line.slice(0, 120);
  const space = cut.lastIndexOf(' ');
  return `${(space > 60 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The customer-facing article: the summary, then the diagnosis under its own heading. */
function composeArticle(summary: string, diagnosis?: string): string {
  const parts = [`Summary\n${summary.trim()}`];
  if (diagnosis && diagnosis.trim()) parts.push(`Diagnosis\n${diagnosis.trim()}`);
  return parts.join('\n\n');
}

export interface TicketsDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Config;
}

export function createTicketsService({ db, clock, mailer, config }: TicketsDeps) {
  /**
   * `verifiedSession` is the request's X-Verified-Session, if any: the ticket is marked
   * caller_verified only when it is a live session of this provider for the ticket's customer_id.
   * Without one (an unverified caller may open tickets) the ticket's text is the caller's claim.
   */
  async function createFromAgent(caller: Caller, input: AgentTicketInput, verifiedSession?: string) {
    return db.transaction().execute(async (trx) => {
      let customer: { id: string; email: string; first_name?: string; last_name?: string; customer_number?: string | null } | undefined;
      if (input.customer_id) {
        customer = await findOwnedSubscriber(trx, caller.providerId, input.customer_id);
        if (!customer) throw subscriberNotFound();
      } else {
        // Linked internally when the address is a customer's on file; the answer does not say so.
        customer = await findSubscriberIdByEmail(trx, caller.providerId, input.contact_email!);
      }
      const provider = await getProvider(trx, caller.providerId);
      const now = clock.now();
      const hash = input.customer_id && verifiedSession ? sessionTokenHash(verifiedSession) : undefined;
      const callerVerified = Boolean(
        hash && customer && judgeSession(await findSessionByHash(trx, hash), caller.providerId, customer.id, now) === 'ok',
      );
      const id = newId();
      const contactEmail = input.contact_email ?? customer!.email;
      const subject = (input.subject?.trim() || subjectFromSummary(input.ai_summary)).slice(0, SUBJECT_MAX);
      const article = composeArticle(input.ai_summary, input.ai_diagnosis);
      await repo.insertTicket(trx, {
        id,
        providerId: caller.providerId,
        subscriberId: customer?.id ?? null,
        contactEmail,
        subject,
        priority: input.priority,
        queue: SUPPORT_QUEUE,
        article,
        callerVerified,
        now,
      });
      let transcriptCommentId: string | null = null;
      if (input.transcript && input.transcript.trim()) {
        transcriptCommentId = newId();
        await repo.insertComment(trx, {
          id: transcriptCommentId,
          ticketId: id,
          public: false,
          author: 'ai_agent',
          body: input.transcript,
          now,
        });
      }
      // Routed to the provider's support queue: the notification is part of the same commit.
      const note = ticketNotificationMail(
        { brand: mailBrand(provider), baseUrl: config.publicBaseUrl },
        {
          ticketId: id,
          subject,
          priority: input.priority,
          queue: SUPPORT_QUEUE,
          contactEmail,
          customer:
            input.customer_id && customer && 'first_name' in customer
              ? { name: `${customer.first_name} ${customer.last_name}`, customerNumber: customer.customer_number }
              : null,
          article,
          source: 'ai_agent',
          callerVerified,
        },
      );
      await mailer.enqueue(trx, { to: note.to, subject: note.subject, text: note.text, html: note.html, tag: note.tag });
      await recordAudit(trx, {
        actorType: caller.actorType,
        actor: caller.actor,
        providerId: caller.providerId,
        requestId: caller.requestId,
        action: 'agent.ticket.create',
        entityType: 'ticket',
        entityId: id,
        after: {
          ticket_id: id,
          subscriber_id: customer?.id ?? null,
          caller_verified: callerVerified,
          priority: input.priority,
          subject,
          queue: SUPPORT_QUEUE,
          transcript_comment_id: transcriptCommentId,
        },
        at: now,
      });
      return {
        ticket_id: id,
        status: 'open' as const,
        priority: input.priority,
        subject,
        queue: SUPPORT_QUEUE,
        created_at: now.toISOString(),
      };
    });
  }

  async function listForSubscriber(providerId: string, customerId: string, limit: number) {
    const customer = await findOwnedSubscriber(db, providerId, customerId);
    if (!customer) throw subscriberNotFound();
    const emails = [customer.email, customer.invoice_email].filter((e): e is string => Boolean(e));
    const rows = await repo.listSubscriberTickets(db, providerId, customer.id, emails, limit);
    return {
      customer_id: customer.id,
      tickets: rows.map((t) => ({
        ticket_id: t.id,
        subject: t.subject,
        status: t.status as 'open' | 'pending' | 'solved' | 'closed',
        priority: t.priority as 'low' | 'normal' | 'high',
        queue: t.queue,
        // Verified for the customer the session was for: a ticket reaching this history by its contact
        // email alone was opened by someone else's verified caller, so it is this customer's claim of nobody.
        caller_verified: t.caller_verified && t.subscriber_id === customer.id,
        article: t.article,
        created_at: new Date(t.created_at).toISOString(),
        updated_at: new Date(t.updated_at).toISOString(),
      })),
    };
  }

  return { createFromAgent, listForSubscriber };
}

/** @public The type of what the container builds. */
export type TicketsService = ReturnType<typeof createTicketsService>;
