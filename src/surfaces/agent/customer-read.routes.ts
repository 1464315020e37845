import { apiKeyOf } from '../../plugins/auth.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { CustomerParams } from './common.schemas.js';
import { BillingSummary, CustomerProfile, NetworkHealth, Payments, TicketHistory } from './customer-read.schemas.js';
import { requireOwnedCustomer, requireOwnedProfile, requireVerifiedSession } from './verified-session.js';

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(25).describe('Most items to return (1 to 100, default 25)').meta({ example: 25 }),
});

export const customerReadRoutes: FastifyPluginAsyncZod = async (app) => {
  const reads = app.services.subscriberReads;
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
        params: CustomerParams,
        response: { 200: CustomerProfile },
      },
    },
    async (request) => {
      // Read by requireOwnedProfile together with the ownership and session check.
      const profile = request.agentCustomer?.profile;
      return profile ? reads.formatProfile(profile) : reads.profile(apiKeyOf(request).providerId, request.params.customerId);
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
        params: CustomerParams,
        response: { 200: BillingSummary },
      },
    },
    async (request) => reads.billingSummary(apiKeyOf(request).providerId, request.params.customerId),
  );

  app.get(
    '/customers/:customerId/payments',
    {
      ...common,
      schema: {
        operationId: 'listPayments',
        tags: ['read'],
        summary: 'Payments received (verified)',
        params: CustomerParams,
        querystring: ListQuery,
        response: { 200: Payments },
      },
    },
    async (request) => reads.payments(apiKeyOf(request).providerId, request.params.customerId, request.query.limit),
  );

  app.get(
    '/customers/:customerId/network-health',
    {
      ...common,
      schema: {
        operationId: 'getNetworkHealth',
        tags: ['read'],
        summary: 'Service and modem status per subscription (verified, read-only)',
        params: CustomerParams,
        response: { 200: NetworkHealth },
      },
    },
    async (request) => reads.networkHealth(apiKeyOf(request).providerId, request.params.customerId),
  );

  app.get(
    '/customers/:customerId/tickets',
    {
      ...common,
      schema: {
        operationId: 'listCustomerTickets',
        tags: ['read'],
        summary: "The customer's support tickets (verified)",
        params: CustomerParams,
        querystring: ListQuery,
        response: { 200: TicketHistory },
      },
    },
    async (request) => tickets.listForSubscriber(apiKeyOf(request).providerId, request.params.customerId, request.query.limit),
  );
};
