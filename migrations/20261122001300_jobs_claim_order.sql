-- Job claims take a batch of due jobs in (run_at, created_at) order. With an index in exactly that
-- order the claim reads the first rows and stops; the old index (run_at only) made every claim sort
-- the whole due backlog, which grew with the backlog (a 20,000-job burst cost milliseconds per claim).
CREATE INDEX jobs_due_idx ON jobs (run_at, created_at) WHERE status = 'queued';
DROP INDEX jobs_claim_idx;
