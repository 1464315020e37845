import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { actorOf, apiKeyOf } from '../../plugins/auth.js';
import { CustomerParams, IdempotencyHeaders, Timestamp, untrusted } from './common.schemas.js';
import { requireOwnedCustomer, requireVerifiedSession } from './verified-session.js';

const Name = z.string().trim().min(1).max(100);

const ContactBody = z
  .object({
    contact_type: z
      .enum(['contract', 'invoice'])
      .default('contract')
      .describe('"contract" (default): the contract holder\'s contact; "invoice": the invoice recipient\'s contact'),
    first_name: Name.optional().describe('New first name').meta({ example: 'Erika' }),
    last_name: Name.optional().describe('New last name').meta({ example: 'Musterfrau' }),
    email: emailAddress().max(254).optional().describe('New email address').meta({ example: 'erika.new@example.com' }),
    phone: z
      .string()
      .trim()
      .min(3)
      .max(40)
      .optional()
      .describe('New phone number, any formatting; must be a valid number (international format is safest)')
      .meta({ example: '+49 151 23456789' }),
  })
  .refine((b) => b.first_name !== undefined || b.last_name !== undefined || b.email !== undefined || b.phone !== undefined, {
    message: 'send at least one of first_name, last_name, email, phone',
    path: ['body'],
  })
  .meta({ anyOf: ['first_name', 'last_name', 'email', 'phone'].map((f) => ({ required: [f] })) });

const caller = (request: FastifyRequest) => ({
  ...actorOf(request),
  providerId: apiKeyOf(request).providerId,
  requestId: String(request.id),
});

export const customerWriteRoutes: FastifyPluginAsyncZod = async (app) => {
  const changes = app.services.subscriberChanges;
  const copies = app.services.invoiceCopies;
  const notes = app.services.notes;
  const common = { config: { rateLimit: limit('agent.write') }, preValidation: [requireOwnedCustomer] };

  app.patch(
    '/customers/:customerId/contact',
    {
      ...common,
      preHandler: [requireVerifiedSession],
      schema: {
        operationId: 'updateCustomerContact',
        tags: ['change'],
        summary: 'Change contact details (verified)',
        params: CustomerParams,
        body: ContactBody,
        response: {
          200: z.object({
            customer_id: z.string().describe('The customer id (UUID)'),
            contact_type: z.enum(['contract', 'invoice']).describe('Which contact was changed'),
            contact: z
              .object({
                first_name: untrusted(z.string().nullable().describe('First name')),
                last_name: untrusted(z.string().nullable().describe('Last name')),
                email: untrusted(z.string().nullable().describe('Email address')),
                phone: untrusted(z.string().nullable().describe('Phone number')),
              })
              .describe('The contact as it now stands'),
            changed_fields: z
              .array(z.enum(['first_name', 'last_name', 'email', 'phone']))
              .describe('Fields whose value actually changed (a field sent with its current value is not listed)'),
            applied_at: Timestamp.describe('When the change took effect (immediately)'),
            confirmation_sent_to_masked: z
              .string()
              .nullable()
              .describe(
                'Where the change-confirmation mail with the undo link went (masked): the address that held the changed contact before; null when nothing changed',
              ),
          }),
        },
      },
    },
    async (request) => changes.updateContact(caller(request), request.params.customerId, request.body),
  );

  app.post(
    '/customers/:customerId/password-reset',
    {
      ...common,
      preHandler: [requireVerifiedSession],
      schema: {
        operationId: 'sendPortalLink',
        tags: ['change'],
        summary: 'Email a password-reset or account set-up link (verified)',
        params: CustomerParams,
        body: z.object({
          action: z
            .enum(['password_reset', 'resend_activation'])
            .default('password_reset')
            .describe('Which link to send')
            .meta({ example: 'password_reset' }),
        }),
        response: {
          202: z.object({
            sent: z.literal(true).describe('The mail was accepted for delivery'),
            action: z.enum(['password_reset', 'resend_activation']).describe('The link that was sent'),
            destination_masked: z.string().describe('Where the link went, masked').meta({ example: 'e***@e***.com' }),
            expires_at: Timestamp.describe('When the link stops working'),
          }),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await changes.sendPortalLink(caller(request), request.params.customerId, request.body.action)),
  );

  app.post(
    '/customers/:customerId/invoices/:invoiceId/resend',
    {
      ...common,
      preHandler: [requireVerifiedSession],
      schema: {
        operationId: 'resendInvoice',
        tags: ['change'],
        summary: 'Email a copy of an invoice as PDF (verified)',
        params: CustomerParams.extend({
          invoiceId: z.string().max(100).describe('The invoice id (UUID) from billing-summary or payments'),
        }),
        response: {
          202: z.object({
            sent: z.literal(true).describe('The mail was accepted for delivery'),
            invoice_id: z.string().describe('The invoice id'),
            invoice_number: z.string().describe('Number printed on the invoice'),
            destination_masked: z.string().describe('Where the copy went, masked').meta({ example: 'e***@e***.com' }),
          }),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await copies.resend(caller(request), request.params.customerId, request.params.invoiceId)),
  );

  app.post(
    '/customers/:customerId/notes',
    {
      ...common,
      preHandler: [requireVerifiedSession, idempotent],
      // A 5,000-character note of four-byte characters is 20 KB.
      bodyLimit: 64 * 1024,
      schema: {
        operationId: 'addCustomerNote',
        tags: ['change'],
        summary: "Add an internal note for the provider's staff (verified)",
        params: CustomerParams,
        headers: IdempotencyHeaders,
        body: z.object({
          note: z
            .string()
            .min(1)
            .max(5000)
            .refine((s) => s.trim().length > 0, 'must not be blank')
            .describe('The note text (1 to 5,000 characters)')
            .meta({ example: 'Caller reported intermittent drops every evening since Monday; modem online.' }),
        }),
        response: {
          201: z.object({
            note_id: z.string().describe('Id of the stored note'),
            customer_id: z.string().describe('The customer id (UUID)'),
            author: z.literal('ai_agent').describe('Notes from this API are attributed to the AI agent'),
            created_at: Timestamp.describe('When the note was stored'),
          }),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await notes.addAgentNote(
            { ...caller(request), keyPrefix: apiKeyOf(request).prefix },
            request.params.customerId,
            request.body.note,
          ),
        ),
  );
};
