import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { actorOf, apiKeyOf } from '../../plugins/auth.js';
import { IdempotencyHeaders, Timestamp, untrusted, Uuid } from './common.schemas.js';

const TicketBody = z
  .object({
    customer_id: Uuid.optional().describe(
      'The customer (from search), when identified; must be a customer of your provider. Verification is not needed',
    ),
    contact_email: emailAddress()
      .max(254)
      .optional()
      .describe('Where support replies, when the caller is not identified (or to use another address than the one on file)')
      .meta({ example: 'caller@example.com' }),
    priority: z
      .enum(['low', 'normal', 'high'])
      .describe('"high": service down or security concern; "normal": most cases; "low": questions without urgency')
      .meta({ example: 'normal' }),
    subject: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('One-line subject; when omitted, the first line of ai_summary (cut to 120 characters)')
      .meta({ example: 'Internet drops every evening' }),
    ai_summary: z
      .string()
      .trim()
      .min(1)
      .max(10000)
      .describe('What the customer needs, in plain words: goes into the customer-facing ticket article')
      .meta({ example: 'Customer reports the connection drops every evening around 20:00 since Monday.' }),
    ai_diagnosis: z
      .string()
      .trim()
      .max(10000)
      .optional()
      .describe('What you checked and concluded: appended to the customer-facing article under "Diagnosis"')
      .meta({
        example: 'Modem online, no open incident; provisioning succeeded. Likely in-home Wi-Fi congestion; needs a technician call-back.',
      }),
    transcript: z
      .string()
      .max(100000)
      .optional()
      .describe('The conversation transcript: stored as an internal comment for staff only, never shown to the customer'),
  })
  .refine((b) => b.customer_id !== undefined || b.contact_email !== undefined, {
    message: 'send customer_id or contact_email',
    path: ['customer_id'],
  })
  // The refinement, in the document: a generated client knows one of the two is required.
  .meta({ anyOf: [{ required: ['customer_id'] }, { required: ['contact_email'] }] });

export const ticketRoutes: FastifyPluginAsyncZod = async (app) => {
  const tickets = app.services.tickets;

  app.post(
    '/tickets',
    {
      config: { rateLimit: limit('agent.tickets') },
      preHandler: [idempotent],
      // A 100,000-character transcript and two 10,000-character texts.
      bodyLimit: 512 * 1024,
      schema: {
        operationId: 'createTicket',
        tags: ['escalate'],
        summary: "Escalate to a human: open a ticket in the provider's support queue",
        headers: IdempotencyHeaders,
        body: TicketBody,
        response: {
          201: z.object({
            ticket_id: z.string().describe('Id of the new ticket: quote it to the caller'),
            status: z.literal('open').describe('New tickets are open'),
            priority: z.enum(['low', 'normal', 'high']).describe('The priority given'),
            subject: untrusted(z.string().describe('The subject line (given or derived from ai_summary)')),
            queue: z.string().describe('The support queue it was routed to').meta({ example: 'support' }),
            created_at: Timestamp.describe('When the ticket was opened'),
          }),
        },
      },
    },
    async (request, reply) => {
      const session: unknown = request.headers['x-verified-session'];
      const r = await tickets.createFromAgent(
        { ...actorOf(request), providerId: apiKeyOf(request).providerId, requestId: String(request.id) },
        request.body,
        typeof session === 'string' ? session : undefined,
      );
      return reply.code(201).send(r);
    },
  );
};
