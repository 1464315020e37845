-- Embedded simulators of the external systems (switch controller, billing system). These tables
-- play the external systems' own stores; no domain code reads them.

-- Every operation the simulated switch applied, by its idempotency key: a retried job repeats its
-- key and the switch applies it once, even when another operation on the same port came between.
CREATE TABLE sim_switch_operations (
  operation_key text PRIMARY KEY,
  location_id uuid NOT NULL,
  action text NOT NULL CHECK (action IN ('provision_port', 'captive_portal', 'reset_port', 'update_bandwidth')),
  result jsonb NOT NULL DEFAULT '{}'::jsonb,          -- the answer, repeated for a repeated key
  applied_at timestamptz NOT NULL
);
CREATE INDEX sim_switch_operations_location_idx ON sim_switch_operations (location_id, applied_at);

ALTER TABLE sim_switch_ports
  ADD COLUMN switch_id text,
  ADD COLUMN port text,
  -- a bandwidth change held for operator confirmation (legacy switches), not yet applied
  ADD COLUMN pending_download_mbps integer,
  ADD COLUMN pending_upload_mbps integer;

-- The simulated billing system's schedule: the send date of each subscription's next recurring invoice.
CREATE TABLE sim_billing_schedules (
  subscription_id uuid PRIMARY KEY,
  next_send_date date NOT NULL,
  reschedules integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL
);
