-- Everything the plan-change preview decides on, in one read: the subscription of this provider and
-- subscriber, the current and the new plan version, whether it changed today (a rollback does not count), whether the month is
-- invoiced and has its billing document, and the carried correction.
CREATE OR REPLACE FUNCTION plan_change_preview_snapshot(
  p_provider uuid, p_subscription uuid, p_subscriber uuid, p_plan_version uuid, p_today date, p_month date, p_per_subscription boolean)
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
    CASE WHEN p_per_subscription
      THEN EXISTS (SELECT 1 FROM plan_changes pc WHERE pc.subscription_id = s.id AND pc.change_date = p_today AND pc.source <> 'rollback')
      ELSE EXISTS (SELECT 1 FROM plan_changes pc WHERE pc.subscriber_id = s.subscriber_id AND pc.change_date = p_today AND pc.source <> 'rollback')
    END,
    EXISTS (SELECT 1 FROM invoices i WHERE i.subscription_id = s.id AND i.kind = 'monthly' AND i.period_start = p_month),
    EXISTS (SELECT 1 FROM billing_documents d WHERE d.subscription_id = s.id AND d.period_start = p_month),
    (SELECT coalesce(json_agg(json_build_object('id', a.id, 'amount_cents', a.amount_cents) ORDER BY a.created_at, a.id), '[]'::json)
     FROM pending_adjustments a WHERE a.subscription_id = s.id AND a.kind = 'carried_correction' AND a.status = 'pending')
  FROM subscriptions s
  WHERE s.id = p_subscription AND s.provider_id = p_provider AND (p_subscriber IS NULL OR s.subscriber_id = p_subscriber);
END
$$;
