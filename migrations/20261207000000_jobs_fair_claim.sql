-- The claim's per-provider heads (migrations/functions/jobs_claim.sql): queued jobs by provider and
-- kind, in claim order within each. Partial, like jobs_due_idx: a job leaves it when it is claimed.
CREATE INDEX jobs_provider_due_idx ON jobs USING btree (provider_id, kind, run_at, created_at) WHERE (status = 'queued'::text);
