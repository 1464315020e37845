-- Everything provider-initiated (and bulk) provisioning decides on, in one read: the plan version,
-- the port (location_hash) or unit (unit_id) with its building, the subscriber of the email, the
-- existing subscription of the idempotency key, and whether a subscription occupies the unit or port
-- (subscription_occupies). Exactly one of p_location_hash / p_unit is given; the answer is one row
-- whatever is missing (found flags and NULLs), and the caller answers 422/409/replay in the order
-- the API documents.
CREATE OR REPLACE FUNCTION provisioning_explicit_snapshot(p_provider uuid, p_plan uuid, p_location_hash text, p_unit uuid, p_email text, p_today date) RETURNS TABLE(plan_found boolean, plan_active boolean, target_found boolean, location_id uuid, unit_id uuid, switch_port text, building_id uuid, line_type text, in_coverage boolean, country text, existing_id uuid, existing_subscriber_id uuid, occupied boolean, subscriber_id uuid, subscriber_email text, subscriber_first_name text)
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT pv.id IS NOT NULL, coalesce(pv.active, false),
    t.building_id IS NOT NULL, t.location_id, t.unit_id, t.switch_port,
    t.building_id, t.line_type, t.in_coverage, t.country::text,
    ex.id, ex.subscriber_id,
    occ.id IS NOT NULL,
    sb.id, sb.email, sb.first_name
  FROM (SELECT 1) AS one
  LEFT JOIN plan_versions pv ON pv.id = p_plan AND pv.provider_id = p_provider
  LEFT JOIN LATERAL (
    (SELECT l.id AS location_id, l.unit_id, l.switch_port, b.id AS building_id, b.line_type, b.in_coverage, b.country
     FROM locations l JOIN buildings b ON b.id = l.building_id
     WHERE p_location_hash IS NOT NULL AND l.location_hash = p_location_hash AND l.provider_id = p_provider)
    UNION ALL
    (SELECT NULL::uuid, u.id, NULL::text, b.id, b.line_type, b.in_coverage, b.country
     FROM units u JOIN buildings b ON b.id = u.building_id
     WHERE p_location_hash IS NULL AND u.id = p_unit AND b.provider_id = p_provider)
    LIMIT 1
  ) t ON true
  LEFT JOIN subscribers sb ON sb.provider_id = p_provider AND lower(sb.email) = lower(p_email)
  -- The idempotency key names the location the caller named: the port (direct) or the unit (home_drop).
  LEFT JOIN LATERAL (
    SELECT s.id, s.subscriber_id FROM subscriptions s
    WHERE s.subscriber_id = sb.id AND s.provider_id = p_provider AND s.plan_version_id = p_plan
      AND s.status IN ('PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED')
      AND ((p_location_hash IS NOT NULL AND s.location_id = t.location_id) OR (p_location_hash IS NULL AND s.unit_id = p_unit))
    ORDER BY s.created_at DESC
    LIMIT 1
  ) ex ON true
  -- Occupancy: subscription_occupies, the one definition (a cancelled subscription until its ended_at too).
  LEFT JOIN LATERAL (
    SELECT s.id FROM subscriptions s
    WHERE subscription_occupies(s.status, s.ended_at, p_today)
      AND (s.unit_id = t.unit_id OR s.location_id = t.location_id)
    LIMIT 1
  ) occ ON true;
END
$$;
