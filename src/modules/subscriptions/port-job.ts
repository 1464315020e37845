// The one place a `provisioning.port` job is queued from outside the provisioning routes: every
// caller queues it in the transaction that made the subscription ACTIVE, never before (the job
// provisions only an ACTIVE subscription).
import type { JobQueue } from '../../jobs/types.js';
import type { Executor } from '../../db/executor.js';

export const PORT_JOB_KIND = 'provisioning.port';
export const PORT_JOB_MAX_ATTEMPTS = 6;

/**
 * Why a port is provisioned. Only `activate` (the unattended first-line activation) reports to the
 * provider with provisioning.completed / provisioning.failed; `install` (an installed subscription
 * became ACTIVE: at confirmation when nothing is owed, else when its first invoice is paid) and
 * `restore` (after a suspension) fire no webhook, as the partner document says.
 */
export type PortReason = 'activate' | 'install' | 'restore';
export const PORT_REASONS: readonly PortReason[] = ['activate', 'install', 'restore'];

export function enqueuePortJob(
  ex: Executor,
  jobs: Pick<JobQueue, 'enqueue'>,
  o: { subscriptionId: string; providerId: string; reason: PortReason },
) {
  return jobs.enqueue(ex, {
    kind: PORT_JOB_KIND,
    payload: { subscription_id: o.subscriptionId, reason: o.reason },
    providerId: o.providerId,
    subscriptionId: o.subscriptionId,
    maxAttempts: PORT_JOB_MAX_ATTEMPTS,
  });
}
