import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { AppError } from '../../lib/errors.js';
import { limit } from '../../plugins/rate-limit.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Detail = z.object({ detail: z.string() }).describe('Error');

const TokenResponse = z.object({
  access_token: z.string().describe('HS256 JWT for `Authorization: Bearer`'),
  token_type: z.literal('bearer'),
  expires_in: z.number().int().describe('Lifetime in seconds'),
  role: z.enum(['subscriber', 'service_provider', 'platform_admin']),
});

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const passwords = app.services.passwords;

  app.post(
    '/auth/login',
    {
      config: { rateLimit: limit('auth.login') },
      schema: {
        operationId: 'login',
        tags: ['auth'],
        summary: 'Log in (subscriber or dashboard) and get a JWT',
        description: PARTNER_DESCRIPTIONS.login,
        body: z.object({ email: emailAddress().max(254), password: z.string().min(1).max(200) }),
        response: {
          200: TokenResponse,
          401: Detail,
          422: Detail,
          429: Detail.describe("The account's logins from this network are locked after 10 failed logins (wait Retry-After seconds)"),
        },
      },
    },
    async (request) => {
      const token = await app.services.auth.login(request.body.email, request.body.password, request.ip);
      if (!token) throw new AppError(401, 'invalid_credentials', 'Invalid credentials');
      return token;
    },
  );

  app.post(
    '/auth/set-password',
    {
      config: { rateLimit: limit('auth.set_password') },
      schema: {
        operationId: 'setPassword',
        tags: ['auth'],
        summary: 'Choose a password with an emailed link token',
        description: PARTNER_DESCRIPTIONS.setPassword,
        body: z.object({ token: z.string().min(10).max(200), password: z.string().min(10).max(200).describe('At least 10 characters') }),
        response: {
          200: z.object({ success: z.literal(true), message: z.string() }),
          400: Detail,
          422: Detail,
          429: Detail.describe('Too many invalid links from this IP (wait Retry-After seconds)'),
        },
      },
    },
    async (request) => {
      await passwords.setPasswordWithToken(request.body.token, request.body.password, request.ip);
      return { success: true as const, message: 'Password set; you can now log in' };
    },
  );
};
