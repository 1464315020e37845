import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, DASHBOARD_ROLES } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { idempotent } from '../../plugins/idempotency.js';
import { Detail } from '../../modules/subscribers/subscriber.schemas.js';

const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');
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
  effective_date: z.string().describe('The end date quoted (YYYY-MM-DD, exclusive)'),
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

const RULES =
  "Dashboard JWT (provider staff of the subscription's provider, or a platform admin); a subscription of another provider " +
  'answers 404. end_date is YYYY-MM-DD, today (UTC) or later (else 422), and exclusive: the first day without service. Only ' +
  'ACTIVE, SUSPENDED or PENDING_INSTALL subscriptions can be cancelled (else 409).';

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
        description:
          `${RULES} Writes nothing. For a service-billed subscription, says whether the end date's calendar month is already ` +
          'invoiced and lists the money lines the cancellation leads to; the lines are empty when the provider bills the subscription.',
        security: [{ bearer: [] }],
        params: Params,
        querystring: z.object({ end_date: DateOnly.describe('YYYY-MM-DD, today (UTC) or later') }),
        response: { 200: PreviewResponse, ...AUTH, 404: Detail, 409: Detail, 422: Detail },
      },
    },
    (request) => service.preview(request.user!, request.params.id, request.query.end_date),
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
        description:
          `${RULES} The subscription is CANCELLED at once (canceled_at = now, ended_at = end_date) and the webhook ` +
          '`subscription.cancelled` is sent; service and the port last until ended_at, when the port is reset (port_reset_at) by a ' +
          'scheduled job. An installation not yet done is called off. For a service-billed subscription whose end month is already ' +
          "invoiced, the unused days are credited with an open credit note; otherwise that month's invoice bills the used days. " +
          'A cancelled subscription cannot be cancelled again (409); send an `Idempotency-Key` to make a retry after a network error replay the first answer.',
        security: [{ bearer: [] }],
        params: Params,
        headers: z.looseObject({
          'idempotency-key': z
            .string()
            .max(255)
            .optional()
            .describe('Optional: the same key and body within 24 h replays the first answer (safe retry)'),
        }),
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
    (request) => service.cancel(request.user!, request.params.id, request.body.end_date, String(request.id)),
  );
};
