-- Claims up to p_limit jobs of the given kinds under the caller's lock token: running jobs whose
-- lease lapsed (their worker died) first, then queued due jobs in (run_at, created_at) order. Sort
-- and bitmap scans are off for this function so the one plan left is the walk of jobs_due_idx in
-- claim order, whatever the table statistics say (they are stale during a burst).
CREATE OR REPLACE FUNCTION jobs_claim(p_kinds text[], p_now timestamp with time zone, p_limit integer, p_token text, p_locked_until timestamp with time zone) RETURNS TABLE(id uuid, kind text, payload jsonb, attempts integer, max_attempts integer, provider_id uuid, subscription_id uuid, prev_status text)
    LANGUAGE plpgsql
    SET enable_sort TO 'off'
    SET enable_bitmapscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
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
