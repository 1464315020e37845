// The subscription-status process: the partner's suspend and restore.
export { createSubscriptionStatusService } from './subscription-status.service.js';
export { SubscriptionStatusBody, SubscriptionStatusResponse } from './subscription-status.schemas.js';
