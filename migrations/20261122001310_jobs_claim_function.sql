-- The job claim as one function, so its plan does not depend on table statistics.
--
-- A burst of jobs lands between two auto-analyzes: the statistics still say "almost nothing is
-- queued", and the planner then picks a bitmap scan that reads every due row plus a sort of all of
-- them, for every claim (seen: 20-40 ms per claim with 5,000-20,000 due jobs, growing with the
-- backlog). With sort and bitmap scans off for this function only, the one plan left is the one a
-- queue wants whatever the statistics say: walk the partial index in claim order and stop after
-- `p_limit` rows. Plain index scans also mark the index entries of finished jobs dead as they pass
-- them, so later claims skip them even before vacuum has run.
--
-- Running jobs whose lease lapsed (their worker died) come first, then queued due jobs in
-- (run_at, created_at) order; all get the caller's lock token (writes after the claim are fenced on it).
CREATE FUNCTION jobs_claim(p_kinds text[], p_now timestamptz, p_limit integer, p_token text, p_locked_until timestamptz)
RETURNS TABLE (id uuid, kind text, payload jsonb, attempts integer, max_attempts integer, provider_id uuid,
  subscription_id uuid, prev_status text)
LANGUAGE sql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
AS $$
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
    jobs.subscription_id, next.prev_status
$$;
