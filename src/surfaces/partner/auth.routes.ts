import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { limit } from '../../plugins/rate-limit.js';

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
        description:
          'Email and password of a subscriber or provider staff account. Wrong credentials answer 401 `Invalid credentials` (the same for an unknown email). ' +
          '10 failed logins of one account within 15 minutes lock its logins for 15 minutes, whatever the IP: 429 with Retry-After, also for the right password.',
        body: z.object({ email: z.email().max(254), password: z.string().min(1).max(200) }),
        response: {
          200: TokenResponse,
          401: Detail,
          422: Detail,
          429: Detail.describe('The account is locked after 10 failed logins (wait Retry-After seconds)'),
        },
      },
    },
    async (request) => {
      const token = await app.services.auth.login(request.body.email, request.body.password);
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
        description:
          'Consumes a single-use token from a password-reset (15 minutes), account set-up or staff invite (14 days) link. An unknown, used or expired token answers 400. Login tokens issued before the new password stop working. ' +
          '10 such tokens from one client IP within 15 minutes lock that IP out of this route for 15 minutes (429 with Retry-After).',
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
