import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { bearer, DASHBOARD_ROLES, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { SP_ROLES } from '../../modules/staff/index.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

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
        description: PARTNER_DESCRIPTIONS.inviteProviderUser,
        headers: idempotencyKeyHeader('Optional: the same key and body within 24 h replays the first answer (safe retry)'),
        body: z.object({
          email: emailAddress().max(254).describe("The invitee's email (also the login)"),
          sp_role: z.enum(SP_ROLES).describe('sp_admin, support, sales or bookkeeping'),
          first_name: z.string().trim().min(1).max(100).nullish(),
          last_name: z.string().trim().min(1).max(100).nullish(),
        }),
        response: {
          201: UserSummary,
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH,
          409: Detail.describe('The email is already one of your staff users'),
          422: Detail,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await service.invite(userOf(request), request.body)),
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
        description: PARTNER_DESCRIPTIONS.listProviderUsers,
        response: { 200: z.array(UserSummary), ...AUTH },
      },
    },
    (request) => service.list(userOf(request)),
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
        description: PARTNER_DESCRIPTIONS.resendProviderUserInvite,
        params: z.object({ user_id: z.uuid() }),
        response: { 200: z.object({ ok: z.literal(true) }), ...AUTH, 404: Detail, 409: Detail.describe('Already active'), 422: Detail },
      },
    },
    (request) => service.resendInvite(userOf(request), request.params.user_id),
  );

  app.delete(
    '/provider/users/:user_id',
    {
      onRequest: auth,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'withdrawProviderUserInvite',
        tags: ['staff'],
        summary: 'Withdraw a staff invitation',
        description: PARTNER_DESCRIPTIONS.withdrawProviderUserInvite,
        params: z.object({ user_id: z.uuid() }),
        response: {
          200: z.object({ ok: z.literal(true) }).describe('Withdrawn'),
          ...AUTH,
          404: Detail,
          409: Detail.describe('The user already chose a password'),
          422: Detail,
        },
      },
    },
    (request) => service.withdrawInvite(userOf(request), request.params.user_id),
  );
};
