import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import type { Webhooks } from '../../webhooks/types.js';
import { DeferJob, PermanentJobError, type JobRecord } from '../../jobs/types.js';
import { registerInstallJobs } from '../install/index.js';
import { findSubscription, PORT_JOB_KIND, PORT_REASONS, type PortReason } from '../subscriptions/index.js';
import { findPortWork, runningPortTakingJob } from './provisioning.repository.js';

/** How long a port job waits for a running reset or captive-portal job of the same port. */
const PORT_BUSY_RETRY_MS = 15_000;

/** Retry delays: 15 s, 1 min, 4 min, 16 min, 1 h (then the job fails for good). */
function portBackoffMs(attempt: number): number {
  return Math.min(3_600_000, 15_000 * 4 ** (attempt - 1));
}

function payloadOf(job: JobRecord): { subscriptionId: string; reason: PortReason } {
  const subscriptionId = typeof job.payload.subscription_id === 'string' ? job.payload.subscription_id : job.subscription_id;
  const reason = job.payload.reason as PortReason;
  if (!subscriptionId || !PORT_REASONS.includes(reason))
    throw new PermanentJobError('provisioning.port payload needs subscription_id and reason activate|install|restore');
  return { subscriptionId, reason };
}

export interface ProvisioningJobsDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  mailer: Mailer;
  config: Config;
  webhooks: Webhooks;
  adapters: Adapters;
  log: FastifyBaseLogger;
}

/**
 * provisioning.port: VLAN, bandwidth of the plan version and the optional MAC binding, applied
 * through the switch controller with the job id as the operation key, so a retried job (or one
 * whose worker died after the switch answered) is applied once. The subscription row is never
 * touched here: it was made ACTIVE by the transaction that queued the job, and it stays ACTIVE
 * when the port fails for good (the failure is the job's state and the provisioning.failed
 * webhook; an operator re-queues the port).
 */
export function registerProvisioningJobs(deps: ProvisioningJobsDeps) {
  const { db, adapters, webhooks } = deps;

  deps.jobs.register(PORT_JOB_KIND, {
    backoffMs: portBackoffMs,
    async run(job) {
      const { subscriptionId, reason } = payloadOf(job);
      const row = await findPortWork(db, subscriptionId);
      if (!row) throw new PermanentJobError('Subscription not found');
      // install and restore are queued by the transaction that made the subscription ACTIVE; one
      // overtaken by a suspension or a cancellation has nothing left to do (a later restore queues
      // its own). An install job of an older release, queued at confirmation before the payment,
      // finds PENDING_INSTALL: the payment's activation queues the port, so this one stands down.
      if (reason !== 'activate' && row.status !== 'ACTIVE') return { skipped: `subscription is ${row.status}` };
      if (row.status !== 'ACTIVE') throw new PermanentJobError(`Subscription is ${row.status}; the port was not provisioned`);
      if (!row.location_id) throw new PermanentJobError('Subscription has no switch port (location)');
      // Wait for a reset or captive-portal call already under way on this port, so it cannot land after ours.
      const busy = await runningPortTakingJob(db, row.location_id);
      if (busy) throw new DeferJob(new Date(deps.clock.now().getTime() + PORT_BUSY_RETRY_MS), `waiting for ${busy.kind} on the port`);
      await adapters.switchController.provisionPort({
        operationKey: job.id,
        locationId: row.location_id,
        switchId: row.switch_id,
        port: row.switch_port,
        vlanId: row.vlan_id,
        downloadMbps: row.download_mbps,
        uploadMbps: row.upload_mbps,
        macAddress: row.mac_address,
      });
      if (reason === 'activate') {
        // One statement (the event and its delivery job): atomic without a transaction.
        await webhooks.emit(db, {
          providerId: row.provider_id,
          type: 'provisioning.completed',
          subscriptionId: row.id,
          subscriberId: row.subscriber_id,
          data: { job_id: job.id, error: null, status: 'ACTIVE' },
        });
      }
      return { provisioned: true, location_id: row.location_id };
    },
    async onFailed(job, err) {
      const { subscriptionId, reason } = payloadOf(job);
      const error = err instanceof Error ? err.message : String(err);
      if (reason !== 'activate') return;
      const sub = await findSubscription(db, subscriptionId);
      if (!sub) return;
      await webhooks.emit(db, {
        providerId: sub.provider_id,
        type: 'provisioning.failed',
        subscriptionId: sub.id,
        subscriberId: sub.subscriber_id,
        data: { job_id: job.id, error, status: sub.status },
      });
    },
  });

  registerInstallJobs(deps);
}
