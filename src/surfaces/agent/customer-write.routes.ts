import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { actorOf } from '../../plugins/auth.js';
import { CustomerParams, describeRoute, err, IdempotencyHeaders, SECURITY_VERIFIED, Timestamp, verifiedErrors } from './common.schemas.js';
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
    email: z.email().max(254).optional().describe('New email address').meta({ example: 'erika.new@example.com' }),
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
  });

const caller = (request: FastifyRequest) => ({
  ...actorOf(request),
  providerId: request.apiKey!.providerId,
  requestId: String(request.id),
});

export const customerWriteRoutes: FastifyPluginAsyncZod = async (app) => {
  const changes = app.services.customerChanges;
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
        description: describeRoute(
          'Changes only the fields you send, immediately: read the new values back to the caller before calling. When something changed, a ' +
            'change-confirmation mail goes to the contract email that was on file before the change, with a rollback link (24 hours, single use) ' +
            'that restores the previous values of the changed fields unless they were changed again since. The change does not wait for the mail. ' +
            'contract changes the contract holder (its email is where one-time codes go; the online-account login email is not changed); invoice changes the invoice recipient. ' +
            '409 conflict when another customer of your provider already uses the email.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        body: ContactBody,
        response: {
          200: z.object({
            customer_id: z.string().describe('The customer id (UUID)'),
            contact_type: z.enum(['contract', 'invoice']).describe('Which contact was changed'),
            contact: z
              .object({
                first_name: z.string().nullable().describe('First name'),
                last_name: z.string().nullable().describe('Last name'),
                email: z.string().nullable().describe('Email address'),
                phone: z.string().nullable().describe('Phone number'),
              })
              .describe('The contact as it now stands'),
            changed_fields: z
              .array(z.enum(['first_name', 'last_name', 'email', 'phone']))
              .describe('Fields whose value actually changed (a field sent with its current value is not listed)'),
            applied_at: Timestamp.describe('When the change took effect (immediately)'),
          }),
          ...verifiedErrors,
          409: err('conflict: the email is already used by another customer of your provider'),
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
        description: describeRoute(
          'action "password_reset" (default) emails a reset link valid 15 minutes to the online account\'s login email; 409 portal_account_missing when the customer has no online account (use resend_activation). ' +
            'action "resend_activation" emails the account set-up link valid 14 days, only while no password was ever chosen: 409 already_activated afterwards (use password_reset). ' +
            'For a customer without an online account, resend_activation creates it (login = contract email) and sends the set-up link; 409 conflict when that email already belongs to another login.',
          true,
        ),
        security: SECURITY_VERIFIED,
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
          ...verifiedErrors,
          409: err(
            'already_activated (use password_reset), portal_account_missing (use resend_activation) or conflict (the email belongs to another login: escalate)',
          ),
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
        description: describeRoute(
          "Emails a copy of the invoice, with the PDF attached, to the invoice email on file (else the contract email). Take `invoice_id` from billing-summary or payments. 404 not_found for an invoice that is not this customer's.",
          true,
        ),
        security: SECURITY_VERIFIED,
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
          ...verifiedErrors,
          404: err('customer_not_found (no such customer for your provider) or not_found (no such invoice for this customer)'),
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
      schema: {
        operationId: 'addCustomerNote',
        tags: ['change'],
        summary: "Add an internal note for the provider's staff (verified)",
        description: describeRoute(
          "Stores an internal note on the customer, attributed to the AI agent, for the provider's staff. It is never shown to the customer and never returned by this API (not even by this call). Accepts Idempotency-Key.",
          true,
        ),
        security: SECURITY_VERIFIED,
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
          ...verifiedErrors,
          409: err('idempotency_in_progress: the first request with this Idempotency-Key is still running'),
          422: err('idempotency_key_reused: this Idempotency-Key was used with another body'),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await notes.addAgentNote({ ...caller(request), keyPrefix: request.apiKey!.prefix }, request.params.customerId, request.body.note),
        ),
  );
};
