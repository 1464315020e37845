-- The verified profile read and the plan-change preview's snapshot as PL/pgSQL functions: their
-- statements are planned once per connection (generic plans) instead of on every request. Both are
-- lookups by id whose plans never depend on the values; planning them was 85 % of their database
-- time (the profile statement: 450 µs a call planned each time, 60 µs prepared, measured at 1M
-- customers). The answers are the rows the Kysely statements read before (customers.repository.ts,
-- plan-change.repository.ts); JSON keys are those statements' column names.

-- The customer of this provider, whether a portal login exists and has a password, and its
-- subscriptions (creation order) with plan and service location (the subscription's building and
-- unit, else its location's) as a JSON array. No row: not this provider's customer.
CREATE FUNCTION agent_customer_profile(p_provider uuid, p_customer uuid)
RETURNS TABLE (
  id uuid, provider_id uuid, user_id uuid, customer_number text, first_name text, last_name text, email text, phone text,
  phone_e164 text, invoice_first_name text, invoice_last_name text, invoice_email text, invoice_phone text,
  invoice_street text, invoice_house_number text, invoice_postal_code text, invoice_city text, invoice_country text,
  portal_user_id uuid, portal_password_set boolean, subscriptions json
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT c.id, c.provider_id, c.user_id, c.customer_number, c.first_name, c.last_name, c.email, c.phone, c.phone_e164,
    c.invoice_first_name, c.invoice_last_name, c.invoice_email, c.invoice_phone, c.invoice_street, c.invoice_house_number,
    c.invoice_postal_code, c.invoice_city, c.invoice_country::text, pu.id, pu.password_hash IS NOT NULL,
    (SELECT coalesce(json_agg(json_build_object(
        'id', s.id, 'status', s.status, 'service_billed', s.service_billed, 'billing_day', s.billing_day,
        'billing_day_effective_from', s.billing_day_effective_from, 'previous_billing_day', s.previous_billing_day,
        'suspended_reason', s.suspended_reason, 'activated_at', s.activated_at, 'canceled_at', s.canceled_at,
        'ended_at', s.ended_at, 'created_at', s.created_at, 'plan_version_id', s.plan_version_id,
        'plan_name', pv.name, 'monthly_price_cents', pv.monthly_price_cents, 'currency', pv.currency,
        'download_mbps', pv.download_mbps, 'upload_mbps', pv.upload_mbps,
        'building_id', b.id, 'building_name', b.name, 'street', b.street, 'house_number', b.house_number,
        'postal_code', b.postal_code, 'city', b.city, 'country', b.country, 'unit_id', u.id, 'unit_label', u.label)
        ORDER BY s.created_at, s.id), '[]'::json)
     FROM subscriptions s
     JOIN plan_versions pv ON pv.id = s.plan_version_id
     LEFT JOIN locations l ON l.id = s.location_id
     LEFT JOIN buildings b ON b.id = coalesce(s.building_id, l.building_id)
     LEFT JOIN units u ON u.id = coalesce(s.unit_id, l.unit_id)
     WHERE s.subscriber_id = c.id)
  FROM subscribers c
  LEFT JOIN users pu ON pu.id = c.user_id
  WHERE c.id = p_customer AND c.provider_id = p_provider;
END
$$;

-- What a plan-change preview decides on: the subscription (of the provider and, unless
-- p_subscriber is NULL, of that subscriber), the target and the current plan version (JSON, NULL
-- when missing), whether the subscriber already changed plan on p_today, whether p_month's monthly
-- invoice and billing document exist, and the pending carried corrections (JSON, oldest first).
CREATE FUNCTION plan_change_preview_snapshot(
  p_provider uuid, p_subscription uuid, p_subscriber uuid, p_plan_version uuid, p_today date, p_month date)
RETURNS TABLE (
  id uuid, provider_id uuid, subscriber_id uuid, plan_version_id uuid, location_id uuid, status text, service_billed boolean,
  billing_day integer, billing_day_effective_from date, previous_billing_day integer,
  new_plan json, current_plan json, changed_today boolean, invoice boolean, document boolean, carried json
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT s.id, s.provider_id, s.subscriber_id, s.plan_version_id, s.location_id, s.status, s.service_billed,
    s.billing_day, s.billing_day_effective_from, s.previous_billing_day,
    (SELECT to_json(v) FROM (
       SELECT pv.id, pv.provider_id, pv.name, pv.monthly_price_cents, pv.currency, pv.active, pv.download_mbps, pv.upload_mbps
       FROM plan_versions pv WHERE pv.id = p_plan_version) v),
    (SELECT to_json(v) FROM (
       SELECT pv.id, pv.provider_id, pv.name, pv.monthly_price_cents, pv.currency, pv.active, pv.download_mbps, pv.upload_mbps
       FROM plan_versions pv WHERE pv.id = s.plan_version_id) v),
    EXISTS (SELECT 1 FROM plan_changes pc WHERE pc.subscriber_id = s.subscriber_id AND pc.change_date = p_today),
    EXISTS (SELECT 1 FROM invoices i WHERE i.subscription_id = s.id AND i.kind = 'monthly' AND i.period_start = p_month),
    EXISTS (SELECT 1 FROM billing_documents d WHERE d.subscription_id = s.id AND d.period_start = p_month),
    (SELECT coalesce(json_agg(json_build_object('id', a.id, 'amount_cents', a.amount_cents) ORDER BY a.created_at, a.id), '[]'::json)
     FROM pending_adjustments a WHERE a.subscription_id = s.id AND a.kind = 'carried_correction' AND a.status = 'pending')
  FROM subscriptions s
  WHERE s.id = p_subscription AND s.provider_id = p_provider AND (p_subscriber IS NULL OR s.subscriber_id = p_subscriber);
END
$$;
