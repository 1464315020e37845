-- jobs.runNow() in SQL, for code that settles something inside the database: a queued job with one
-- of these dedupe keys becomes due now; a running one is marked (wake_requested) so the deferral it
-- is about to ask for becomes "due now". Looks rows up by key only (one CASE on status, which no
-- partial index predicate matches). Returns how many jobs were moved or marked.
CREATE OR REPLACE FUNCTION jobs_run_now(p_keys text[], p_now timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    SET plan_cache_mode TO 'force_generic_plan'
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
