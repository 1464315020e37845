import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError } from '../../adapters/types.js';
import { PermanentJobError } from '../../jobs/types.js';
import * as repo from './plan-change.repository.js';

/** Sets the port bandwidth of a plan change when the synchronous attempt did not settle it. */
export const BANDWIDTH_JOB = 'plan_change.update_bandwidth';

/** The job waits this long, so the synchronous attempt after the commit goes first. */
export const BANDWIDTH_RETRY_DELAY_MS = 60_000;

/** The switch applies an operation key once, so the request and the job may both send it. */
export const bandwidthOperationKey = (planChangeId: string) => `plan-change:${planChangeId}:bandwidth`;

export interface PlanChangeJobsDeps {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  jobs: JobQueue;
  adapters: Adapters;
}

export function registerPlanChangeJobs({ db, clock, log, jobs, adapters }: PlanChangeJobsDeps) {
  jobs.register(BANDWIDTH_JOB, {
    async run(job) {
      const id = job.payload.plan_change_id;
      if (typeof id !== 'string') throw new PermanentJobError('payload lacks plan_change_id');
      const w = await repo.findBandwidthWork(db, id);
      if (!w) throw new PermanentJobError(`plan change ${id} not found`);
      if (w.bandwidth_status !== 'pending' && w.bandwidth_status !== 'failed') return { skipped: w.bandwidth_status };
      if (!w.location_id) {
        await repo.setBandwidthStatus(db, id, 'no_port', clock.now());
        return { skipped: 'no_port' };
      }
      // A later change (or a suspension, whose restore re-provisions at the current plan) owns the port now.
      if (w.current_plan_version_id !== w.to_plan_version_id || w.subscription_status !== 'ACTIVE') {
        await repo.setBandwidthStatus(db, id, 'superseded', clock.now());
        return { skipped: 'superseded' };
      }
      const r = await adapters.switchController.updateBandwidth({
        operationKey: bandwidthOperationKey(id),
        locationId: w.location_id,
        downloadMbps: w.download_mbps,
        uploadMbps: w.upload_mbps,
      });
      await repo.setBandwidthStatus(db, id, r.applied ? 'applied' : 'awaiting_operator', clock.now());
      return { applied: r.applied };
    },
    async onFailed(job, err) {
      const id = job.payload.plan_change_id;
      if (typeof id !== 'string') return;
      await repo.setBandwidthStatus(db, id, 'failed', clock.now());
      log.error(
        { plan_change_id: id, err: err instanceof AdapterError ? `${err.system}:${err.failure}` : String(err) },
        'plan change bandwidth could not be set on the switch; an operator must set it',
      );
    },
  });
}
