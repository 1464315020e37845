import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { CustomerParams, describeRoute, SECURITY_VERIFIED, verifiedErrors } from './common.schemas.js';
import { BillingSummary, CustomerProfile, NetworkHealth, Payments, TicketHistory } from './customer-read.schemas.js';
import { requireOwnedCustomer, requireOwnedProfile, requireVerifiedSession } from './verified-session.js';

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('Most items to return (1 to 100, default 25)').meta({ example: 25 }),
});

export const customerReadRoutes: FastifyPluginAsyncZod = async (app) => {
  const reads = app.services.customerReads;
  const tickets = app.services.tickets;
  const common = {
    config: { rateLimit: limit('agent.read') },
    preValidation: [requireOwnedCustomer],
    preHandler: [requireVerifiedSession],
  };

  app.get(
    '/customers/:customerId',
    {
      ...common,
      preValidation: [requireOwnedProfile],
      schema: {
        operationId: 'getCustomerProfile',
        tags: ['read'],
        summary: 'Customer profile (verified)',
        description: describeRoute(
          'The slim profile: contract and invoice contacts, invoice address, service locations, subscriptions with plan name, price and status, and whether an online account exists.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        response: { 200: CustomerProfile, ...verifiedErrors },
      },
    },
    async (request) => {
      // Read by requireOwnedProfile together with the ownership and session check.
      const profile = request.agentCustomer?.profile;
      return profile ? reads.formatProfile(profile) : reads.profile(request.apiKey!.providerId, request.params.customerId);
    },
  );

  app.get(
    '/customers/:customerId/billing-summary',
    {
      ...common,
      schema: {
        operationId: 'getBillingSummary',
        tags: ['read'],
        summary: 'Balance, open invoices, next invoice date, last payment (verified)',
        description: describeRoute(
          'What the customer owes (sum of open invoices), each open invoice with its `invoice_id` (to resend it), when the next monthly invoice goes out, and the last payment.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        response: { 200: BillingSummary, ...verifiedErrors },
      },
    },
    async (request) => reads.billingSummary(request.apiKey!.providerId, request.params.customerId),
  );

  app.get(
    '/customers/:customerId/payments',
    {
      ...common,
      schema: {
        operationId: 'listPayments',
        tags: ['read'],
        summary: 'Payments received (verified)',
        description: describeRoute(
          'Payments, derived from paid invoices (a paid invoice with its payment reference is the payment record), newest first, each with its `invoice_id`.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        querystring: ListQuery,
        response: { 200: Payments, ...verifiedErrors },
      },
    },
    async (request) => reads.payments(request.apiKey!.providerId, request.params.customerId, request.query.limit),
  );

  app.get(
    '/customers/:customerId/network-health',
    {
      ...common,
      schema: {
        operationId: 'getNetworkHealth',
        tags: ['read'],
        summary: 'Service and modem status per subscription (verified, read-only)',
        description: describeRoute(
          'Per subscription: status, activation, provisioning state with the latest provisioning job, installation, last known modem status, and ongoing or recent incidents. Read-only: there is no switch control or live query. A "failed" provisioning state or an offline modem without an incident is a case for a ticket.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        response: { 200: NetworkHealth, ...verifiedErrors },
      },
    },
    async (request) => reads.networkHealth(request.apiKey!.providerId, request.params.customerId),
  );

  app.get(
    '/customers/:customerId/tickets',
    {
      ...common,
      schema: {
        operationId: 'listCustomerTickets',
        tags: ['read'],
        summary: "The customer's support tickets (verified)",
        description: describeRoute(
          'Tickets opened for this customer or with an email address on file (contract or invoice email), newest first. Internal comments (such as transcripts) are never included.',
          true,
        ),
        security: SECURITY_VERIFIED,
        params: CustomerParams,
        querystring: ListQuery,
        response: { 200: TicketHistory, ...verifiedErrors },
      },
    },
    async (request) => tickets.listForCustomer(request.apiKey!.providerId, request.params.customerId, request.query.limit),
  );
};
