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
