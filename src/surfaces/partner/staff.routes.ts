import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, DASHBOARD_ROLES } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { SP_ROLES } from '../../modules/staff/staff.service.js';
import { Detail } from '../../modules/subscribers/subscriber.schemas.js';

const UserSummary = z.object({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  sp_role: z.enum(SP_ROLES).nullable().describe('null: the provider admin account without a sub-role (same rights as sp_admin)'),
  status: z.enum(['invited', 'active']).describe('`invited` until the user chose a password with the invite link'),
  created_at: z.string().describe('RFC 3339 UTC'),
});

const AUTH = {
  401: Detail.describe('No Bearer token'),
  403: Detail.describe('Invalid token, or not the provider admin (role service_provider with sp_role sp_admin or none)'),
};

const RULES =
  'Only the provider admin (a service_provider user with sp_role `sp_admin` or none) manages staff, and only of the own ' +
  'provider; support, sales and bookkeeping users, subscribers and platform admins answer 403.';

/** Provider staff (internal API, /api/v1 only; registered in internalSurface). */
export const staffRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.staff;
  const auth = bearer(DASHBOARD_ROLES);

  app.post(
    '/provider/users/invite',
    {
      onRequest: auth,
      preHandler: idempotent,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'inviteProviderUser',
        tags: ['staff'],
        summary: 'Invite a staff user to the own provider',
        description:
          `${RULES} The invitee is always created with role service_provider under the caller's provider, with the sp_role given ` +
          '(`sp_admin`, `support`, `sales`, `bookkeeping`; anything else 422). An email already in use by any account answers 409. ' +
          'The set-password mail (a single-use link valid 14 days, used with POST /auth/set-password) is sent asynchronously. ' +
          'Send an `Idempotency-Key` to make a retry after a network error replay the first 201 instead of answering 409.',
        security: [{ bearer: [] }],
        headers: z.looseObject({
          'idempotency-key': z
            .string()
            .max(255)
            .optional()
            .describe('Optional: the same key and body within 24 h replays the first answer (safe retry)'),
        }),
        body: z.object({
          email: z.email().max(254).describe("The invitee's email (also the login)"),
          sp_role: z.enum(SP_ROLES).describe('sp_admin, support, sales or bookkeeping'),
          first_name: z.string().trim().min(1).max(100).nullish(),
          last_name: z.string().trim().min(1).max(100).nullish(),
        }),
        response: {
          201: UserSummary,
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH,
          409: Detail.describe('Email already in use'),
          422: Detail,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.invite(request.user!, request.body)),
  );

  app.get(
    '/provider/users',
    {
      onRequest: auth,
      config: { rateLimit: limit('internal.read') },
      schema: {
        operationId: 'listProviderUsers',
        tags: ['staff'],
        summary: 'Staff users of the own provider',
        description: `${RULES} A bare list of user summaries, oldest first.`,
        security: [{ bearer: [] }],
        response: { 200: z.array(UserSummary), ...AUTH },
      },
    },
    (request) => service.list(request.user!),
  );

  app.post(
    '/provider/users/:user_id/resend-invite',
    {
      onRequest: auth,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'resendProviderUserInvite',
        tags: ['staff'],
        summary: 'Send a staff user a new invite link',
        description:
          `${RULES} Mails a new 14-day set-password link; earlier invite links of the user stop working. A user of another provider ` +
          '(or unknown) answers 404; a user who already chose a password (status active) answers 409: use the password reset.',
        security: [{ bearer: [] }],
        params: z.object({ user_id: z.uuid() }),
        response: { 200: z.object({ ok: z.literal(true) }), ...AUTH, 404: Detail, 409: Detail.describe('Already active'), 422: Detail },
      },
    },
    (request) => service.resendInvite(request.user!, request.params.user_id),
  );
};
