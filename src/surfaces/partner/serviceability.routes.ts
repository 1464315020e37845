import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { partnerApiKey } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import {
  AutocompleteQuery,
  AutocompleteResponse,
  CheckBody,
  CheckResponse,
  Detail,
  UnitsQuery,
  UnitsResponse,
} from '../../modules/serviceability/serviceability.schemas.js';

const AUTH = "Needs `X-API-Key` with the `serviceability:read` scope; results are limited to the key's provider. ";
const ADVISORY = 'Answers are advisory: checkout and provisioning re-validate and fail closed.';

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
        description:
          AUTH +
          'Returns at most 15 (or `limit`) suggestions, unique by `display`, each with `orderable` and the `building_id` to continue with ' +
          '(GET /serviceability/units, checkout, provisioning). House-number suffixes match fused or separated ("12a" = "12 A"). ' +
          'Suggestions start with what was typed; when nothing does, similar addresses are offered. 300 requests per minute per key. ' +
          ADVISORY,
        querystring: AutocompleteQuery,
        response: { 200: AutocompleteResponse, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request) => service.autocomplete(request.apiKey!.providerId, request.query.q, request.query.limit),
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
        description:
          AUTH +
          'Send `address` (free text; German 5-digit and Canadian A1A 1A1 postcodes are recognised) or structured fields starting with ' +
          '`street` (structured wins when both are sent; neither answers 422). The house number must match exactly including its suffix ' +
          '("12" does not match "12a"; "12 A" does). No match answers 200 `{serviceable: false, match: null, plans: [], building_id: null}`. ' +
          'A match outside coverage or closed for orders answers `serviceable: false` with the match and no plans. 120 requests per minute per key. ' +
          ADVISORY,
        body: CheckBody,
        response: { 200: CheckResponse, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request) => service.check(request.apiKey!.providerId, request.body),
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
        description:
          AUTH +
          'Every unit of one building in coverage, each with `available` (false while a pending, pending-install, active or suspended ' +
          'subscription occupies it, or a cancelled one whose end date has not come). Unavailable units are listed: show them disabled. 404 for an unknown building, a building of ' +
          'another provider, or one not in coverage. 300 requests per minute per key. ' +
          ADVISORY,
        querystring: UnitsQuery,
        response: { 200: UnitsResponse, 401: Detail, 403: Detail, 404: Detail, 422: Detail },
      },
    },
    async (request) => service.units(request.apiKey!.providerId, request.query.building_id),
  );
};
