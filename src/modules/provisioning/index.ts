// The provisioning process: creating a subscriber and subscription from a partner request, routing
// it to a port job or an install job, confirming installs, and the port job itself.
export {
  createProvisioningService,
  MSG,
  type ProvisioningService,
  type ProvisionResult,
  type RequestContext,
} from './provisioning.service.js';
export { createConfirmInstallService } from './confirm-install.service.js';
export { registerProvisioningJobs } from './provisioning.jobs.js';
export type { SubscriberInput } from './provisioning.subscribers.js';
export {
  AnonymousCompleteBody,
  AnonymousCompleteResponse,
  BulkBody,
  BulkResponse,
  CompleteBody,
  CompleteReplayResponse,
  ConfirmInstallBody,
  ConfirmInstallResponse,
  JobParams,
  JobResponse,
  ProviderInitiatedBody,
  ProvisioningResponse,
} from './provisioning.schemas.js';
export { provisionBulk } from './provisioning.bulk.js';
