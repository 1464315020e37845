// The idempotency owner: stored answers of Idempotency-Key requests.
export { createIdempotencyService } from './idempotency.service.js';
