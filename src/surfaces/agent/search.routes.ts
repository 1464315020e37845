import { apiKeyOf } from '../../plugins/auth.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { untrusted } from './common.schemas.js';
import { DEMO_FIXED_IDS } from '../../demo/fixed-ids.js';

const ServiceLocationMasked = z.object({
  address: z
    .string()
    .nullable()
    .describe('Street, house number, postal code and city of the building served')
    .meta({ example: 'Hauptstraße 5, 10115 Berlin' }),
  unit_label: z
    .string()
    .nullable()
    .describe('The unit (flat/suite) in that building; null when the service is for the whole building')
    .meta({ example: '4B' }),
  subscription_status: z
    .enum(['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED', 'CANCELLED'])
    .describe('Status of the subscription at this location'),
});

const Match = z.object({
  customer_id: z
    .string()
    .describe('The customer id (UUID): pass it to POST /agent/verify/issue, then to the verified customer routes')
    .meta({ example: DEMO_FIXED_IDS.invoiced.customer }),
  name_masked: untrusted(z.string().describe('First name and last initial only').meta({ example: 'Erika M.' })),
  email_masked: z
    .string()
    .nullable()
    .describe('Masked contract email: first letter of the mailbox and of the domain')
    .meta({ example: 'e***@e***.com' }),
  phone_masked: z.string().nullable().describe('Masked phone: the last two digits only').meta({ example: '***89' }),
  customer_number_masked: z.string().nullable().describe('Masked customer number (last two digits)').meta({ example: '****-**34' }),
  service_locations: z
    .array(ServiceLocationMasked)
    .describe(
      'Where the customer has service: building address and unit. This is the discriminator: when several customers match, ask the caller for their address or unit and append it to q',
    ),
});

const SearchResult = z.object({
  ambiguous: z
    .boolean()
    .describe(
      'true when match_count > 1: do NOT pick one; ask the caller for the service address or unit, append it to q and search again',
    ),
  match_count: z
    .number()
    .int()
    .describe(
      'How many customers match in total (matches holds at most `limit` of them): exact up to 1000; a search that matches more answers 1000 with match_count_capped true. The matches of the reading of q that answered (see the operation description)',
    )
    .meta({ example: 2 }),
  match_count_capped: z
    .boolean()
    .describe('true when more than 1000 customers match (match_count is then 1000): ask the caller for another detail')
    .meta({ example: false }),
  incomplete: z
    .boolean()
    .describe(
      'true when the search stopped at its time bound before it finished (very common short words): the answer holds what was found by then, usually nothing; ask the caller for a more telling detail (street and house number, unit, email, phone or customer number)',
    )
    .meta({ example: false }),
  matches: z.array(Match).describe('The matching customers, masked, ordered by last name then first name'),
});

export const searchRoutes: FastifyPluginAsyncZod = async (app) => {
  const search = app.services.subscriberSearch;

  app.get(
    '/customers/search',
    {
      config: { rateLimit: limit('agent.search') },
      schema: {
        operationId: 'searchCustomers',
        tags: ['identify'],
        summary: 'Identify the caller: masked customer search',
        querystring: z.object({
          q: z
            .string()
            .trim()
            .min(2)
            .max(200)
            .describe(
              'What the caller told you: a name, email, phone number, customer number, address or unit, or several of these separated by spaces',
            )
            .meta({ example: 'Erika Mustermann 4B' }),
          limit: z.coerce
            .number()
            .int()
            .min(1)
            .max(100)
            .default(25)
            .describe('Most matches to return (1 to 100, default 25)')
            .meta({ example: 25 }),
        }),
        response: {
          200: SearchResult,
        },
      },
      // The time bound counts from the request's arrival: the key check and a cold connection's first
      // statements before the search are part of what the caller waits for (bench/README.md, round 10).
    },
    async (request, reply) =>
      search.search(apiKeyOf(request).providerId, request.query.q, request.query.limit, Date.now() - reply.elapsedTime),
  );
};
