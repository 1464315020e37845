import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { limit } from '../../plugins/rate-limit.js';
import { actorOf, apiKeyOf } from '../../plugins/auth.js';
import { Timestamp, Uuid } from './common.schemas.js';

const CustomerId = Uuid.describe('The customer id (UUID) from GET /agent/customers/search');

export const verifyRoutes: FastifyPluginAsyncZod = async (app) => {
  const verification = app.services.verification;
  const caller = (request: Parameters<typeof actorOf>[0]) => ({
    ...actorOf(request),
    providerId: apiKeyOf(request).providerId,
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
        },
      },
    },
    async (request) => verification.check(caller(request), request.body.customer_id, request.body.code),
  );
};
