// The rate-limit owner: the counters of the database-backed rate-limit store.
export { createRateLimitCounter } from './rate-limit.service.js';
export type { RateLimitCounter } from './rate-limit.service.js';
