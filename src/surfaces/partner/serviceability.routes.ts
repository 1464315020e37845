import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { partnerApiKey, apiKeyOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import {
  AutocompleteQuery,
  AutocompleteResponse,
  CheckBody,
  CheckResponse,
  UnitsQuery,
  UnitsResponse,
} from '../../modules/serviceability/index.js';
import { ReadableDetail as Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

export const serviceabilityRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.serviceability;
  const auth = partnerApiKey('serviceability:read');

  app.get(
    '/serviceability/autocomplete',
    {
      onRequest: auth,
      config: { rateLimit: limit('serviceability.autocomplete') },
      schema: {
        operationId: 'serviceabilityAutocomplete',
        tags: ['serviceability'],
        summary: 'Address suggestions as the user types',
        description: PARTNER_DESCRIPTIONS.serviceabilityAutocomplete,
        querystring: AutocompleteQuery,
        response: { 200: AutocompleteResponse, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request) => service.autocomplete(apiKeyOf(request).providerId, request.query.q, request.query.limit),
  );

  app.post(
    '/serviceability/check',
    {
      onRequest: auth,
      config: { rateLimit: limit('serviceability.check') },
      schema: {
        operationId: 'serviceabilityCheck',
        tags: ['serviceability'],
        summary: 'Is this address serviceable, and with which plans',
        description: PARTNER_DESCRIPTIONS.serviceabilityCheck,
        body: CheckBody,
        response: { 200: CheckResponse, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request) => service.check(apiKeyOf(request).providerId, request.body),
  );

  app.get(
    '/serviceability/units',
    {
      onRequest: auth,
      config: { rateLimit: limit('serviceability.units') },
      schema: {
        operationId: 'serviceabilityUnits',
        tags: ['serviceability'],
        summary: 'Units (suites) of a building with availability',
        description: PARTNER_DESCRIPTIONS.serviceabilityUnits,
        querystring: UnitsQuery,
        response: { 200: UnitsResponse, 401: Detail, 403: Detail, 404: Detail, 422: Detail },
      },
    },
    async (request) => service.units(apiKeyOf(request).providerId, request.query.building_id),
  );
};
