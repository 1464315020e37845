-- Records a batch of successful webhook attempts in one call, with the same steps and locks as the
-- one-by-one path: lock the deliveries (id order, so two batches never wait on each other in a
-- cycle), record the attempt, mark the delivery delivered (unless a worker that took over a lapsed
-- lease settled it meanwhile: then only the attempt counts), clear blocked_by on the deliveries that
-- waited for it and wake their jobs (jobs_run_now). Returns per recorded delivery its previous status
-- and the attempt number; an unknown id is not returned.
CREATE OR REPLACE FUNCTION webhook_record_delivered(p_ids text[], p_attempt_ids uuid[], p_urls text[], p_status_codes integer[], p_durations_ms integer[], p_attempted_at timestamp with time zone[], p_now timestamp with time zone, p_job_key_prefix text) RETURNS TABLE(delivery_id text, prev_status text, attempt integer)
    LANGUAGE plpgsql
    AS $$
#variable_conflict use_column
DECLARE
  v_ids text[];
  v_prev text[];
  v_attempts integer[];
  v_keys text[];
BEGIN
  PERFORM 1 FROM webhook_deliveries d WHERE d.id = ANY(p_ids) ORDER BY d.id FOR UPDATE;

  WITH input AS (
    SELECT * FROM unnest(p_ids, p_attempt_ids, p_urls, p_status_codes, p_durations_ms, p_attempted_at)
      AS t(id, attempt_id, url, status_code, duration_ms, attempted_at)),
  cur AS (
    SELECT d.id, d.status, d.attempts FROM webhook_deliveries d JOIN input i ON i.id = d.id),
  att AS (
    INSERT INTO webhook_attempts (id, delivery_id, attempt, url, status_code, error, duration_ms, created_at)
    SELECT i.attempt_id, c.id, c.attempts + 1, i.url, i.status_code, NULL, i.duration_ms, i.attempted_at
    FROM cur c JOIN input i ON i.id = c.id),
  upd AS (
    UPDATE webhook_deliveries d SET attempts = c.attempts + 1, next_attempt_at = NULL, blocked_by = NULL,
      status = CASE WHEN c.status = 'pending' THEN 'delivered' ELSE d.status END,
      delivered_at = CASE WHEN c.status = 'pending' THEN p_now ELSE d.delivered_at END
    FROM cur c WHERE d.id = c.id
    RETURNING d.id, c.status AS prev_status, c.attempts + 1 AS attempt)
  SELECT array_agg(u.id), array_agg(u.prev_status), array_agg(u.attempt) INTO v_ids, v_prev, v_attempts FROM upd u;

  WITH followers AS (
    UPDATE webhook_deliveries f SET blocked_by = NULL
    WHERE f.blocked_by = ANY(
        SELECT x.id FROM unnest(v_ids, v_prev) AS x(id, prev_status) WHERE x.prev_status = 'pending')
    RETURNING f.id, f.status)
  SELECT array_agg(p_job_key_prefix || f.id) FILTER (WHERE f.status = 'pending') INTO v_keys FROM followers f;
  IF v_keys IS NOT NULL THEN
    PERFORM jobs_run_now(v_keys, p_now);
  END IF;

  RETURN QUERY SELECT x.id, x.prev_status, x.attempt FROM unnest(v_ids, v_prev, v_attempts) AS x(id, prev_status, attempt);
END
$$;
