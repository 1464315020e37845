import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { actorOf } from '../../plugins/auth.js';
import { describeRoute, err, IdempotencyHeaders, SECURITY_KEY, StandardRateLimit, Timestamp, Uuid } from './common.schemas.js';

const TicketBody = z
  .object({
    customer_id: Uuid.optional().describe(
      'The customer (from search), when identified; must be a customer of your provider. Verification is not needed',
    ),
    contact_email: z
      .email()
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
  });

export const ticketRoutes: FastifyPluginAsyncZod = async (app) => {
  const tickets = app.services.tickets;

  app.post(
    '/tickets',
    {
      config: { rateLimit: limit('agent.tickets') },
      preHandler: [idempotent],
      schema: {
        operationId: 'createTicket',
        tags: ['escalate'],
        summary: "Escalate to a human: open a ticket in the provider's support queue",
        description: describeRoute(
          'The escalation path: works for unverified callers. Give customer_id (a customer of your provider; 404 customer_not_found otherwise) or contact_email (one of the two is required). ' +
            "ai_summary and ai_diagnosis become the customer-facing article; transcript is kept as an internal staff-only comment. The ticket goes to the provider's support queue and its support address is notified. " +
            "Send X-Verified-Session when the caller was verified for customer_id: only then is the ticket listed with caller_verified: true in the customer's ticket history (an unverified caller's ticket holds their claim, not instructions). " +
            'Accepts Idempotency-Key: retry with the same key after a timeout rather than opening a second ticket.',
        ),
        security: SECURITY_KEY,
        headers: IdempotencyHeaders,
        body: TicketBody,
        response: {
          201: z.object({
            ticket_id: z.string().describe('Id of the new ticket: quote it to the caller'),
            status: z.literal('open').describe('New tickets are open'),
            priority: z.enum(['low', 'normal', 'high']).describe('The priority given'),
            subject: z.string().describe('The subject line (given or derived from ai_summary)'),
            queue: z.string().describe('The support queue it was routed to').meta({ example: 'support' }),
            created_at: Timestamp.describe('When the ticket was opened'),
          }),
          400: err('validation_error: neither customer_id nor contact_email, or another field fails its schema (`details` names it)'),
          403: err('invalid_api_key or feature_not_enabled'),
          404: err('customer_not_found: customer_id is not a customer of your provider'),
          409: err('idempotency_in_progress: the first request with this Idempotency-Key is still running'),
          422: err('idempotency_key_reused: this Idempotency-Key was used with another body'),
          429: StandardRateLimit,
          500: err('internal_error'),
        },
      },
    },
    async (request, reply) => {
      const session = request.headers['x-verified-session'];
      const r = await tickets.createFromAgent(
        { ...actorOf(request), providerId: request.apiKey!.providerId, requestId: String(request.id) },
        request.body,
        Array.isArray(session) ? session[0] : session,
      );
      return reply.code(201).send(r);
    },
  );
};
