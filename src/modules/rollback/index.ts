// The rollback process: undoing a plan change or a contact edit from its confirmation link, and the
// agent's list of recent changes (with a resend of their mail).
export { createRollbackService } from './rollback.service.js';
export { createRecentChanges } from './rollback.recent.js';
export { RecentChanges, ResendConfirmationResponse } from './rollback.recent.js';
export type { RollbackState, RollbackView } from './rollback.service.js';
