-- Claims up to p_limit jobs of the given kinds under the caller's lock token, in this order:
-- 1. running jobs whose lease lapsed (their worker died);
-- 2. the oldest due job of each provider with queued jobs of these kinds (its "head"), the providers
--    with the fewest jobs running now first: one provider's burst (20,000 webhooks, a batch of port
--    jobs) cannot hold back another provider's single job by more than one claim;
-- 3. the other due jobs in (run_at, created_at) order, whatever their kinds.
-- The heads come from a loose walk of jobs_provider_due_idx (one index descent per provider and kind
-- with queued jobs, however long their queues), each head one more descent. They are read first,
-- without locks, and locked in the claim by the row versions the walk read: a lock taken inside the
-- walk would make PostgreSQL recheck the whole walk for every row a concurrent claim had changed. A
-- head another claim holds or has taken is skipped (that claim serves its provider). The other due
-- jobs come from one walk of jobs_kind_due_idx per kind. The head's ORDER BY names the index's
-- columns so that only jobs_provider_due_idx gives it (jobs_due_idx would filter one provider's
-- jobs out of every provider's).
-- The plan is generic (made once per connection: planning on every call cost more than running),
-- so it must not depend on the statistics, which are stale during a burst or say the table is empty:
-- sort, bitmap and sequential scans are off, the walks are of partial indexes, and the rows found
-- are locked and updated by their row versions (TID scans), never joined with jobs. A join planned
-- while jobs was empty (a new deployment, a database loaded or restored, a quiet day's vacuum) read
-- the whole table on every claim, and a burst of 20,000 webhooks drained at a tenth of its rate
-- (bench/README.md). The sorts left are of a few rows. JIT is off: the costs the disabled sorts add
-- would otherwise compile each call (half a second) for a statement of a few index descents.
-- A new name, not a new jobs_claim: function files are applied before the versioned files, so the
-- release before would have called a claim whose index (20261212000000) did not exist yet, and read
-- the whole table on every claim while it was built. jobs_claim goes in the next release
-- (migrations/README.md, "Waiting for the next release").
CREATE OR REPLACE FUNCTION jobs_claim_v2(p_kinds text[], p_now timestamp with time zone, p_limit integer, p_token text, p_locked_until timestamp with time zone) RETURNS TABLE(id uuid, kind text, payload jsonb, attempts integer, max_attempts integer, provider_id uuid, subscription_id uuid, prev_status text)
    LANGUAGE plpgsql
    SET enable_sort TO 'off'
    SET enable_bitmapscan TO 'off'
    SET enable_seqscan TO 'off'
    SET plan_cache_mode TO 'force_generic_plan'
    SET jit TO 'off'
    AS $$
#variable_conflict use_column
DECLARE
  v_heads uuid[];
  v_head_tids tid[];
  v_tids tid[];
  v_lapsed uuid[];
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
    SELECT DISTINCT ON (h.provider_id) h.id, h.ctid, h.provider_id, h.run_at, h.created_at FROM queues q
    CROSS JOIN LATERAL (
      SELECT j.id, j.ctid, j.provider_id, j.run_at, j.created_at FROM jobs j
      WHERE j.status = 'queued' AND j.provider_id = q.provider_id AND j.kind = q.kind AND j.run_at <= p_now
      ORDER BY j.provider_id, j.kind, j.run_at, j.created_at LIMIT 1) h
    WHERE q.kind = ANY(p_kinds)
    ORDER BY h.provider_id, h.run_at, h.created_at),
  running AS (
    SELECT j.provider_id, count(*) AS n FROM jobs j
    WHERE j.status = 'running' AND j.provider_id IS NOT NULL
    GROUP BY j.provider_id)
  SELECT array_agg(h.id ORDER BY coalesce(r.n, 0), h.run_at, h.created_at), array_agg(h.ctid) INTO v_heads, v_head_tids
  FROM heads h LEFT JOIN running r ON r.provider_id = h.provider_id;

  WITH lapsed AS (
    SELECT j.id, j.ctid, 'running'::text AS prev_status FROM jobs j
    WHERE j.status = 'running' AND j.locked_until < p_now AND j.kind = ANY(p_kinds)
    ORDER BY j.locked_until
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  -- The heads still queued, locked, found by the row versions the walk read (a TID scan). A head
  -- updated since (another claim took it) is not that version any more, and is left.
  first_of_each AS (
    SELECT j.id, j.ctid FROM jobs j
    WHERE j.ctid = ANY(v_head_tids)
      -- As a CASE, so that no index on id or status offers itself instead of the TID scan.
      AND CASE WHEN j.status = 'queued' THEN j.id = ANY(v_heads) ELSE false END
    ORDER BY array_position(v_heads, j.id)
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED),
  -- The oldest due jobs of each kind, a walk of jobs_kind_due_idx per kind, merged. One walk of
  -- jobs_due_idx for every kind read past every other lane's backlog on each claim: 20,000 webhooks
  -- queued made each claim of the shared lane read 20,000 rows to find none of its own. The index is
  -- on kind and status in the "C" collation, and only this walk asks in it: no other index can answer
  -- it, and it answers no other query, however the statistics make the planner weigh them.
  due AS (
    SELECT d.id, d.ctid FROM unnest(p_kinds) AS k(kind)
    CROSS JOIN LATERAL (
      SELECT j.id, j.ctid, j.run_at, j.created_at FROM jobs j
      WHERE j.status COLLATE "C" = 'queued' AND j.kind COLLATE "C" = k.kind AND j.run_at <= p_now
      ORDER BY j.run_at, j.created_at
      LIMIT p_limit
      FOR UPDATE SKIP LOCKED) d
    ORDER BY d.run_at, d.created_at
    LIMIT p_limit),
  next AS (
    SELECT l.id, l.ctid, l.prev_status FROM lapsed l
    UNION ALL SELECT f.id, f.ctid, 'queued'::text FROM first_of_each f
    UNION ALL SELECT d.id, d.ctid, 'queued'::text FROM due d WHERE d.id NOT IN (SELECT f.id FROM first_of_each f)
    LIMIT p_limit)
  SELECT array_agg(n.ctid), array_agg(n.id) FILTER (WHERE n.prev_status = 'running') INTO v_tids, v_lapsed FROM next n;

  -- The claimed rows by their locked versions (a TID scan again).
  RETURN QUERY
  UPDATE jobs SET status = 'running', attempts = jobs.attempts + 1, locked_by = p_token, wake_requested = false,
    locked_until = p_locked_until, updated_at = p_now
  WHERE jobs.ctid = ANY(v_tids)
  RETURNING jobs.id, jobs.kind, jobs.payload, jobs.attempts, jobs.max_attempts, jobs.provider_id,
    jobs.subscription_id, CASE WHEN jobs.id = ANY(v_lapsed) THEN 'running' ELSE 'queued' END;
END
$$;
