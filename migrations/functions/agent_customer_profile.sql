-- The customer of this provider, whether a portal login exists and has a password, and its
-- subscriptions (creation order) with plan and service location (the subscription's building and
-- unit, else its location's) as a JSON array. No row: not this provider's customer.
CREATE OR REPLACE FUNCTION agent_customer_profile(p_provider uuid, p_customer uuid) RETURNS TABLE(id uuid, provider_id uuid, user_id uuid, customer_number text, first_name text, last_name text, email text, phone text, phone_e164 text, invoice_first_name text, invoice_last_name text, invoice_email text, invoice_phone text, invoice_street text, invoice_house_number text, invoice_postal_code text, invoice_city text, invoice_country text, portal_user_id uuid, portal_password_set boolean, subscriptions json)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET plan_cache_mode TO 'force_generic_plan'
    SET jit TO 'off'
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
