-- "Occupies a unit or a port", defined once: PENDING, PENDING_INSTALL, ACTIVE or SUSPENDED, and
-- CANCELLED until its ended_at (exclusive), because the cancelled subscriber keeps the service and
-- the port until then (partner document, section 3). p_today is the application clock's UTC date.
-- The partial unique indexes subscriptions_unit_occupied_key / _location_occupied_key cover the four
-- live statuses only (an index predicate cannot depend on the date): they settle races between two
-- new subscriptions; a CANCELLED row never becomes live again.
CREATE OR REPLACE FUNCTION subscription_occupies(p_status text, p_ended_at date, p_today date) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT p_status IN ('PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED')
    OR (p_status = 'CANCELLED' AND p_ended_at IS NOT NULL AND p_ended_at > p_today)
$$;
