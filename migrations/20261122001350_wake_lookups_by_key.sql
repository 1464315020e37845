-- Wake-ups look rows up by key only, so their plans cannot depend on table statistics.
--
-- A condition such as status = 'pending' (or 'running' / 'queued') lets the planner walk a partial
-- index with that predicate and filter on the key instead of using the key's index. With
-- statistics taken while the outbox or the queue was empty that walk looks free; during a burst
-- or an outage (thousands of pending deliveries, of retries queued for later) it reads all of
-- them, for every call. Seen with plain ANALYZE: jobs_run_now as a BitmapOr over jobs_lease_idx and
-- jobs_due_idx, the follower release as a walk of webhook_deliveries_pending_order_idx.

-- Same rule as before (a queued job with a future run_at becomes due now, a running one is marked);
-- the status test is one CASE expression, which no partial index predicate matches, so the only
-- index left is the unique one on dedupe_key.
CREATE OR REPLACE FUNCTION jobs_run_now(p_keys text[], p_now timestamptz)
RETURNS integer
LANGUAGE sql VOLATILE
AS $$
  WITH woken AS (
    UPDATE jobs SET run_at = CASE WHEN status = 'queued' THEN p_now ELSE run_at END,
      wake_requested = (status = 'running'), updated_at = p_now
    WHERE dedupe_key = ANY(p_keys)
      AND CASE status WHEN 'running' THEN true WHEN 'queued' THEN run_at > p_now ELSE false END
    RETURNING 1)
  SELECT count(*)::integer FROM woken
$$;

-- As in migration 20261122001330, except the follower step: it finds the deliveries that waited
-- by blocked_by alone (its own index) and clears the pointer on all of them. Only a pending
-- delivery ever waits - settling clears blocked_by - and on a settled one clearing a stale pointer
-- changes nothing; only the pending ones' jobs are woken.
CREATE OR REPLACE FUNCTION webhook_record_delivered(p_ids text[], p_attempt_ids uuid[], p_urls text[], p_status_codes integer[],
  p_durations_ms integer[], p_attempted_at timestamptz[], p_now timestamptz, p_job_key_prefix text)
RETURNS TABLE (delivery_id text, prev_status text, attempt integer)
LANGUAGE plpgsql VOLATILE
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
