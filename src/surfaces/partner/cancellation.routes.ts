import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, DASHBOARD_ROLES, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const DateOnly = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
  .meta({ format: 'date' });
const Params = z.object({ id: z.uuid().describe('Subscription id') });
const AUTH = {
  401: Detail.describe('No Bearer token'),
  403: Detail.describe('Invalid or expired token, or not a dashboard (provider staff / platform admin) token'),
};

const CancelResponse = z.object({
  subscription_id: z.uuid(),
  status: z.literal('CANCELLED'),
  canceled_at: z.string().describe('RFC 3339 UTC: when the cancellation was made'),
  ended_at: z.string().describe('YYYY-MM-DD, exclusive: the first day without service (the end_date sent)'),
});

const PreviewResponse = z.object({
  subscription_id: z.uuid(),
  effective_date: DateOnly.describe('The end date quoted (YYYY-MM-DD, exclusive)'),
  calendar_month: z.string().describe('The calendar month of the end date (YYYY-MM)'),
  month_invoiced: z
    .boolean()
    .nullable()
    .describe('Service-billed: whether that month is already invoiced; null when the provider bills the subscription'),
  billed_by: z.enum(['service', 'provider']),
  currency: z.string().length(3),
  lines: z
    .array(
      z.object({
        kind: z
          .enum(['unused_days_credit', 'final_month', 'pending_adjustment'])
          .describe(
            '`unused_days_credit`: the month is invoiced, the unused days are credited (a credit note issued on cancel); ' +
              '`final_month`: the month is not invoiced, its invoice bills the used days; `pending_adjustment`: a plan-change line still to be billed',
          ),
        description: z.string(),
        amount: z.string().describe('Signed decimal, two places (a credit is negative)'),
        currency: z.string().length(3),
      }),
    )
    .describe('Empty for provider-billed subscriptions'),
});

/** Cancellation (internal API, /api/v1 only; registered in internalSurface). */
export const cancellationRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.cancellation;
  const auth = bearer(DASHBOARD_ROLES);

  app.get(
    '/subscription/:id/cancel/preview',
    {
      onRequest: auth,
      config: { rateLimit: limit('internal.read') },
      schema: {
        operationId: 'previewSubscriptionCancellation',
        tags: ['cancellation'],
        summary: 'Read-only quote of a cancellation',
        description: PARTNER_DESCRIPTIONS.previewSubscriptionCancellation,
        params: Params,
        querystring: z.object({ end_date: DateOnly.describe('YYYY-MM-DD, today (UTC) or later') }),
        response: { 200: PreviewResponse, ...AUTH, 404: Detail, 409: Detail, 422: Detail },
      },
    },
    (request) => service.preview(userOf(request), request.params.id, request.query.end_date),
  );

  app.post(
    '/subscription/:id/cancel',
    {
      onRequest: auth,
      preHandler: idempotent,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'cancelSubscription',
        tags: ['cancellation'],
        summary: 'Cancel a subscription with an end date',
        description: PARTNER_DESCRIPTIONS.cancelSubscription,
        params: Params,
        headers: idempotencyKeyHeader('Optional: the same key and body within 24 h replays the first answer (safe retry)'),
        body: z.object({ end_date: DateOnly.describe('YYYY-MM-DD, today (UTC) or later; exclusive') }),
        response: {
          200: CancelResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          ...AUTH,
          404: Detail,
          409: Detail,
          422: Detail,
        },
      },
    },
    (request) => service.cancel(userOf(request), request.params.id, request.body.end_date, String(request.id)),
  );
};
