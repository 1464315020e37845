-- Rollback links (docs/decisions.md "Rollback link"): the change-confirmation mail after an /agent
-- contact edit or plan change carries a single-use link, valid 24 hours, that restores the previous
-- contact details or plan. Like link_tokens, only the SHA-256 of the random token is stored.
CREATE TABLE rollback_links (
  id uuid PRIMARY KEY,
  token_hash bytea NOT NULL UNIQUE,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  kind text NOT NULL CHECK (kind IN ('contact', 'plan')),
  plan_change_id uuid REFERENCES plan_changes(id),     -- kind plan: the change to undo
  contact_type text CHECK (contact_type IN ('contract', 'invoice')),
  restore jsonb,                                       -- kind contact: column -> value before the edit
  expected jsonb,                                      -- kind contact: column -> value the edit set (must still stand)
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT rollback_links_shape_check CHECK (
    (kind = 'plan' AND plan_change_id IS NOT NULL AND contact_type IS NULL AND restore IS NULL AND expected IS NULL)
    OR (kind = 'contact' AND plan_change_id IS NULL AND contact_type IS NOT NULL AND restore IS NOT NULL AND expected IS NOT NULL))
);
CREATE INDEX rollback_links_subscriber_idx ON rollback_links (subscriber_id);
CREATE INDEX rollback_links_plan_change_idx ON rollback_links (plan_change_id) WHERE plan_change_id IS NOT NULL;

-- A plan rollback is a plan change of its own (source 'rollback'), so the billing engine writes its
-- money effect like any change; it names the change it undoes, at most once.
ALTER TABLE plan_changes DROP CONSTRAINT plan_changes_source_check;
ALTER TABLE plan_changes
  ADD CONSTRAINT plan_changes_source_check CHECK (source IN ('agent', 'partner', 'admin', 'rollback')),
  ADD COLUMN rolls_back_plan_change_id uuid REFERENCES plan_changes(id),
  ADD CONSTRAINT plan_changes_rollback_check CHECK ((source = 'rollback') = (rolls_back_plan_change_id IS NOT NULL));
CREATE UNIQUE INDEX plan_changes_rolls_back_key ON plan_changes (rolls_back_plan_change_id) WHERE rolls_back_plan_change_id IS NOT NULL;

-- A rollback does not count against the one-change-per-day rules: it is outside the daily index and
-- the preview's "changed today" reads past it (the change it undoes still counts).
DROP INDEX plan_changes_subscription_day_key;
CREATE UNIQUE INDEX plan_changes_subscription_day_key ON plan_changes (subscription_id, change_date) WHERE source NOT IN ('admin', 'rollback');

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
