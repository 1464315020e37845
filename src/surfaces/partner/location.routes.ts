import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bearer, DASHBOARD_ROLES, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { LocationDetailsResponse, LocationKeyBody, LocationLookupResponse } from '../../modules/locations/index.js';
import { ReadableDetail as Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

export const locationRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.locations;
  // A missing body is the same as `{}`: the documented 422 rather than a schema message.
  const body = LocationKeyBody.nullish();

  app.post(
    '/location/lookup',
    {
      config: { rateLimit: limit('location.lookup') },
      schema: {
        operationId: 'locationLookup',
        tags: ['location'],
        summary: 'Resolve a location hash (or identifier) to its address',
        description: PARTNER_DESCRIPTIONS.locationLookup,
        body,
        response: { 200: LocationLookupResponse, 404: Detail, 422: Detail },
      },
    },
    async (request) => service.lookup(request.body ?? {}),
  );

  app.post(
    '/location/details',
    {
      onRequest: bearer(DASHBOARD_ROLES),
      config: { rateLimit: limit('internal.read') },
      schema: {
        operationId: 'locationDetails',
        tags: ['location'],
        summary: 'Full location record (dashboard only)',
        description: PARTNER_DESCRIPTIONS.locationDetails,
        body,
        response: { 200: LocationDetailsResponse, 401: Detail, 403: Detail, 404: Detail, 422: Detail },
      },
    },
    async (request) => service.details(userOf(request), request.body ?? {}),
  );
};
