import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { bearer, DASHBOARD_ROLES } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { LocationDetailsResponse, LocationKeyBody, LocationLookupResponse } from '../../modules/locations/locations.schemas.js';
import { Detail } from '../../modules/serviceability/serviceability.schemas.js';

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
        description:
          'No authentication. Send `location_hash` (preferred; wins when both are sent) or `location_identifier`. Answers the address row ' +
          '(street, house_number, postal_code, city, province, country, unit_label) plus three identifying fields: `location_identifier`, ' +
          '`building_id` and `unit_id`. Switch, port and VLAN are never returned, and no endpoint turns an address into a hash. ' +
          'Neither field answers 422 `Provide location_hash or location_identifier`; an unknown location answers 404.',
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
        description:
          'Dashboard JWT (`Authorization: Bearer`, provider staff or platform admin); not callable with partner credentials. Same body as ' +
          "/location/lookup. Provider staff see only their own provider's locations (any other answers 404); platform admins see all. " +
          'Includes switch, port, VLAN, building line type and the subscription currently holding the location.',
        security: [{ bearer: [] }],
        body,
        response: { 200: LocationDetailsResponse, 401: Detail, 403: Detail, 404: Detail, 422: Detail },
      },
    },
    async (request) => service.details(request.user!, request.body ?? {}),
  );
};
