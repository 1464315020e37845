// Maintenance: the retention job that deletes expired rows.
export { registerRetentionJobs } from './retention.jobs.js';
