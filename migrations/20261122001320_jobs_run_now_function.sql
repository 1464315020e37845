-- jobs.runNow as one SQL function, so that code settling something inside the database (the webhook
-- outbox's batched recording, migration 20261122001330) wakes the jobs that waited for it in the
-- same transaction, with the same rule as the queue's runNow():
-- a queued job with one of these dedupe keys and a future run_at becomes due now; a running one is
-- marked (wake_requested) so that the deferral it is about to ask for becomes "due now".
-- Returns how many jobs were moved or marked.
CREATE FUNCTION jobs_run_now(p_keys text[], p_now timestamptz)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$
  WITH woken AS (
    UPDATE jobs SET run_at = CASE WHEN status = 'queued' THEN p_now ELSE run_at END,
      wake_requested = (status = 'running'), updated_at = p_now
    WHERE dedupe_key = ANY(p_keys) AND (status = 'running' OR (status = 'queued' AND run_at > p_now))
    RETURNING 1)
  SELECT count(*)::integer FROM woken
$$;
