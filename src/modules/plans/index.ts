export { createPlansService, type PlansService } from './plans.service.js';
export * from './plans.schemas.js';
