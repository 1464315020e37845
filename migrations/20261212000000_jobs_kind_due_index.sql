-- migrate: no-transaction
-- Queued jobs by kind, in claim order within each: jobs_claim_v2 (migrations/functions/jobs_claim_v2.sql) walks it
-- once per kind of the claiming lane. Partial, like jobs_due_idx: a job leaves it when it is claimed. Its kind and its
-- predicate are in the "C" collation, which only that walk uses, so the planner never weighs it against the other
-- indexes on jobs (nor they against it), whatever the statistics say. Built beside reads and writes; the release
-- before goes on claiming through jobs_claim meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS jobs_kind_due_idx ON jobs USING btree ((kind COLLATE "C"), run_at, created_at) WHERE ((status COLLATE "C") = 'queued'::text)
