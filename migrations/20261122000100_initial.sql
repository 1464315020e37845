-- The whole domain of both surfaces. Money is integer cents; calendar dates are DATE (UTC);
-- instants are timestamptz. Enumerations are CHECK constraints so a new value is one migration.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Providers ----------------------------------------------------------------------------------
CREATE TABLE providers (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  disabled boolean NOT NULL DEFAULT false,
  currency char(3) NOT NULL DEFAULT 'EUR',
  support_email text NOT NULL,
  branding jsonb NOT NULL DEFAULT '{}'::jsonb,        -- {display_name, logo_url, primary_color, support_phone}
  external_checkout_url text,                         -- CKO-03 hosted page; NULL answers 503 on session create
  -- X-Webhook-Secret: "whs_<prefix>_<random>", stored as prefix + SHA-256 like API keys
  webhook_secret_prefix text UNIQUE,
  webhook_secret_hash bytea,
  webhook_url text,                                   -- where the six events are POSTed
  webhook_signing_secret text,                        -- Standard Webhooks "whsec_..." (needed in clear to sign)
  card_processor_account text,                        -- per-provider card-processor connection; NULL = none (409)
  sms_configured boolean NOT NULL DEFAULT false,      -- SMS one-time codes inert until true (503 otherwise)
  booking_window_days integer NOT NULL DEFAULT 28,    -- third-line booking invitations held until move-in is inside
  payment_grace_days integer NOT NULL DEFAULT 14,     -- automatic suspension after this many days unpaid
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
  prefix text NOT NULL UNIQUE CHECK (prefix ~ '^[a-z0-9]{8}$'),
  key_hash bytea NOT NULL,
  name text NOT NULL DEFAULT 'default',
  features text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_provider_idx ON api_keys (provider_id);

-- People -------------------------------------------------------------------------------------
CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text,                                 -- NULL until the person chose a password
  password_set_at timestamptz,
  role text NOT NULL CHECK (role IN ('subscriber', 'service_provider', 'platform_admin')),
  sp_role text CHECK (sp_role IN ('sp_admin', 'support', 'sales', 'bookkeeping')),
  provider_id uuid REFERENCES providers(id),
  first_name text,
  last_name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (role <> 'service_provider' OR provider_id IS NOT NULL)
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE subscribers (
  id uuid PRIMARY KEY,                                -- the /agent customer id
  provider_id uuid NOT NULL REFERENCES providers(id),
  user_id uuid REFERENCES users(id),                  -- internal, never exposed on /agent
  customer_number text CHECK (customer_number ~ '^[A-Z]{4}-[0-9]{4}$'),
  first_name text NOT NULL,
  last_name text NOT NULL,
  email text NOT NULL,
  phone text,
  phone_e164 text,                                    -- normalised for search
  invoice_first_name text,
  invoice_last_name text,
  invoice_email text,
  invoice_phone text,
  invoice_street text,
  invoice_house_number text,
  invoice_postal_code text,
  invoice_city text,
  invoice_country char(2),
  operator_notes text,                                -- internal
  processor_customer_id text,                         -- internal (card processor)
  card_payment_method_id text,                        -- internal (card processor)
  card_brand text,
  card_last4 text,
  card_exp_month integer,
  card_exp_year integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX subscribers_provider_email_key ON subscribers (provider_id, lower(email));
CREATE UNIQUE INDEX subscribers_provider_customer_number_key ON subscribers (provider_id, customer_number);
CREATE INDEX subscribers_user_idx ON subscribers (user_id);
-- Search: prefix ranges on btree expression indexes (COLLATE "C" so LIKE 'x%' can use them)
CREATE INDEX subscribers_search_email_idx ON subscribers (provider_id, lower(email) COLLATE "C");
CREATE INDEX subscribers_search_phone_idx ON subscribers (provider_id, phone_e164 COLLATE "C");
CREATE INDEX subscribers_search_number_idx ON subscribers (provider_id, customer_number COLLATE "C");
CREATE INDEX subscribers_search_last_idx ON subscribers (provider_id, lower(last_name) COLLATE "C");
CREATE INDEX subscribers_search_first_idx ON subscribers (provider_id, lower(first_name) COLLATE "C");
CREATE INDEX subscribers_search_full_idx ON subscribers (provider_id, lower(first_name || ' ' || last_name) COLLATE "C");
CREATE INDEX subscribers_search_trgm_idx ON subscribers USING gin (
  (lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(invoice_street, '') || ' ' || coalesce(invoice_city, ''))) gin_trgm_ops);

-- Places -------------------------------------------------------------------------------------
CREATE TABLE buildings (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  name text,
  street text,
  house_number text,
  postal_code text,
  city text,
  province text,
  country char(2),
  region text,                                        -- booking-window region
  line_type text CHECK (line_type IN ('first_line', 'second_line', 'third_line')),  -- NULL = unclassified
  in_coverage boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX buildings_provider_idx ON buildings (provider_id);

CREATE TABLE units (
  id uuid PRIMARY KEY,
  building_id uuid NOT NULL REFERENCES buildings(id),
  label text NOT NULL,                                -- e.g. "4B"
  floor integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (building_id, label)
);

CREATE TABLE locations (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  building_id uuid NOT NULL REFERENCES buildings(id),
  unit_id uuid REFERENCES units(id),
  location_hash text NOT NULL UNIQUE,
  location_identifier text NOT NULL UNIQUE,
  switch_id text,
  switch_port text,
  vlan_id integer,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX locations_unit_idx ON locations (unit_id);
CREATE INDEX locations_building_idx ON locations (building_id);

CREATE TABLE coverage_addresses (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  building_id uuid REFERENCES buildings(id),
  street text NOT NULL,
  house_number text NOT NULL,                         -- as written: "12a", "12 A"
  house_number_norm text NOT NULL,                    -- "12A": suffixes fused, upper-case
  postal_code text,
  city text,
  province text,
  country char(2) NOT NULL,
  display text NOT NULL,                              -- the suggestion string (dedupe key)
  search_key text NOT NULL,                           -- lower-case, spaces collapsed, suffix fused
  orderable boolean NOT NULL DEFAULT true
);
CREATE INDEX coverage_prefix_idx ON coverage_addresses (provider_id, search_key COLLATE "C");
CREATE INDEX coverage_trgm_idx ON coverage_addresses USING gin (search_key gin_trgm_ops);
CREATE INDEX coverage_match_idx ON coverage_addresses (provider_id, lower(street), house_number_norm);
CREATE INDEX coverage_building_idx ON coverage_addresses (building_id);

-- Catalogue ----------------------------------------------------------------------------------
CREATE TABLE plans (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  name text NOT NULL,
  description text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE plan_versions (
  id uuid PRIMARY KEY,
  plan_id uuid NOT NULL REFERENCES plans(id),
  provider_id uuid NOT NULL REFERENCES providers(id),
  version integer NOT NULL DEFAULT 1,
  name text NOT NULL,
  monthly_price_cents integer NOT NULL CHECK (monthly_price_cents >= 0),
  currency char(3) NOT NULL,
  store_product_id text,
  download_mbps integer NOT NULL,
  upload_mbps integer NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (plan_id, version)
);
CREATE INDEX plan_versions_provider_idx ON plan_versions (provider_id);

-- Checkout and subscriptions ----------------------------------------------------------------
CREATE TABLE checkout_sessions (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  plan_version_id uuid NOT NULL REFERENCES plan_versions(id),
  building_id uuid REFERENCES buildings(id),
  unit_id uuid REFERENCES units(id),
  location_id uuid REFERENCES locations(id),
  mac_address text,
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'redirected', 'completed', 'expired', 'cancelled')),
  user_id uuid REFERENCES users(id),                  -- linked subscriber account (optional Bearer on create)
  partner_reference text CHECK (char_length(partner_reference) <= 200),
  subscription_id uuid,                               -- set on completion (FK added below)
  created_at timestamptz NOT NULL DEFAULT now(),
  redirected_at timestamptz,
  completed_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_sessions_user_idx ON checkout_sessions (user_id);

CREATE TABLE subscriptions (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  plan_version_id uuid NOT NULL REFERENCES plan_versions(id),
  building_id uuid REFERENCES buildings(id),
  unit_id uuid REFERENCES units(id),
  location_id uuid REFERENCES locations(id),
  status text NOT NULL CHECK (status IN ('PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED', 'CANCELLED')),
  service_billed boolean NOT NULL DEFAULT false,      -- true: this service invoices it monthly
  billing_day integer NOT NULL DEFAULT 1 CHECK (billing_day BETWEEN 1 AND 10),
  billing_day_effective_from date,                    -- first month (as its 1st) the billing_day applies to
  previous_billing_day integer CHECK (previous_billing_day BETWEEN 1 AND 10),
  origin text NOT NULL CHECK (origin IN ('checkout_session', 'explicit', 'anonymous', 'provider_initiated', 'bulk', 'seed')),
  external_subscription_id text,
  checkout_session_id uuid REFERENCES checkout_sessions(id),
  mac_address text,                                   -- internal
  suspended_reason text CHECK (suspended_reason IN ('provider', 'non_payment')),
  activated_at timestamptz,
  canceled_at timestamptz,
  ended_at date,                                      -- exclusive: the first day without service
  port_reset_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_subscription_fk
  FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
-- A non-terminal subscription occupies its unit and its port (SUSPENDED still holds them).
CREATE UNIQUE INDEX subscriptions_unit_occupied_key ON subscriptions (unit_id)
  WHERE unit_id IS NOT NULL AND status IN ('PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED');
CREATE UNIQUE INDEX subscriptions_location_occupied_key ON subscriptions (location_id)
  WHERE location_id IS NOT NULL AND status IN ('PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED');
CREATE UNIQUE INDEX subscriptions_external_id_key ON subscriptions (provider_id, external_subscription_id)
  WHERE external_subscription_id IS NOT NULL;
CREATE UNIQUE INDEX subscriptions_checkout_session_key ON subscriptions (checkout_session_id)
  WHERE checkout_session_id IS NOT NULL;
CREATE INDEX subscriptions_subscriber_idx ON subscriptions (subscriber_id);
CREATE INDEX subscriptions_provider_status_idx ON subscriptions (provider_id, status);

CREATE TABLE plan_changes (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  subscription_id uuid NOT NULL REFERENCES subscriptions(id),
  from_plan_version_id uuid NOT NULL REFERENCES plan_versions(id),
  to_plan_version_id uuid NOT NULL REFERENCES plan_versions(id),
  change_date date NOT NULL,                          -- UTC calendar day
  source text NOT NULL CHECK (source IN ('agent', 'partner', 'admin')),
  adjustment_type text CHECK (adjustment_type IN ('next_invoice_line', 'credit', 'none')),
  adjustment_cents integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- one plan change per customer per calendar day: the race is settled by this constraint
  UNIQUE (subscriber_id, change_date)
);

-- Billing ------------------------------------------------------------------------------------
CREATE TABLE invoices (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  subscription_id uuid REFERENCES subscriptions(id),
  invoice_number text NOT NULL UNIQUE,
  kind text NOT NULL DEFAULT 'monthly' CHECK (kind IN ('monthly', 'first')),
  period_start date,                                  -- the calendar month billed (its 1st)
  invoice_date date NOT NULL,
  due_date date NOT NULL,
  currency char(3) NOT NULL,
  total_cents integer NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('draft', 'open', 'paid', 'void')),
  paid_at timestamptz,
  payment_method text CHECK (payment_method IN ('card', 'payment_link', 'bank_transfer')),
  payment_intent_id text,                             -- internal (processor id)
  payment_reference text,                             -- shown as the payment's reference
  created_at timestamptz NOT NULL DEFAULT now()
);
-- billing runs are idempotent per (subscription, month)
CREATE UNIQUE INDEX invoices_subscription_month_key ON invoices (subscription_id, period_start)
  WHERE kind = 'monthly';
CREATE INDEX invoices_subscriber_idx ON invoices (subscriber_id, invoice_date DESC);

CREATE TABLE invoice_lines (
  id uuid PRIMARY KEY,
  invoice_id uuid NOT NULL REFERENCES invoices(id) ON DELETE CASCADE,
  position integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('subscription', 'plan_change_adjustment', 'credit_applied', 'correction')),
  description text NOT NULL,
  amount_cents integer NOT NULL,
  UNIQUE (invoice_id, position)
);

-- The billing system's document for a month; its absence with an invoice present (or the
-- reverse) is the operator-escalation state of the plan-change preview.
CREATE TABLE billing_documents (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscription_id uuid NOT NULL REFERENCES subscriptions(id),
  period_start date NOT NULL,
  invoice_id uuid REFERENCES invoices(id),
  external_document_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, period_start)
);

CREATE TABLE pending_adjustments (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscription_id uuid NOT NULL REFERENCES subscriptions(id),
  plan_change_id uuid REFERENCES plan_changes(id),
  kind text NOT NULL CHECK (kind IN ('upgrade_line', 'carried_correction')),
  amount_cents integer NOT NULL,                      -- signed: positive is owed by the customer
  description text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied')),
  applied_invoice_id uuid REFERENCES invoices(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pending_adjustments_open_idx ON pending_adjustments (subscription_id) WHERE status = 'pending';

CREATE TABLE credit_notes (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  subscription_id uuid REFERENCES subscriptions(id),
  plan_change_id uuid REFERENCES plan_changes(id),
  applied_invoice_id uuid REFERENCES invoices(id),
  number text NOT NULL UNIQUE,
  state text NOT NULL CHECK (state IN ('draft', 'open', 'refunded', 'paid_out', 'applied', 'archived', 'voided')),
  amount_cents integer NOT NULL CHECK (amount_cents >= 0),
  currency char(3) NOT NULL,
  reason text NOT NULL,
  issued_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_notes_subscriber_idx ON credit_notes (subscriber_id, issued_at DESC);

-- Install path -------------------------------------------------------------------------------
CREATE TABLE install_jobs (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscription_id uuid NOT NULL UNIQUE REFERENCES subscriptions(id),
  unit_id uuid REFERENCES units(id),
  kind text NOT NULL CHECK (kind IN ('technician_visit', 'cpe_shipment')),
  status text NOT NULL CHECK (status IN ('CREATED', 'BOOKING_HELD', 'BOOKING_SENT', 'BOOKED', 'SHIPPED', 'COMPLETED', 'CANCELLED')),
  move_in_date date,
  booking_starts_at timestamptz,                      -- the booked four-hour window
  booking_ends_at timestamptz,
  booking_invite_sent_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Network state ------------------------------------------------------------------------------
CREATE TABLE modem_status (
  subscription_id uuid PRIMARY KEY REFERENCES subscriptions(id),
  state text NOT NULL CHECK (state IN ('online', 'offline', 'degraded')),
  last_seen_at timestamptz,
  signal_dbm numeric(5, 2),
  uptime_seconds integer,
  firmware text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE status_events (
  id uuid PRIMARY KEY,
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  subscription_id uuid REFERENCES subscriptions(id),
  kind text NOT NULL CHECK (kind IN ('outage', 'degraded', 'maintenance')),
  description text,
  started_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE INDEX status_events_subscriber_idx ON status_events (subscriber_id, started_at DESC);

CREATE TABLE usage_monthly (
  subscription_id uuid NOT NULL REFERENCES subscriptions(id),
  month date NOT NULL,                                -- its 1st
  download_bytes bigint NOT NULL DEFAULT 0,
  upload_bytes bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, month)
);

-- Support ------------------------------------------------------------------------------------
CREATE TABLE tickets (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid REFERENCES subscribers(id),
  contact_email text NOT NULL,
  subject text NOT NULL,
  priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high')),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'solved', 'closed')),
  queue text NOT NULL DEFAULT 'support',
  source text NOT NULL DEFAULT 'ai_agent',
  article text NOT NULL,                              -- customer-facing body (ai_summary + ai_diagnosis)
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tickets_contact_idx ON tickets (provider_id, lower(contact_email), created_at DESC);

CREATE TABLE ticket_comments (
  id uuid PRIMARY KEY,
  ticket_id uuid NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
  public boolean NOT NULL,
  author text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE customer_notes (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  author text NOT NULL,                               -- 'ai_agent' for the /agent surface
  author_key_prefix text,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_entries (
  id uuid PRIMARY KEY,
  provider_id uuid REFERENCES providers(id),
  actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'user', 'system', 'webhook_secret')),
  actor text NOT NULL,                                -- key prefix, user id, or job name
  action text NOT NULL,
  entity_type text NOT NULL,
  entity_id text NOT NULL,
  before jsonb,
  after jsonb,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_entries_entity_idx ON audit_entries (entity_type, entity_id, created_at);

-- Verification and links ---------------------------------------------------------------------
CREATE TABLE verification_codes (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  channel text NOT NULL CHECK (channel IN ('email', 'sms')),
  code_hash bytea NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  superseded boolean NOT NULL DEFAULT false,
  consumed_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verification_codes_subscriber_idx ON verification_codes (subscriber_id, created_at DESC);

CREATE TABLE verified_sessions (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES providers(id),
  subscriber_id uuid NOT NULL REFERENCES subscribers(id),
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Single-use links (password reset, activation, staff invite, booking, payment): hashed token.
CREATE TABLE link_tokens (
  id uuid PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('password_reset', 'activation', 'staff_invite', 'booking', 'payment')),
  token_hash bytea NOT NULL UNIQUE,
  user_id uuid REFERENCES users(id),
  subscriber_id uuid REFERENCES subscribers(id),
  reference_id uuid,                                  -- install job (booking) or invoice (payment)
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX link_tokens_user_idx ON link_tokens (user_id, purpose);

-- Platform -----------------------------------------------------------------------------------
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 8,
  run_at timestamptz NOT NULL DEFAULT now(),
  locked_by text,
  locked_until timestamptz,                           -- a running job whose lease passed is claimable again
  last_error text,
  dedupe_key text UNIQUE,                             -- e.g. billing:<subscription>:<month>
  provider_id uuid REFERENCES providers(id),
  subscription_id uuid REFERENCES subscriptions(id),
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX jobs_claim_idx ON jobs (run_at) WHERE status = 'queued';
CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE status = 'running';
CREATE INDEX jobs_subscription_idx ON jobs (subscription_id);

CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,                                -- the webhook-id, the same on every retry
  provider_id uuid NOT NULL REFERENCES providers(id),
  event_type text NOT NULL CHECK (event_type IN ('subscription.activated', 'subscription.pending_install',
    'provisioning.completed', 'provisioning.failed', 'subscription.cancelled', 'subscription.plan_changed')),
  subscription_id uuid REFERENCES subscriptions(id),
  payload jsonb NOT NULL,                             -- the envelope exactly as sent
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at);

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries(id),
  attempt integer NOT NULL,
  url text,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (delivery_id, attempt)
);

CREATE TABLE idempotency_records (
  scope text NOT NULL,                                -- the credential: key prefix, user id, secret prefix
  key text NOT NULL,
  request_hash bytea NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);

-- Rate-limit buckets shared by several server processes (RATE_LIMIT_STORE=postgres)
CREATE TABLE rate_limit_buckets (
  bucket text PRIMARY KEY,
  hits integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);

-- The switch controller simulator's durable port state (so a restart never repeats an action)
CREATE TABLE sim_switch_ports (
  location_id uuid PRIMARY KEY,
  mode text NOT NULL CHECK (mode IN ('provisioned', 'captive_portal', 'reset')),
  vlan_id integer,
  download_mbps integer,
  upload_mbps integer,
  mac_address text,
  operations integer NOT NULL DEFAULT 0,
  last_operation_key text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Demo only: what `seed:demo` prints, so a second run reprints the same document.
CREATE TABLE demo_state (
  id integer PRIMARY KEY CHECK (id = 1),
  document jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
