// The plan-change process: preview, apply (one a day), its billing adjustment and the bandwidth job.
export { createPlanChangeService, type PlanChangeService } from './plan-change.service.js';
export { registerPlanChangeJobs } from './plan-change.jobs.js';
export {
  ADJUSTMENT_TYPES,
  AgentApplyResponse,
  AgentPreviewResponse,
  PartnerChangeResponse,
  PartnerPreviewResponse,
  QUOTE_RULE,
  agentApplyBody,
  agentPreviewBody,
  agentTarget,
  partnerPreviewBody,
  requireConfirmed,
  requireQuoteToken,
} from './plan-change.schemas.js';
export { PlanOptionsResponse } from './plan-options.js';
export type { ApplyResult } from './plan-change.service.js';
export { calendarPosition, proratedDifferenceCents } from './plan-change.quote.js';
