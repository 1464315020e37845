import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf, bearer, DASHBOARD_ROLES, userOf } from '../../plugins/auth.js';
import { idempotencyKeyHeader, idempotent } from '../../plugins/idempotency.js';
import { limit } from '../../plugins/rate-limit.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const Detail = z.object({ detail: z.string() }).describe('Error');
const IdempotencyHeader = idempotencyKeyHeader('Optional; the same key and body within 24 h replays the first answer');

const ShipBody = z.object({
  subscription_id: z.uuid().describe('A PENDING_INSTALL subscription of your provider'),
  carrier: z.string().trim().min(1).max(100).describe('The carrier that delivers the equipment, e.g. DHL, UPS, Canada Post'),
  tracking_reference: z.string().trim().min(1).max(100).describe("The carrier's tracking reference, mailed to the subscriber as given"),
});

const ShipResponse = z.object({
  subscription_id: z.uuid(),
  install_job_id: z.uuid(),
  status: z.literal('SHIPPED').describe('The install job is SHIPPED: POST /provisioning/confirm-install may follow'),
  kind: z.enum(['technician_visit', 'cpe_shipment']).describe('cpe_shipment for second-line buildings, else a technician visit'),
  carrier: z.string(),
  tracking_reference: z.string(),
  shipped_at: z.string().describe('RFC 3339 UTC; on a replay the first shipment time'),
  mailed: z
    .boolean()
    .describe('True when the subscriber was mailed the tracking reference now; false on a replay (same carrier and reference)'),
});

export const installRoutes: FastifyPluginAsyncZod = async (app) => {
  const shipping = app.services.shipping;

  app.post(
    '/provisioning/ship-install',
    {
      onRequest: bearer(DASHBOARD_ROLES),
      preHandler: idempotent,
      config: { rateLimit: limit('internal.write') },
      schema: {
        operationId: 'shipInstall',
        tags: ['provisioning'],
        summary: 'Staff: mark the install equipment shipped (dashboard login only)',
        description: PARTNER_DESCRIPTIONS.shipInstall,
        headers: IdempotencyHeader,
        body: ShipBody,
        response: {
          200: ShipResponse,
          400: Detail.describe('Malformed Idempotency-Key'),
          401: Detail.describe('No bearer token: `Not authenticated`'),
          403: Detail.describe('Invalid token, not a dashboard account, or a staff role other than sp_admin and support'),
          404: Detail.describe('Subscription (or its install job) not found for your provider'),
          409: Detail.describe(
            'Install job not CREATED or BOOKED (invitation held, no window booked yet, already shipped with another reference, COMPLETED or CANCELLED), or the subscription is not PENDING_INSTALL',
          ),
          422: Detail.describe('subscription_id not a UUID, or carrier / tracking_reference blank or longer than 100 characters'),
        },
      },
    },
    async (request) =>
      shipping.shipAsStaff(
        userOf(request),
        { subscriptionId: request.body.subscription_id, carrier: request.body.carrier, trackingReference: request.body.tracking_reference },
        { actor: actorOf(request), requestId: String(request.id) },
      ),
  );
};
