-- Plan change (agent and partner surfaces share one module).

-- The port bandwidth follow-up of a plan change: what the switch answered, so the retry job and
-- the partner response (`bandwidth_updated`) tell the same story.
--   pending            not yet confirmed by the switch (the retry job will try again)
--   applied            the switch applied the new bandwidth
--   awaiting_operator  the switch accepted it for operator confirmation (no retry needed)
--   no_port            the subscription has no switch port (nothing to update on a switch)
--   superseded         a later plan change of the subscription took over before the switch confirmed
--   failed             the retry job gave up; an operator must set the bandwidth by hand
ALTER TABLE plan_changes
  ADD COLUMN bandwidth_status text NOT NULL DEFAULT 'pending'
    CHECK (bandwidth_status IN ('pending', 'applied', 'awaiting_operator', 'no_port', 'superseded', 'failed')),
  ADD COLUMN bandwidth_updated_at timestamptz,
  ADD COLUMN actor text;                              -- API key prefix that applied the change

-- A carried correction (under 0.50) is settled by the next correction that runs: when a plan
-- change folds it into its own adjustment, the carried row is closed (status 'applied') and
-- points at that plan change instead of an invoice.
ALTER TABLE pending_adjustments
  ADD COLUMN folded_into_plan_change_id uuid REFERENCES plan_changes(id);

CREATE INDEX plan_changes_subscription_idx ON plan_changes (subscription_id, created_at DESC);
