// The subscriptions owner: the shared reads of a subscription, its state changes (run by the
// processes inside their transactions), the occupancy rule (one live subscription per unit and
// port) and the queuing of its port job. Other modules import only this file.
export {
  activateIfPendingInstall,
  attachPort,
  findSubscription,
  findSubscriptionByExternalId,
  markCancelled,
  markPortReset,
  newSubscriptionWrites,
  restoreIfSuspendedForNonPayment,
  setBillingDay,
  setSubscriptionPlan,
  setSubscriptionStatus,
  suspendForNonPayment,
  type SubscriptionOrigin,
} from './subscriptions.repository.js';
export { findOccupant, occupies } from './occupancy.repository.js';
export { enqueuePortJob, PORT_JOB_KIND, PORT_JOB_MAX_ATTEMPTS, PORT_REASONS, type PortReason } from './port-job.js';
