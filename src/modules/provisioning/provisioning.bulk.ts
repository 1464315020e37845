import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import { AppError } from '../../lib/errors.js';
import { ProviderInitiatedBody, type BulkResult } from './provisioning.schemas.js';
import type { ProvisioningService, RequestContext } from './provisioning.service.js';
import { present } from '../../lib/present.js';

type Result = z.infer<typeof BulkResult>;

/** "<field>: <what is wrong>" for the first problem of an item, like a single request's 422. */
function validationMessage(err: z.ZodError): string {
  const issue = present(err.issues[0], 'the first validation issue');
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Bulk provider-initiated provisioning: every item is validated and provisioned on its own (its
 * own transaction), in order, so one bad item never affects another and a repeated item inside
 * the batch (or from an earlier batch) is a replay.
 */
export async function provisionBulk(
  service: ProvisioningService,
  ctx: RequestContext,
  items: unknown[],
  log: FastifyBaseLogger,
): Promise<Result[]> {
  const results: Result[] = [];
  for (let index = 0; index < items.length; index++) {
    const parsed = ProviderInitiatedBody.safeParse(items[index]);
    if (!parsed.success) {
      results.push({ index, status: 'error', error: validationMessage(parsed.error) });
      continue;
    }
    try {
      const { created, result } = await service.provisionExplicit(ctx, parsed.data, 'bulk');
      results.push({
        index,
        status: created ? 'created' : 'replayed',
        route: result.route,
        subscription_id: result.subscription_id,
        job_id: result.job_id,
      });
    } catch (err) {
      if (err instanceof AppError && err.status < 500) {
        results.push({ index, status: 'error', error: typeof err.extra.detail === 'string' ? err.extra.detail : err.message });
      } else {
        log.error({ err, index }, 'bulk provisioning item failed');
        results.push({ index, status: 'error', error: 'Internal error; retry this item' });
      }
    }
  }
  return results;
}
