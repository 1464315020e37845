import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { platformAdmin } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { KINDS } from '../../modules/inventory/index.js';
import { Detail } from './errors.schemas.js';
import { ADMIN_TAG, ProviderParam } from './admin-providers.routes.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

/** The largest CSV body the route takes; larger files go through the CLI, which streams them. */
const MAX_CSV_BYTES = 20 * 1024 * 1024;

const ImportReport = z.object({
  kind: z.enum(KINDS),
  provider_id: z.uuid(),
  dry_run: z.boolean(),
  committed: z.boolean().describe('true: written; false after a dry run or when the file had errors (then nothing was written)'),
  rows: z.number().int(),
  inserted: z.number().int(),
  updated: z.number().int(),
  errors: z
    .array(z.object({ line: z.number().int().describe('1 is the header'), column: z.string().nullable(), reason: z.string() }))
    .describe('The first 1,000 problems'),
  errors_total: z.number().int(),
});

/** /api/v1/admin/providers/{provider}/imports/{kind}: the inventory import of the CLI, for a CSV body. */
export const adminImportRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: MAX_CSV_BYTES }, (_req, body, done) => done(null, body));

  app.post(
    '/admin/providers/:provider/imports/:kind',
    {
      onRequest: platformAdmin(),
      config: { rateLimit: limit('internal.write') },
      bodyLimit: MAX_CSV_BYTES,
      schema: {
        operationId: 'adminImportInventory',
        tags: [ADMIN_TAG],
        summary: 'Import inventory from CSV',
        description: PARTNER_DESCRIPTIONS.adminImportInventory,
        params: ProviderParam.extend({ kind: z.enum(KINDS).describe('buildings, units, ports or addresses') }),
        querystring: z.object({ dry_run: z.enum(['true', 'false']).default('false').describe('true: check and count only') }),
        consumes: ['text/csv'],
        body: z.string().describe('The CSV file'),
        response: {
          200: ImportReport.describe('Imported (or, with dry_run, checked)'),
          404: Detail,
          422: z
            .object({
              detail: z.string(),
              report: ImportReport.optional().describe(
                'When the file had problems: the report, every problem with line, column and reason',
              ),
            })
            .describe('The file had problems (nothing was written), or the request was malformed'),
        },
      },
    },
    async (request, reply) => {
      const p = await app.services.providerAdmin.resolve(request.params.provider);
      const report = await app.services.inventory.importCsv(p.id, request.params.kind, Readable.from([request.body]), {
        dryRun: request.query.dry_run === 'true',
      });
      if (report.errors_total) {
        return reply.code(422).send({ detail: `${report.errors_total} problem(s) in the file: nothing was imported`, report });
      }
      return reply.code(200).send(report);
    },
  );
};
