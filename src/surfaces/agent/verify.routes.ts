import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf } from '../../plugins/auth.js';
import { describeRoute, err, SECURITY_KEY, StandardRateLimit, Timestamp, Uuid } from './common.schemas.js';

const CustomerId = Uuid.describe('The customer id (UUID) from GET /agent/customers/search');

export const verifyRoutes: FastifyPluginAsyncZod = async (app) => {
  const verification = app.services.verification;
  const caller = (request: Parameters<typeof actorOf>[0]) => ({
    ...actorOf(request),
    providerId: request.apiKey!.providerId,
    requestId: String(request.id),
  });

  app.post(
    '/verify/issue',
    {
      config: { rateLimit: limit('agent.verify_issue') },
      schema: {
        operationId: 'issueVerificationCode',
        tags: ['verify'],
        summary: 'Send the caller a one-time code',
        description: describeRoute(
          'Sends a 6-digit one-time code to the customer\'s contact email on file (or, with channel "sms", to the mobile number on file). ' +
            'The code is valid 10 minutes and works once; issuing a new code makes the previous one invalid. Ask the caller to read ' +
            'the code back and pass it to POST /agent/verify/check. At most 5 codes per customer in 10 minutes: the 6th answers ' +
            'the standard rate-limit 429 (no envelope, like every 429 of /agent) with Retry-After: wait, or escalate with a ticket. ' +
            'channel "sms" answers 503 dependency_unconfigured until SMS is set up for your provider account: use email instead.',
        ),
        security: SECURITY_KEY,
        body: z.object({
          customer_id: CustomerId,
          channel: z
            .enum(['email', 'sms'])
            .default('email')
            .describe('Where the code goes: "email" (default) or "sms"')
            .meta({ example: 'email' }),
        }),
        response: {
          202: z.object({
            sent: z.literal(true).describe('The code was accepted for delivery'),
            channel: z.enum(['email', 'sms']).describe('The channel used'),
            destination_masked: z
              .string()
              .describe('Where it was sent, masked: tell the caller where to look')
              .meta({ example: 'e***@e***.com' }),
            expires_at: Timestamp.describe('When the code stops working (10 minutes from now)'),
          }),
          400: err('validation_error: customer_id is not a UUID or channel is not email/sms'),
          403: err('invalid_api_key or feature_not_enabled'),
          404: err("customer_not_found: no such customer for your provider (also for another provider's customer)"),
          422: err('unprocessable: channel "sms" for a customer with no mobile number on file (use email)'),
          429: StandardRateLimit.describe(
            'Standard rate-limit response (no envelope): 5 codes for this customer in 10 minutes, or the per-key limit. Wait Retry-After seconds, or escalate with a ticket',
          ),
          500: err('internal_error'),
          502: err('dependency_failed: the SMS gateway refused the message (use email)'),
          503: err('dependency_unconfigured: SMS is not configured for your provider account (use email)'),
        },
      },
    },
    async (request, reply) => {
      const r = await verification.issue(caller(request), request.body.customer_id, request.body.channel);
      return reply.code(202).send(r);
    },
  );

  app.post(
    '/verify/check',
    {
      config: { rateLimit: limit('agent.verify_check') },
      schema: {
        operationId: 'checkVerificationCode',
        tags: ['verify'],
        summary: 'Check the code the caller read back; get a verified session',
        description: describeRoute(
          'Validates the 6-digit code. On success answers the `verified_session` token: send it as `X-Verified-Session` on the ' +
            'verified routes of THIS customer for the next 15 minutes (it is bound to this customer and your provider). ' +
            'Errors: 401 invalid_code (wrong code, attempts remain: ask the caller again), 401 code_expired (issue a new code), ' +
            '403 too_many_attempts (5 wrong codes locked this code: issue a new one). After repeated failures, escalate with a ticket.',
        ),
        security: SECURITY_KEY,
        body: z.object({
          customer_id: CustomerId,
          code: z
            .string()
            .trim()
            .regex(/^\d{6}$/, 'must be 6 digits')
            .describe('The 6 digits the caller read from the message')
            .meta({ example: '042917' }),
        }),
        response: {
          200: z.object({
            verified_session: z
              .string()
              .describe('Opaque token; send as the X-Verified-Session header. Valid 15 minutes, only for this customer')
              .meta({ example: 'vs_k3Jx0c2H9mQqYyZ1aB7dE5fG8hI4jK6lM0nO2pQ3rS4' }),
            customer_id: z.string().describe('The customer the session is bound to'),
            expires_at: Timestamp.describe('When the session ends (15 minutes from now); verify again after that'),
          }),
          400: err('validation_error: customer_id is not a UUID or code is not 6 digits'),
          401: err('invalid_code (wrong code, or no active code: ask again or issue one) or code_expired (issue a new code)'),
          403: err('too_many_attempts (5 wrong codes: this code is locked, issue a new one), invalid_api_key or feature_not_enabled'),
          404: err('customer_not_found: no such customer for your provider'),
          429: StandardRateLimit,
          500: err('internal_error'),
        },
      },
    },
    async (request) => verification.check(caller(request), request.body.customer_id, request.body.code),
  );
};
