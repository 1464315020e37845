// The audit owner: audit rows are written only through these, inside the caller's transaction.
export { auditWrite, recordAudit, type AuditInput } from './audit.repository.js';
export type { Actor } from './audit.types.js';
