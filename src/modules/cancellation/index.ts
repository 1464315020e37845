// The cancellation process: quote and cancel a subscription, its final credit and the port reset job.
export { createCancellationService } from './cancellation.service.js';
export { registerCancellationJobs } from './cancellation.jobs.js';
