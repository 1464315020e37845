import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { DeferJob, PermanentJobError } from '../../jobs/types.js';
import { isoDate, parseIsoDate } from '../../lib/dates.js';
import { isUuid } from '../../lib/ids.js';
import { findOccupant, findSubscription, markPortReset } from '../subscriptions/index.js';

import { PORT_RESET_JOB } from './cancellation.service.js';

export interface CancellationJobsDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  adapters: Adapters;
}

/**
 * `cancellation.port_reset` runs at ended_at (00:00 UTC of the end date): resets the port through
 * the switch controller and sets port_reset_at. It never touches a port another subscription
 * occupies (subscription_occupies): one let again from ended_at on, or a line provisioned on it
 * before the occupancy rule held a cancelled subscription's port until its ended_at.
 */
export function registerCancellationJobs(deps: CancellationJobsDeps) {
  deps.jobs.register(PORT_RESET_JOB, {
    async run(job) {
      const id = job.payload.subscription_id;
      if (typeof id !== 'string' || !isUuid(id)) throw new PermanentJobError('payload.subscription_id must be a UUID');
      const sub = await findSubscription(deps.db, id);
      if (!sub || sub.status !== 'CANCELLED' || !sub.ended_at) return { skipped: 'not_cancelled' };
      if (sub.port_reset_at) return { skipped: 'already_reset' };
      if (isoDate(deps.clock.now()) < sub.ended_at) throw new DeferJob(parseIsoDate(sub.ended_at), 'service lasts until ended_at');
      if (!sub.location_id) return { skipped: 'no_port' };
      const successor = await findOccupant(deps.db, { locationId: sub.location_id, today: isoDate(deps.clock.now()), exceptId: sub.id });
      if (successor) return { skipped: 'location_in_use', by_subscription_id: successor.id };
      await deps.adapters.switchController.resetPort({ operationKey: `reset:cancel:${sub.id}`, locationId: sub.location_id });
      await markPortReset(deps.db, sub.id, deps.clock.now());
      return { port_reset: true };
    },
  });
}
