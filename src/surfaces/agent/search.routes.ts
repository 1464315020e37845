import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { describeRoute, err, SECURITY_KEY, StandardRateLimit } from './common.schemas.js';

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
    .meta({ example: '3f1c9a52-5c1e-4a57-9b1e-7d2f0c8e4b11' }),
  name_masked: z.string().describe('First name and last initial only').meta({ example: 'Erika M.' }),
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
  const search = app.services.customerSearch;

  app.get(
    '/customers/search',
    {
      config: { rateLimit: limit('agent.search') },
      schema: {
        operationId: 'searchCustomers',
        tags: ['identify'],
        summary: 'Identify the caller: masked customer search',
        description: describeRoute(
          "Finds customers of your provider by the contact's or invoice contact's name, email or phone, customer number " +
            '("ABCD-1234"), invoice address, service building address or unit. Email, phone and customer number match only in full ' +
            '(email in any case, phone in any formatting: "+49 151 2345 6789", "0151/23456789"); a part of one matches nothing. Name ' +
            'words match whole words (one typo allowed in a word of 5+ letters, never a shortened name); street, city, postal code, ' +
            'building, house number and unit words match by prefix. q is read in up to three passes, each only when the one before ' +
            'found nothing: (1) as a phone number, email or customer number; as a name ("Erika Mustermann", "Mustermann Erika"); as an ' +
            'address, street and house number with unit, postal code or city ("Sonnenweg 7 4B", "594 Main Street"), optionally after ' +
            'the name; or as a name narrowed by its place ("Erika Mustermann 4B"); (2) every word of q against every field; (3) the ' +
            'same with one typo in a name word. So appending the unit or street to a name narrows it. A house number or unit is exact ' +
            'in (1) ("12" finds 12 and 12a, not 120). `match_count` counts the matches of the pass that answered, up to 1000. A search ' +
            'has a time bound; one that reaches it answers `incomplete: true` with what it found. Answers are masked: verify the ' +
            'caller before reading account data. Never auto-select when `ambiguous` is true: ask for the service address or unit and ' +
            'search again, or escalate with a ticket.',
        ),
        security: SECURITY_KEY,
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
          400: err('validation_error: q shorter than 2 characters, or limit outside 1..100 (`details` names the field)'),
          403: err('invalid_api_key or feature_not_enabled'),
          429: StandardRateLimit,
          500: err('internal_error'),
        },
      },
      // The time bound counts from the request's arrival: the key check and a cold connection's first
      // statements before the search are part of what the caller waits for (bench/README.md, round 10).
    },
    async (request, reply) =>
      search.search(request.apiKey!.providerId, request.query.q, request.query.limit, Date.now() - reply.elapsedTime),
  );
};
