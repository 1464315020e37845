-- Plan-change daily limits, as the documents give them:
--   partner (POST /partner/subscriptions/{id}/change-plan): once per UTC calendar day per subscription,
--     so a subscriber with two lines can change both the same day;
--   /agent: one change per UTC calendar day per customer (any of their subscriptions);
--   a platform administrator may override either (source 'admin'), always with a reason.
-- A change of any source counts for the checks that follow it (the services check before inserting).
--
-- The old UNIQUE (subscriber_id, change_date) would refuse the partner's second line and the override.
-- These two indexes hold what the rules allow, whatever order concurrent requests commit in: at most one
-- non-override change per subscription and day, and at most one /agent change per customer and day
-- (an /agent change that raced a partner change of another line reads as the first of the day).
ALTER TABLE plan_changes DROP CONSTRAINT plan_changes_subscriber_id_change_date_key;
CREATE UNIQUE INDEX plan_changes_subscription_day_key ON plan_changes (subscription_id, change_date) WHERE source <> 'admin';
CREATE UNIQUE INDEX plan_changes_agent_customer_day_key ON plan_changes (subscriber_id, change_date) WHERE source = 'agent';
-- The /agent check reads every change of the customer on the day, overrides included.
CREATE INDEX plan_changes_subscriber_day_idx ON plan_changes (subscriber_id, change_date);

-- An override says why; no other change carries a reason.
ALTER TABLE plan_changes
  ADD COLUMN override_reason text,
  ADD CONSTRAINT plan_changes_override_reason_check
    CHECK ((source = 'admin') = (override_reason IS NOT NULL AND btrim(override_reason) <> ''));

-- The preview's snapshot gains the limit it checks: p_per_subscription true (partner) reads whether this
-- subscription changed plan on p_today; false (/agent) whether the subscriber changed any subscription.
-- (A new parameter changes the signature, so the old function is dropped, not replaced.)
DROP FUNCTION plan_change_preview_snapshot(uuid, uuid, uuid, uuid, date, date);
CREATE FUNCTION plan_change_preview_snapshot(
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
      THEN EXISTS (SELECT 1 FROM plan_changes pc WHERE pc.subscription_id = s.id AND pc.change_date = p_today)
      ELSE EXISTS (SELECT 1 FROM plan_changes pc WHERE pc.subscriber_id = s.subscriber_id AND pc.change_date = p_today)
    END,
    EXISTS (SELECT 1 FROM invoices i WHERE i.subscription_id = s.id AND i.kind = 'monthly' AND i.period_start = p_month),
    EXISTS (SELECT 1 FROM billing_documents d WHERE d.subscription_id = s.id AND d.period_start = p_month),
    (SELECT coalesce(json_agg(json_build_object('id', a.id, 'amount_cents', a.amount_cents) ORDER BY a.created_at, a.id), '[]'::json)
     FROM pending_adjustments a WHERE a.subscription_id = s.id AND a.kind = 'carried_correction' AND a.status = 'pending')
  FROM subscriptions s
  WHERE s.id = p_subscription AND s.provider_id = p_provider AND (p_subscriber IS NULL OR s.subscriber_id = p_subscriber);
END
$$;
