import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, DASHBOARD_ROLES, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

/** GET /api/v1/credit-notes/{id}/pdf (internal API; registered in internalSurface). */
export const creditNoteRoutes: FastifyPluginAsyncZod = async (app) => {
  const creditNotes = app.services.creditNotes;

  app.get(
    '/credit-notes/:id/pdf',
    {
      onRequest: bearer(['subscriber', ...DASHBOARD_ROLES]),
      config: { rateLimit: limit('internal.read') },
      schema: {
        operationId: 'getCreditNotePdf',
        tags: ['subscriber'],
        summary: 'Credit note as PDF',
        description: PARTNER_DESCRIPTIONS.getCreditNotePdf,
        params: z.object({
          id: z
            .string()
            .min(1)
            .max(100)
            .regex(/^[A-Za-z0-9_-]+$/)
            .describe('Credit-note id (`id` in GET /subscriber/me/credit-notes)'),
        }),
        produces: ['application/pdf'],
        response: {
          200: z.string().meta({ format: 'binary' }).describe('The credit note as application/pdf'),
          401: Detail.describe('No Bearer token'),
          403: Detail.describe('Invalid or expired token'),
          404: Detail.describe('Credit note not found (or not yours)'),
          422: Detail,
          502: Detail.describe('Billing system unreachable'),
        },
      },
    },
    async (request, reply) => {
      const r = await creditNotes.pdf(userOf(request), request.params.id);
      const filename = `credit-note-${r.number.replace(/[^A-Za-z0-9._-]+/g, '_')}.pdf`;
      return (
        reply
          .type('application/pdf')
          .header('content-disposition', `inline; filename="${filename}"`)
          .header('cache-control', 'private, no-store')
          // A Buffer is sent as is: the response schema documents the bytes, it never serialises them.
          .send(r.pdf as unknown as string)
      );
    },
  );
};
