-- Claims up to p_limit jobs of the given kinds under the caller's lock token, in this order:
-- 1. running jobs whose lease lapsed (their worker died);
-- 2. the oldest due job of each provider with queued jobs of these kinds (its "head"), the providers
--    with the fewest jobs running now first: one provider's burst (20,000 webhooks, a batch of port
--    jobs) cannot hold back another provider's single job by more than one claim;
-- 3. the other due jobs in (run_at, created_at) order.
-- The heads come from a loose walk of jobs_provider_due_idx (one index descent per provider and kind
-- with queued jobs, however long their queues), each head one more descent. They are read first,
-- without locks, and locked by id in the claim: a lock taken inside the walk would make PostgreSQL
-- recheck the whole walk for every row a concurrent claim had changed. A head another claim holds
-- is skipped (that claim serves its provider). Sort and bitmap scans are off for this function so
-- the plan stays the ordered walks of the partial indexes, whatever the table statistics say (they
-- are stale during a burst); the sorts left are of a few rows. The head's ORDER BY names the index's
-- columns so that only jobs_provider_due_idx gives it (jobs_due_idx would filter one provider's
-- jobs out of every provider's). JIT is off: the costs the disabled sorts add would otherwise
-- compile each call (half a second) for a statement of a few index descents.
CREATE OR REPLACE FUNCTION jobs_claim(p_kinds text[], p_now timestamp with time zone, p_limit integer, p_token text, p_locked_until timestamp with time zone) RETURNS TABLE(id uuid, kind text, payload jsonb, attempts integer, max_attempts integer, provider_id uuid, subscription_id uuid, prev_status text)
    LANGUAGE plpgsql
    SET enable_sort TO 'off'
    SET enable_bitmapscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    SET jit TO 'off'
    AS $$
#variable_conflict use_column
DECLARE
  v_heads uuid[];
BEGIN
  WITH RECURSIVE queues AS (
    -- Every (provider, kind) with queued jobs, in index order: a skip from one pair to the next.
    (SELECT j.provider_id, j.kind FROM jobs j
     WHERE j.status = 'queued' AND j.provider_id IS NOT NULL
     ORDER BY j.provider_id, j.kind LIMIT 1)
    UNION ALL
    SELECT nxt.provider_id, nxt.kind FROM queues q
    CROSS JOIN LATERAL (
      SELECT j.provider_id, j.kind FROM jobs j
      WHERE j.status = 'queued' AND j.provider_id IS NOT NULL AND (j.provider_id, j.kind) > (q.provider_id, q.kind)
      ORDER BY j.provider_id, j.kind LIMIT 1) nxt),
  heads AS (
    SELECT DISTINCT ON (h.provider_id) h.id, h.provider_id, h.run_at, h.created_at FROM queues q
    CROSS JOIN LATERAL (
      SELECT j.id, j.provider_id, j.run_at, j.created_at FROM jobs j
      WHERE j.status = 'queued' AND j.provider_id = q.provider_id AND j.kind = q.kind AND j.run_at <= p_now
      ORDER BY j.provider_id, j.kind, j.run_at, j.created_at LIMIT 1) h
    WHERE q.kind = ANY(p_kinds)
    ORDER BY h.provider_id, h.run_at, h.created_at),
  running AS (
    SELECT j.provider_id, count(*) AS n FROM jobs j
    WHERE j.status = 'running' AND j.provider_id IS NOT NULL
    GROUP BY j.provider_id)
  SELECT array_agg(h.id ORDER BY coalesce(r.n, 0), h.run_at, h.created_at) INTO v_heads
  FROM heads h LEFT JOIN running r ON r.provider_id = h.provider_id;

  RETURN QUERY
  WITH lapsed AS (
    SELECT j.id, 'running'::text AS prev_status FROM jobs j
    WHERE j.status = 'running' AND j.locked_until < p_now AND j.kind = ANY(p_kinds)
    ORDER BY j.locked_until
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  first_of_each AS (
    SELECT j.id FROM unnest(v_heads) WITH ORDINALITY AS h(id, turn)
    JOIN jobs j ON j.id = h.id
    -- "still queued" as a CASE, so the plan is primary-key lookups, not a walk of a partial index on status.
    WHERE CASE j.status WHEN 'queued' THEN true ELSE false END
    ORDER BY h.turn
    LIMIT p_limit
    FOR UPDATE OF j SKIP LOCKED),
  due AS (
    SELECT j.id FROM jobs j
    WHERE j.status = 'queued' AND j.run_at <= p_now AND j.kind = ANY(p_kinds)
    ORDER BY j.run_at, j.created_at
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  next AS (
    SELECT l.id, l.prev_status FROM lapsed l
    UNION ALL SELECT f.id, 'queued'::text FROM first_of_each f
    UNION ALL SELECT d.id, 'queued'::text FROM due d WHERE d.id NOT IN (SELECT f.id FROM first_of_each f)
    LIMIT p_limit)
  UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, locked_by = p_token, wake_requested = false,
    locked_until = p_locked_until, updated_at = p_now
  FROM next WHERE jobs.id = next.id
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts, jobs.provider_id,
    jobs.subscription_id, next.prev_status;
END
$$;
