import cors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { limit } from '../../plugins/rate-limit.js';
import { GoneDetail, SessionIdParams, SessionStatusResponse } from '../../modules/checkout/index.js';
import { ReadableDetail as Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

/** The one path that answers CORS (issue 28 §3): any origin, GET and its preflight, no credentials. */
const STATUS_PATH = /^(?:\/api\/v1)?\/external-checkout\/sessions\/[^/?#]+\/status(?:\?.*)?$/;

/**
 * GET /external-checkout/sessions/{session_id}/status in a scope of its own, the only one with
 * @fastify/cors: its hooks stay inside this scope, and the delegator grants CORS to this exact path only
 * (the plugin's OPTIONS route, `<prefix>*`, answers the preflight of this path and 404 for any longer one).
 */
export const checkoutStatusRoutes: FastifyPluginAsyncZod = async (root) => {
  await root.register(statusScope, { prefix: '/external-checkout/sessions/:session_id/status' });
};

const statusScope: FastifyPluginAsyncZod = async (app) => {
  await app.register(cors, {
    delegator: (req, cb) =>
      cb(null, {
        origin: STATUS_PATH.test(req.url) ? '*' : false,
        methods: ['GET'],
        credentials: false,
        strictPreflight: true,
        maxAge: 600,
      }),
  });
  const service = app.services.checkout;

  app.get(
    '/',
    {
      prefixTrailingSlash: 'no-slash',
      config: { rateLimit: limit('checkout.public') },
      schema: {
        operationId: 'getCheckoutSessionStatus',
        tags: ['checkout'],
        summary: "Poll a session's status (browser-safe)",
        description: PARTNER_DESCRIPTIONS.getCheckoutSessionStatus,
        params: SessionIdParams,
        response: { 200: SessionStatusResponse, 404: Detail, 410: GoneDetail, 422: Detail },
      },
    },
    async (request) => service.status(request.params.session_id),
  );
};
