-- The job claim and the wake-up keep their plan across calls.
--
-- A LANGUAGE sql function that cannot be inlined (these write, and the claim SETs options) is
-- planned again on every call: PostgreSQL before 18 keeps a SQL function's plan only for that one
-- call. For the claim that planning was most of its cost: under a burst of 20,000 webhooks each
-- claim took 2.0-2.5 ms, about 1.5 ms of it planning, which also probes the ends of jobs_due_idx for
-- `run_at <= now` and walks the entries of jobs finished since the last vacuum. As PL/pgSQL with a
-- generic plan the statement is planned once per connection: 0.70 to 0.43 ms per claim of 12 jobs
-- from a queue of 20,000 (one connection, measured alternately).
--
-- The statements, their order and their results are unchanged (migrations 20261122001310 and
-- 20261122001350); enable_sort and enable_bitmapscan stay off so the one plan is the index walk in
-- claim order whatever the statistics say.
CREATE OR REPLACE FUNCTION jobs_claim(p_kinds text[], p_now timestamptz, p_limit integer, p_token text, p_locked_until timestamptz)
RETURNS TABLE (id uuid, kind text, payload jsonb, attempts integer, max_attempts integer, provider_id uuid,
  subscription_id uuid, prev_status text)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH lapsed AS (
    SELECT j.id, 'running'::text AS prev_status FROM jobs j
    WHERE j.status = 'running' AND j.locked_until < p_now AND j.kind = ANY(p_kinds)
    ORDER BY j.locked_until
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  due AS (
    SELECT j.id, 'queued'::text AS prev_status FROM jobs j
    WHERE j.status = 'queued' AND j.run_at <= p_now AND j.kind = ANY(p_kinds)
    ORDER BY j.run_at, j.created_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  next AS (SELECT l.id, l.prev_status FROM lapsed l UNION ALL SELECT d.id, d.prev_status FROM due d LIMIT p_limit)
  UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, locked_by = p_token, wake_requested = false,
    locked_until = p_locked_until, updated_at = p_now
  FROM next WHERE jobs.id = next.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts, jobs.provider_id,
    jobs.subscription_id, next.prev_status;
END
$$;

CREATE OR REPLACE FUNCTION jobs_run_now(p_keys text[], p_now timestamptz)
RETURNS integer
LANGUAGE plpgsql VOLATILE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  v_count integer;
BEGIN
  WITH woken AS (
    UPDATE jobs SET run_at = CASE WHEN status = 'queued' THEN p_now ELSE run_at END,
      wake_requested = (status = 'running'), updated_at = p_now
    WHERE dedupe_key = ANY(p_keys)
      AND CASE status WHEN 'running' THEN true WHEN 'queued' THEN run_at > p_now ELSE false END
    RETURNING 1)
  SELECT count(*)::integer INTO v_count FROM woken;
  RETURN v_count;
END
$$;
