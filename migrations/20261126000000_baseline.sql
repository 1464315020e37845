-- The schema as of the first release candidate: every table, index and constraint of both surfaces.
-- Money is integer cents; calendar dates are DATE (UTC); instants are timestamptz. Enumerations are
-- CHECK constraints. The SQL functions (search, job claim, snapshots, triggers' functions) live in
-- migrations/functions/, one file each, and are applied before this file (migrations/README.md).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row of the customer search's first pass (agent_customer_search).
CREATE TYPE agent_search_hit AS (
	id uuid,
	first_name text,
	last_name text,
	email text,
	phone text,
	customer_number text
);

-- Providers ---------------------------------------------------------------------------------------

CREATE TABLE providers (
    id uuid NOT NULL,
    name text NOT NULL,
    slug text NOT NULL,
    disabled boolean DEFAULT false NOT NULL,
    currency character(3) DEFAULT 'EUR'::bpchar NOT NULL,
    support_email text NOT NULL,
    branding jsonb DEFAULT '{}'::jsonb NOT NULL,  -- {display_name, logo_url, primary_color, support_phone}
    external_checkout_url text,  -- CKO-03 hosted page; NULL answers 503 on session create
    -- X-Webhook-Secret: "whs_<prefix>_<random>", stored as prefix + SHA-256 like API keys
    webhook_secret_prefix text,
    webhook_secret_hash bytea,
    webhook_url text,  -- where the six events are POSTed
    webhook_signing_secret text,  -- Standard Webhooks "whsec_..." (needed in clear to sign)
    card_processor_account text,  -- per-provider card-processor connection; NULL = none (409)
    sms_configured boolean DEFAULT false NOT NULL,  -- SMS one-time codes inert until true (503 otherwise)
    booking_window_days integer DEFAULT 28 NOT NULL,  -- third-line booking invitations held until move-in is inside
    payment_grace_days integer DEFAULT 14 NOT NULL,  -- automatic suspension after this many days unpaid
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY providers
    ADD CONSTRAINT providers_pkey PRIMARY KEY (id);
ALTER TABLE ONLY providers
    ADD CONSTRAINT providers_slug_key UNIQUE (slug);
ALTER TABLE ONLY providers
    ADD CONSTRAINT providers_webhook_secret_prefix_key UNIQUE (webhook_secret_prefix);

CREATE TABLE api_keys (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    prefix text NOT NULL,
    key_hash bytea NOT NULL,
    name text DEFAULT 'default'::text NOT NULL,
    features text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT api_keys_prefix_check CHECK ((prefix ~ '^[a-z0-9]{8}$'::text))
);
ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);
ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_prefix_key UNIQUE (prefix);
CREATE INDEX api_keys_provider_idx ON api_keys USING btree (provider_id);

-- People ------------------------------------------------------------------------------------------

CREATE TABLE users (
    id uuid NOT NULL,
    email text NOT NULL,
    password_hash text,  -- NULL until the person chose a password
    password_set_at timestamp with time zone,
    role text NOT NULL,
    sp_role text,
    provider_id uuid,
    first_name text,
    last_name text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    token_version integer DEFAULT 0 NOT NULL,
    disabled boolean DEFAULT false NOT NULL,
    CONSTRAINT users_check CHECK (((role <> 'service_provider'::text) OR (provider_id IS NOT NULL))),
    CONSTRAINT users_role_check CHECK ((role = ANY (ARRAY['subscriber'::text, 'service_provider'::text, 'platform_admin'::text]))),
    CONSTRAINT users_sp_role_check CHECK ((sp_role = ANY (ARRAY['sp_admin'::text, 'support'::text, 'sales'::text, 'bookkeeping'::text])))
);
ALTER TABLE ONLY users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX users_email_key ON users USING btree (lower(email));

CREATE TABLE subscribers (
    id uuid NOT NULL,  -- the /agent customer id
    provider_id uuid NOT NULL,
    user_id uuid,  -- internal, never exposed on /agent
    customer_number text,
    first_name text NOT NULL,
    last_name text NOT NULL,
    email text NOT NULL,
    phone text,
    phone_e164 text,  -- normalised for search
    invoice_first_name text,
    invoice_last_name text,
    invoice_email text,
    invoice_phone text,
    invoice_street text,
    invoice_house_number text,
    invoice_postal_code text,
    invoice_city text,
    invoice_country character(2),
    operator_notes text,  -- internal
    processor_customer_id text,  -- internal (card processor)
    card_payment_method_id text,  -- internal (card processor)
    card_brand text,
    card_last4 text,
    card_exp_month integer,
    card_exp_year integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    card_setup_id text,
    card_setup_secret_hash bytea,
    invoice_phone_e164 text,
    CONSTRAINT subscribers_customer_number_check CHECK ((customer_number ~ '^[A-Z]{4}-[0-9]{4}$'::text))
);
ALTER TABLE ONLY subscribers
    ADD CONSTRAINT subscribers_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX subscribers_provider_customer_number_key ON subscribers USING btree (provider_id, customer_number);
CREATE UNIQUE INDEX subscribers_provider_email_key ON subscribers USING btree (provider_id, lower(email));
CREATE INDEX subscribers_search_invoice_address_idx ON subscribers USING btree (provider_id, lower(((invoice_street || ' '::text) || invoice_house_number)) COLLATE "C") INCLUDE (id, invoice_street, invoice_house_number, invoice_postal_code, invoice_city) WHERE ((invoice_street IS NOT NULL) AND (invoice_house_number IS NOT NULL));
CREATE INDEX subscribers_search_invoice_city_idx ON subscribers USING btree (provider_id, lower(invoice_city) COLLATE "C");
CREATE INDEX subscribers_search_invoice_email_idx ON subscribers USING btree (provider_id, lower(invoice_email)) WHERE (invoice_email IS NOT NULL);
CREATE INDEX subscribers_search_invoice_house_idx ON subscribers USING btree (provider_id, lower(invoice_house_number) COLLATE "C");
CREATE INDEX subscribers_search_invoice_phone_idx ON subscribers USING btree (provider_id, invoice_phone_e164) WHERE (invoice_phone_e164 IS NOT NULL);
CREATE INDEX subscribers_search_invoice_postal_idx ON subscribers USING btree (provider_id, lower(invoice_postal_code) COLLATE "C");
CREATE INDEX subscribers_search_invoice_street_idx ON subscribers USING btree (provider_id, lower(invoice_street) COLLATE "C");
CREATE INDEX subscribers_search_name_keys_idx ON subscribers USING gin (agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name)) WITH (fastupdate=off);
CREATE INDEX subscribers_search_phone_idx ON subscribers USING btree (provider_id, phone_e164 COLLATE "C");
CREATE INDEX subscribers_user_idx ON subscribers USING btree (user_id);

-- Failed password and token checks, counted per subject (an account, an unknown email, a client IP)
-- so every server process sees the same count: 10 failures within 15 minutes lock the subject for
-- 15 minutes (docs/decisions.md "Login lockout"). A row is written before the check runs and
-- removed again when the check succeeds, so concurrent guesses cannot slip past the count.
CREATE TABLE credential_failures (
    id uuid NOT NULL,
    subject text NOT NULL,
    failed_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY credential_failures
    ADD CONSTRAINT credential_failures_pkey PRIMARY KEY (id);
CREATE INDEX credential_failures_subject_idx ON credential_failures USING btree (subject, failed_at);

-- Places ------------------------------------------------------------------------------------------

-- Booking regions: the IANA time zone installation appointments are offered in (windows, weekdays,
-- the 24-hour lead and the move-in hold are local to the building), and the booking window a held
-- invitation waits for. `code` is what buildings.region holds (ISO 3166-2, e.g. 'DE-BE', 'CA-ON');
-- a row whose code is a bare country (ISO 3166-1, 'DE', 'CA') is the fallback for a building of that
-- country without a known region.
CREATE TABLE regions (
    code text NOT NULL,
    -- The CHECK refuses a zone the database does not know (the app's Intl uses the same tz database).
    time_zone text DEFAULT 'Europe/Berlin'::text NOT NULL,
    -- Days before the move-in date the booking invitation goes out; NULL: the provider's booking_window_days.
    booking_window_days integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT regions_booking_window_days_check CHECK (((booking_window_days >= 0) AND (booking_window_days <= 365))),
    CONSTRAINT regions_time_zone_check CHECK ((('2000-01-01 00:00:00+00'::timestamp with time zone AT TIME ZONE time_zone) IS NOT NULL))
);
ALTER TABLE ONLY regions
    ADD CONSTRAINT regions_pkey PRIMARY KEY (code);

CREATE TABLE buildings (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    name text,
    street text,
    house_number text,
    postal_code text,
    city text,
    province text,
    country character(2),
    region text,  -- booking-window region
    line_type text,  -- NULL = unclassified
    in_coverage boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT buildings_line_type_check CHECK ((line_type = ANY (ARRAY['first_line'::text, 'second_line'::text, 'third_line'::text])))
);
ALTER TABLE ONLY buildings
    ADD CONSTRAINT buildings_pkey PRIMARY KEY (id);
CREATE INDEX buildings_provider_country_idx ON buildings USING btree (provider_id, country);
CREATE INDEX buildings_provider_idx ON buildings USING btree (provider_id);
CREATE INDEX buildings_search_address_idx ON buildings USING btree (provider_id, lower(((COALESCE(street, ''::text) || ' '::text) || COALESCE(house_number, ''::text))) COLLATE "C");
CREATE INDEX buildings_search_city_idx ON buildings USING btree (provider_id, lower(city) COLLATE "C");
CREATE INDEX buildings_search_house_idx ON buildings USING btree (provider_id, lower(house_number) COLLATE "C");
CREATE INDEX buildings_search_name_idx ON buildings USING btree (provider_id, lower(name) COLLATE "C");
CREATE INDEX buildings_search_postal_idx ON buildings USING btree (provider_id, lower(postal_code) COLLATE "C");
CREATE INDEX buildings_search_street_idx ON buildings USING btree (provider_id, lower(street) COLLATE "C");
CREATE INDEX buildings_search_trgm_idx ON buildings USING gin (lower(((((((((COALESCE(name, ''::text) || ' '::text) || COALESCE(street, ''::text)) || ' '::text) || COALESCE(house_number, ''::text)) || ' '::text) || COALESCE(postal_code, ''::text)) || ' '::text) || COALESCE(city, ''::text))) gin_trgm_ops);

CREATE TABLE units (
    id uuid NOT NULL,
    building_id uuid NOT NULL,
    label text NOT NULL,  -- e.g. "4B"
    floor integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY units
    ADD CONSTRAINT units_building_id_label_key UNIQUE (building_id, label);
ALTER TABLE ONLY units
    ADD CONSTRAINT units_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX units_id_label_idx ON units USING btree (id) INCLUDE (label);
CREATE INDEX units_search_label_idx ON units USING btree (lower(label) COLLATE "C") INCLUDE (id, building_id, label);

CREATE TABLE locations (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    building_id uuid NOT NULL,
    unit_id uuid,
    location_hash text NOT NULL,
    location_identifier text NOT NULL,
    switch_id text,
    switch_port text,
    vlan_id integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_location_hash_key UNIQUE (location_hash);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_location_identifier_key UNIQUE (location_identifier);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_pkey PRIMARY KEY (id);
CREATE INDEX locations_building_idx ON locations USING btree (building_id);
CREATE INDEX locations_unit_idx ON locations USING btree (unit_id);

CREATE TABLE coverage_addresses (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    building_id uuid,
    street text NOT NULL,
    house_number text NOT NULL,  -- as written: "12a", "12 A"
    house_number_norm text NOT NULL,  -- "12A": suffixes fused, upper-case
    postal_code text,
    city text,
    province text,
    country character(2) NOT NULL,
    display text NOT NULL,  -- the suggestion string (dedupe key)
    search_key text NOT NULL,  -- lower-case, spaces collapsed, suffix fused
    orderable boolean DEFAULT true NOT NULL
);
ALTER TABLE ONLY coverage_addresses
    ADD CONSTRAINT coverage_addresses_pkey PRIMARY KEY (id);
CREATE INDEX coverage_building_idx ON coverage_addresses USING btree (building_id);
CREATE INDEX coverage_match_idx ON coverage_addresses USING btree (provider_id, lower(street), house_number_norm);
CREATE INDEX coverage_prefix_idx ON coverage_addresses USING btree (provider_id, search_key COLLATE "C") INCLUDE (display, orderable, building_id, id, street, house_number, postal_code, city, province, country);
CREATE INDEX coverage_street_first_idx ON coverage_addresses USING btree (provider_id, coverage_street_first_key(search_key, house_number_norm, street) COLLATE "C") INCLUDE (display, orderable, building_id, id, street, house_number, postal_code, city, province, country, search_key, house_number_norm) WHERE (country = ANY (ARRAY['CA'::bpchar, 'US'::bpchar]));
CREATE INDEX coverage_trgm_idx ON coverage_addresses USING gin (search_key gin_trgm_ops);

-- Catalogue ---------------------------------------------------------------------------------------

CREATE TABLE plans (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    name text NOT NULL,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY plans
    ADD CONSTRAINT plans_pkey PRIMARY KEY (id);

CREATE TABLE plan_versions (
    id uuid NOT NULL,
    plan_id uuid NOT NULL,
    provider_id uuid NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    name text NOT NULL,
    monthly_price_cents integer NOT NULL,
    currency character(3) NOT NULL,
    store_product_id text,
    download_mbps integer NOT NULL,
    upload_mbps integer NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT plan_versions_monthly_price_cents_check CHECK ((monthly_price_cents >= 0))
);
ALTER TABLE ONLY plan_versions
    ADD CONSTRAINT plan_versions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY plan_versions
    ADD CONSTRAINT plan_versions_plan_id_version_key UNIQUE (plan_id, version);
CREATE INDEX plan_versions_provider_idx ON plan_versions USING btree (provider_id);

-- Checkout and subscriptions ----------------------------------------------------------------------

CREATE TABLE checkout_sessions (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    plan_version_id uuid NOT NULL,
    building_id uuid,
    unit_id uuid,
    location_id uuid,
    mac_address text,
    status text DEFAULT 'pending'::text NOT NULL,
    user_id uuid,  -- linked subscriber account (optional Bearer on create)
    partner_reference text,
    subscription_id uuid,  -- set on completion (FK added below)
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    redirected_at timestamp with time zone,
    completed_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT checkout_sessions_partner_reference_check CHECK ((char_length(partner_reference) <= 200)),
    CONSTRAINT checkout_sessions_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'redirected'::text, 'completed'::text, 'expired'::text, 'cancelled'::text])))
);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_pkey PRIMARY KEY (id);
CREATE INDEX checkout_sessions_user_idx ON checkout_sessions USING btree (user_id);

CREATE TABLE subscriptions (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    plan_version_id uuid NOT NULL,
    building_id uuid,
    unit_id uuid,
    location_id uuid,
    status text NOT NULL,
    service_billed boolean DEFAULT false NOT NULL,  -- true: this service invoices it monthly
    billing_day integer DEFAULT 1 NOT NULL,
    billing_day_effective_from date,  -- first month (as its 1st) the billing_day applies to
    previous_billing_day integer,
    origin text NOT NULL,
    external_subscription_id text,
    checkout_session_id uuid,
    mac_address text,  -- internal
    suspended_reason text,
    activated_at timestamp with time zone,
    canceled_at timestamp with time zone,
    ended_at date,  -- exclusive: the first day without service
    port_reset_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT subscriptions_billing_day_check CHECK (((billing_day >= 1) AND (billing_day <= 10))),
    CONSTRAINT subscriptions_origin_check CHECK ((origin = ANY (ARRAY['checkout_session'::text, 'explicit'::text, 'anonymous'::text, 'provider_initiated'::text, 'bulk'::text, 'seed'::text]))),
    CONSTRAINT subscriptions_previous_billing_day_check CHECK (((previous_billing_day >= 1) AND (previous_billing_day <= 10))),
    CONSTRAINT subscriptions_status_check CHECK ((status = ANY (ARRAY['PENDING'::text, 'PENDING_INSTALL'::text, 'ACTIVE'::text, 'SUSPENDED'::text, 'CANCELLED'::text]))),
    CONSTRAINT subscriptions_suspended_reason_check CHECK ((suspended_reason = ANY (ARRAY['provider'::text, 'non_payment'::text])))
);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (id);
CREATE INDEX subscriptions_building_idx ON subscriptions USING btree (building_id);
CREATE UNIQUE INDEX subscriptions_checkout_session_key ON subscriptions USING btree (checkout_session_id) WHERE (checkout_session_id IS NOT NULL);
CREATE UNIQUE INDEX subscriptions_external_id_key ON subscriptions USING btree (provider_id, external_subscription_id) WHERE (external_subscription_id IS NOT NULL);
CREATE INDEX subscriptions_location_idx ON subscriptions USING btree (location_id);
CREATE UNIQUE INDEX subscriptions_location_occupied_key ON subscriptions USING btree (location_id) WHERE ((location_id IS NOT NULL) AND (status = ANY (ARRAY['PENDING'::text, 'PENDING_INSTALL'::text, 'ACTIVE'::text, 'SUSPENDED'::text])));
CREATE INDEX subscriptions_provider_status_idx ON subscriptions USING btree (provider_id, status);
CREATE INDEX subscriptions_subscriber_locations_idx ON subscriptions USING btree (subscriber_id) INCLUDE (created_at, id, status, building_id, unit_id, location_id);
CREATE INDEX subscriptions_unit_idx ON subscriptions USING btree (unit_id);
CREATE UNIQUE INDEX subscriptions_unit_occupied_key ON subscriptions USING btree (unit_id) WHERE ((unit_id IS NOT NULL) AND (status = ANY (ARRAY['PENDING'::text, 'PENDING_INSTALL'::text, 'ACTIVE'::text, 'SUSPENDED'::text])));

CREATE TABLE plan_changes (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    subscription_id uuid NOT NULL,
    from_plan_version_id uuid NOT NULL,
    to_plan_version_id uuid NOT NULL,
    change_date date NOT NULL,  -- UTC calendar day
    source text NOT NULL,
    adjustment_type text,
    adjustment_cents integer,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    bandwidth_status text DEFAULT 'pending'::text NOT NULL,
    bandwidth_updated_at timestamp with time zone,
    actor text,  -- API key prefix that applied the change
    override_reason text,
    CONSTRAINT plan_changes_adjustment_type_check CHECK ((adjustment_type = ANY (ARRAY['next_invoice_line'::text, 'credit'::text, 'none'::text]))),
    CONSTRAINT plan_changes_bandwidth_status_check CHECK ((bandwidth_status = ANY (ARRAY['pending'::text, 'applied'::text, 'awaiting_operator'::text, 'no_port'::text, 'superseded'::text, 'failed'::text]))),
    CONSTRAINT plan_changes_override_reason_check CHECK (((source = 'admin'::text) = ((override_reason IS NOT NULL) AND (btrim(override_reason) <> ''::text)))),
    CONSTRAINT plan_changes_source_check CHECK ((source = ANY (ARRAY['agent'::text, 'partner'::text, 'admin'::text])))
);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX plan_changes_agent_customer_day_key ON plan_changes USING btree (subscriber_id, change_date) WHERE (source = 'agent'::text);
CREATE INDEX plan_changes_subscriber_day_idx ON plan_changes USING btree (subscriber_id, change_date);
CREATE UNIQUE INDEX plan_changes_subscription_day_key ON plan_changes USING btree (subscription_id, change_date) WHERE (source <> 'admin'::text);
CREATE INDEX plan_changes_subscription_idx ON plan_changes USING btree (subscription_id, created_at DESC);

-- Billing -----------------------------------------------------------------------------------------

CREATE TABLE invoices (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    subscription_id uuid,
    invoice_number text NOT NULL,
    kind text DEFAULT 'monthly'::text NOT NULL,
    period_start date,  -- the calendar month billed (its 1st)
    invoice_date date NOT NULL,
    due_date date NOT NULL,
    currency character(3) NOT NULL,
    total_cents integer NOT NULL,
    status text DEFAULT 'open'::text NOT NULL,
    paid_at timestamp with time zone,
    payment_method text,
    payment_intent_id text,  -- internal (processor id)
    payment_reference text,  -- shown as the payment's reference
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT invoices_kind_check CHECK ((kind = ANY (ARRAY['monthly'::text, 'first'::text]))),
    CONSTRAINT invoices_payment_method_check CHECK ((payment_method = ANY (ARRAY['card'::text, 'payment_link'::text, 'bank_transfer'::text]))),
    CONSTRAINT invoices_status_check CHECK ((status = ANY (ARRAY['draft'::text, 'open'::text, 'paid'::text, 'void'::text])))
);
ALTER TABLE ONLY invoices
    ADD CONSTRAINT invoices_invoice_number_key UNIQUE (invoice_number);
ALTER TABLE ONLY invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);
CREATE INDEX invoices_open_due_idx ON invoices USING btree (due_date) WHERE (status = 'open'::text);
CREATE INDEX invoices_subscriber_idx ON invoices USING btree (subscriber_id, invoice_date DESC);
CREATE INDEX invoices_subscriber_paid_idx ON invoices USING btree (subscriber_id, paid_at DESC) WHERE (status = 'paid'::text);
CREATE UNIQUE INDEX invoices_subscription_first_key ON invoices USING btree (subscription_id) WHERE (kind = 'first'::text);
CREATE UNIQUE INDEX invoices_subscription_month_key ON invoices USING btree (subscription_id, period_start) WHERE (kind = 'monthly'::text);

CREATE TABLE invoice_lines (
    id uuid NOT NULL,
    invoice_id uuid NOT NULL,
    "position" integer NOT NULL,
    kind text NOT NULL,
    description text NOT NULL,
    amount_cents integer NOT NULL,
    CONSTRAINT invoice_lines_kind_check CHECK ((kind = ANY (ARRAY['subscription'::text, 'plan_change_adjustment'::text, 'credit_applied'::text, 'correction'::text])))
);
ALTER TABLE ONLY invoice_lines
    ADD CONSTRAINT invoice_lines_invoice_id_position_key UNIQUE (invoice_id, "position");
ALTER TABLE ONLY invoice_lines
    ADD CONSTRAINT invoice_lines_pkey PRIMARY KEY (id);

-- The billing system's document for a month; its absence with an invoice present (or the
-- reverse) is the operator-escalation state of the plan-change preview.
CREATE TABLE billing_documents (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscription_id uuid NOT NULL,
    period_start date NOT NULL,
    invoice_id uuid,
    external_document_id text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY billing_documents
    ADD CONSTRAINT billing_documents_pkey PRIMARY KEY (id);
ALTER TABLE ONLY billing_documents
    ADD CONSTRAINT billing_documents_subscription_id_period_start_key UNIQUE (subscription_id, period_start);

CREATE TABLE pending_adjustments (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscription_id uuid NOT NULL,
    plan_change_id uuid,
    kind text NOT NULL,
    amount_cents integer NOT NULL,  -- signed: positive is owed by the customer
    description text NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    applied_invoice_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    folded_into_plan_change_id uuid,
    CONSTRAINT pending_adjustments_kind_check CHECK ((kind = ANY (ARRAY['upgrade_line'::text, 'carried_correction'::text]))),
    CONSTRAINT pending_adjustments_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'applied'::text])))
);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_pkey PRIMARY KEY (id);
CREATE INDEX pending_adjustments_open_idx ON pending_adjustments USING btree (subscription_id) WHERE (status = 'pending'::text);

CREATE TABLE credit_notes (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    subscription_id uuid,
    plan_change_id uuid,
    applied_invoice_id uuid,
    number text NOT NULL,
    state text NOT NULL,
    amount_cents integer NOT NULL,
    currency character(3) NOT NULL,
    reason text NOT NULL,
    issued_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT credit_notes_amount_cents_check CHECK ((amount_cents >= 0)),
    CONSTRAINT credit_notes_state_check CHECK ((state = ANY (ARRAY['draft'::text, 'open'::text, 'refunded'::text, 'paid_out'::text, 'applied'::text, 'archived'::text, 'voided'::text])))
);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_number_key UNIQUE (number);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_pkey PRIMARY KEY (id);
CREATE INDEX credit_notes_open_idx ON credit_notes USING btree (subscription_id) WHERE (state = 'open'::text);
CREATE INDEX credit_notes_subscriber_idx ON credit_notes USING btree (subscriber_id, issued_at DESC);

-- Install path ------------------------------------------------------------------------------------

CREATE TABLE install_jobs (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscription_id uuid NOT NULL,
    unit_id uuid,
    kind text NOT NULL,
    status text NOT NULL,
    move_in_date date,
    booking_starts_at timestamp with time zone,  -- the booked four-hour window
    booking_ends_at timestamp with time zone,
    booking_invite_sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT install_jobs_kind_check CHECK ((kind = ANY (ARRAY['technician_visit'::text, 'cpe_shipment'::text]))),
    CONSTRAINT install_jobs_status_check CHECK ((status = ANY (ARRAY['CREATED'::text, 'BOOKING_HELD'::text, 'BOOKING_SENT'::text, 'BOOKED'::text, 'SHIPPED'::text, 'COMPLETED'::text, 'CANCELLED'::text])))
);
ALTER TABLE ONLY install_jobs
    ADD CONSTRAINT install_jobs_pkey PRIMARY KEY (id);
ALTER TABLE ONLY install_jobs
    ADD CONSTRAINT install_jobs_subscription_id_key UNIQUE (subscription_id);

-- Network state -----------------------------------------------------------------------------------

CREATE TABLE modem_status (
    subscription_id uuid NOT NULL,
    state text NOT NULL,
    last_seen_at timestamp with time zone,
    signal_dbm numeric(5,2),
    uptime_seconds integer,
    firmware text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT modem_status_state_check CHECK ((state = ANY (ARRAY['online'::text, 'offline'::text, 'degraded'::text])))
);
ALTER TABLE ONLY modem_status
    ADD CONSTRAINT modem_status_pkey PRIMARY KEY (subscription_id);

CREATE TABLE status_events (
    id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    subscription_id uuid,
    kind text NOT NULL,
    description text,
    started_at timestamp with time zone NOT NULL,
    resolved_at timestamp with time zone,
    CONSTRAINT status_events_kind_check CHECK ((kind = ANY (ARRAY['outage'::text, 'degraded'::text, 'maintenance'::text])))
);
ALTER TABLE ONLY status_events
    ADD CONSTRAINT status_events_pkey PRIMARY KEY (id);
CREATE INDEX status_events_subscriber_idx ON status_events USING btree (subscriber_id, started_at DESC);

CREATE TABLE usage_monthly (
    subscription_id uuid NOT NULL,
    month date NOT NULL,  -- its 1st
    download_bytes bigint DEFAULT 0 NOT NULL,
    upload_bytes bigint DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY usage_monthly
    ADD CONSTRAINT usage_monthly_pkey PRIMARY KEY (subscription_id, month);

-- Support -----------------------------------------------------------------------------------------

CREATE TABLE tickets (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid,
    contact_email text NOT NULL,
    subject text NOT NULL,
    priority text NOT NULL,
    status text DEFAULT 'open'::text NOT NULL,
    queue text DEFAULT 'support'::text NOT NULL,
    source text DEFAULT 'ai_agent'::text NOT NULL,
    article text NOT NULL,  -- customer-facing body (ai_summary + ai_diagnosis)
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    caller_verified boolean DEFAULT false NOT NULL,
    CONSTRAINT tickets_priority_check CHECK ((priority = ANY (ARRAY['low'::text, 'normal'::text, 'high'::text]))),
    CONSTRAINT tickets_status_check CHECK ((status = ANY (ARRAY['open'::text, 'pending'::text, 'solved'::text, 'closed'::text])))
);
ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_pkey PRIMARY KEY (id);
CREATE INDEX tickets_contact_idx ON tickets USING btree (provider_id, lower(contact_email), created_at DESC);
CREATE INDEX tickets_subscriber_idx ON tickets USING btree (subscriber_id, created_at DESC);

CREATE TABLE ticket_comments (
    id uuid NOT NULL,
    ticket_id uuid NOT NULL,
    public boolean NOT NULL,
    author text NOT NULL,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY ticket_comments
    ADD CONSTRAINT ticket_comments_pkey PRIMARY KEY (id);

CREATE TABLE customer_notes (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    author text NOT NULL,  -- 'ai_agent' for the /agent surface
    author_key_prefix text,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY customer_notes
    ADD CONSTRAINT customer_notes_pkey PRIMARY KEY (id);
CREATE INDEX customer_notes_subscriber_idx ON customer_notes USING btree (subscriber_id, created_at DESC);

CREATE TABLE audit_entries (
    id uuid NOT NULL,
    provider_id uuid,
    actor_type text NOT NULL,
    actor text NOT NULL,  -- key prefix, user id, or job name
    action text NOT NULL,
    entity_type text NOT NULL,
    entity_id text NOT NULL,
    before jsonb,
    after jsonb,
    request_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT audit_entries_actor_type_check CHECK ((actor_type = ANY (ARRAY['api_key'::text, 'user'::text, 'system'::text, 'webhook_secret'::text])))
);
ALTER TABLE ONLY audit_entries
    ADD CONSTRAINT audit_entries_pkey PRIMARY KEY (id);
CREATE INDEX audit_entries_entity_idx ON audit_entries USING btree (entity_type, entity_id, created_at);

-- Verification and links --------------------------------------------------------------------------

CREATE TABLE verification_codes (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    channel text NOT NULL,
    code_hash bytea NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    superseded boolean DEFAULT false NOT NULL,
    consumed_at timestamp with time zone,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT verification_codes_channel_check CHECK ((channel = ANY (ARRAY['email'::text, 'sms'::text])))
);
ALTER TABLE ONLY verification_codes
    ADD CONSTRAINT verification_codes_pkey PRIMARY KEY (id);
CREATE INDEX verification_codes_subscriber_idx ON verification_codes USING btree (subscriber_id, created_at DESC);

CREATE TABLE verified_sessions (
    id uuid NOT NULL,
    provider_id uuid NOT NULL,
    subscriber_id uuid NOT NULL,
    token_hash bytea NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY verified_sessions
    ADD CONSTRAINT verified_sessions_pkey PRIMARY KEY (id);
ALTER TABLE ONLY verified_sessions
    ADD CONSTRAINT verified_sessions_token_hash_key UNIQUE (token_hash);
CREATE INDEX verified_sessions_subscriber_idx ON verified_sessions USING btree (subscriber_id);

-- Single-use links (password reset, activation, staff invite, booking, payment): hashed token.
CREATE TABLE link_tokens (
    id uuid NOT NULL,
    purpose text NOT NULL,
    token_hash bytea NOT NULL,
    user_id uuid,
    subscriber_id uuid,
    reference_id uuid,  -- install job (booking) or invoice (payment)
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT link_tokens_purpose_check CHECK ((purpose = ANY (ARRAY['password_reset'::text, 'activation'::text, 'staff_invite'::text, 'booking'::text, 'payment'::text])))
);
ALTER TABLE ONLY link_tokens
    ADD CONSTRAINT link_tokens_pkey PRIMARY KEY (id);
ALTER TABLE ONLY link_tokens
    ADD CONSTRAINT link_tokens_token_hash_key UNIQUE (token_hash);
CREATE INDEX link_tokens_user_idx ON link_tokens USING btree (user_id, purpose);

-- Platform ----------------------------------------------------------------------------------------

CREATE TABLE jobs (
    id uuid NOT NULL,
    kind text NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 8 NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_by text,
    locked_until timestamp with time zone,  -- a running job whose lease passed is claimable again
    last_error text,
    dedupe_key text,  -- e.g. billing:<subscription>:<month>
    provider_id uuid,
    subscription_id uuid,
    result jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    wake_requested boolean DEFAULT false NOT NULL,
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'succeeded'::text, 'failed'::text])))
)
WITH (autovacuum_vacuum_scale_factor='0.01', autovacuum_vacuum_threshold='5000', vacuum_index_cleanup='on');
ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_dedupe_key_key UNIQUE (dedupe_key);
ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);
CREATE INDEX jobs_due_idx ON jobs USING btree (run_at, created_at) WHERE (status = 'queued'::text);
CREATE INDEX jobs_lease_idx ON jobs USING btree (locked_until) WHERE (status = 'running'::text);
CREATE INDEX jobs_subscription_idx ON jobs USING btree (subscription_id);

CREATE TABLE webhook_deliveries (
    id text NOT NULL,  -- the webhook-id, the same on every retry
    provider_id uuid NOT NULL,
    event_type text NOT NULL,
    subscription_id uuid,
    payload jsonb NOT NULL,  -- the envelope exactly as sent
    status text DEFAULT 'pending'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    seq bigint NOT NULL,
    blocked_by text,
    CONSTRAINT webhook_deliveries_event_type_check CHECK ((event_type = ANY (ARRAY['subscription.activated'::text, 'subscription.pending_install'::text, 'provisioning.completed'::text, 'provisioning.failed'::text, 'subscription.cancelled'::text, 'subscription.plan_changed'::text]))),
    CONSTRAINT webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
)
WITH (autovacuum_vacuum_scale_factor='0.01', autovacuum_vacuum_threshold='5000', vacuum_index_cleanup='on');
ALTER TABLE webhook_deliveries ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME webhook_deliveries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id);
CREATE INDEX webhook_deliveries_blocked_by_idx ON webhook_deliveries USING btree (blocked_by) WHERE (blocked_by IS NOT NULL);
CREATE INDEX webhook_deliveries_pending_order_idx ON webhook_deliveries USING btree (subscription_id, seq) WHERE (status = 'pending'::text);
CREATE INDEX webhook_deliveries_provider_waiting_idx ON webhook_deliveries USING btree (provider_id) WHERE ((status = 'pending'::text) AND (attempts = 0) AND (blocked_by IS NULL));
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries USING btree (subscription_id, created_at);

CREATE TABLE webhook_attempts (
    id uuid NOT NULL,
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    url text,
    status_code integer,
    error text,
    duration_ms integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_attempt_key UNIQUE (delivery_id, attempt);
ALTER TABLE ONLY webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);

CREATE TABLE idempotency_records (
    scope text NOT NULL,  -- the credential: key prefix, user id, secret prefix
    key text NOT NULL,
    request_hash bytea NOT NULL,
    status text NOT NULL,
    response_status integer,
    response_body jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT idempotency_records_status_check CHECK ((status = ANY (ARRAY['running'::text, 'done'::text])))
);
ALTER TABLE ONLY idempotency_records
    ADD CONSTRAINT idempotency_records_pkey PRIMARY KEY (scope, key);

-- Rate-limit buckets shared by several server processes (RATE_LIMIT_STORE=postgres)
CREATE TABLE rate_limit_buckets (
    bucket text NOT NULL,
    hits integer NOT NULL,
    window_ends_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY rate_limit_buckets
    ADD CONSTRAINT rate_limit_buckets_pkey PRIMARY KEY (bucket);

-- Demo only: what `seed:demo` prints, so a second run reprints the same document.
CREATE TABLE demo_state (
    id integer NOT NULL,
    document jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT demo_state_id_check CHECK ((id = 1))
);
ALTER TABLE ONLY demo_state
    ADD CONSTRAINT demo_state_pkey PRIMARY KEY (id);

-- Simulators of the external systems (their own stores; no domain code reads them) ----------------

-- The switch controller simulator's durable port state (so a restart never repeats an action)
CREATE TABLE sim_switch_ports (
    location_id uuid NOT NULL,
    mode text NOT NULL,
    vlan_id integer,
    download_mbps integer,
    upload_mbps integer,
    mac_address text,
    operations integer DEFAULT 0 NOT NULL,
    last_operation_key text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    switch_id text,
    port text,
    -- a bandwidth change held for operator confirmation (legacy switches), not yet applied
    pending_download_mbps integer,
    pending_upload_mbps integer,
    CONSTRAINT sim_switch_ports_mode_check CHECK ((mode = ANY (ARRAY['provisioned'::text, 'captive_portal'::text, 'reset'::text])))
);
ALTER TABLE ONLY sim_switch_ports
    ADD CONSTRAINT sim_switch_ports_pkey PRIMARY KEY (location_id);

-- Every operation the simulated switch applied, by its idempotency key: a retried job repeats its
-- key and the switch applies it once, even when another operation on the same port came between.
CREATE TABLE sim_switch_operations (
    operation_key text NOT NULL,
    location_id uuid NOT NULL,
    action text NOT NULL,
    result jsonb DEFAULT '{}'::jsonb NOT NULL,  -- the answer, repeated for a repeated key
    applied_at timestamp with time zone NOT NULL,
    CONSTRAINT sim_switch_operations_action_check CHECK ((action = ANY (ARRAY['provision_port'::text, 'captive_portal'::text, 'reset_port'::text, 'update_bandwidth'::text])))
);
ALTER TABLE ONLY sim_switch_operations
    ADD CONSTRAINT sim_switch_operations_pkey PRIMARY KEY (operation_key);
CREATE INDEX sim_switch_operations_location_idx ON sim_switch_operations USING btree (location_id, applied_at);

-- The simulated billing system's schedule: the send date of each subscription's next recurring invoice.
CREATE TABLE sim_billing_schedules (
    subscription_id uuid NOT NULL,
    next_send_date date NOT NULL,
    reschedules integer DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone NOT NULL
);
ALTER TABLE ONLY sim_billing_schedules
    ADD CONSTRAINT sim_billing_schedules_pkey PRIMARY KEY (subscription_id);

-- Foreign keys -----------------------------------------------------------------------------------

ALTER TABLE ONLY api_keys
    ADD CONSTRAINT api_keys_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id) ON DELETE CASCADE;
ALTER TABLE ONLY audit_entries
    ADD CONSTRAINT audit_entries_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY billing_documents
    ADD CONSTRAINT billing_documents_invoice_id_fkey FOREIGN KEY (invoice_id) REFERENCES invoices(id);
ALTER TABLE ONLY billing_documents
    ADD CONSTRAINT billing_documents_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY billing_documents
    ADD CONSTRAINT billing_documents_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY buildings
    ADD CONSTRAINT buildings_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_building_id_fkey FOREIGN KEY (building_id) REFERENCES buildings(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_location_id_fkey FOREIGN KEY (location_id) REFERENCES locations(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_plan_version_id_fkey FOREIGN KEY (plan_version_id) REFERENCES plan_versions(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_subscription_fk FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_unit_id_fkey FOREIGN KEY (unit_id) REFERENCES units(id);
ALTER TABLE ONLY checkout_sessions
    ADD CONSTRAINT checkout_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY coverage_addresses
    ADD CONSTRAINT coverage_addresses_building_id_fkey FOREIGN KEY (building_id) REFERENCES buildings(id);
ALTER TABLE ONLY coverage_addresses
    ADD CONSTRAINT coverage_addresses_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_applied_invoice_id_fkey FOREIGN KEY (applied_invoice_id) REFERENCES invoices(id);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_plan_change_id_fkey FOREIGN KEY (plan_change_id) REFERENCES plan_changes(id);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY credit_notes
    ADD CONSTRAINT credit_notes_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY customer_notes
    ADD CONSTRAINT customer_notes_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY customer_notes
    ADD CONSTRAINT customer_notes_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY install_jobs
    ADD CONSTRAINT install_jobs_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY install_jobs
    ADD CONSTRAINT install_jobs_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY install_jobs
    ADD CONSTRAINT install_jobs_unit_id_fkey FOREIGN KEY (unit_id) REFERENCES units(id);
ALTER TABLE ONLY invoice_lines
    ADD CONSTRAINT invoice_lines_invoice_id_fkey FOREIGN KEY (invoice_id) REFERENCES invoices(id) ON DELETE CASCADE;
ALTER TABLE ONLY invoices
    ADD CONSTRAINT invoices_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY invoices
    ADD CONSTRAINT invoices_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY invoices
    ADD CONSTRAINT invoices_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY jobs
    ADD CONSTRAINT jobs_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY link_tokens
    ADD CONSTRAINT link_tokens_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY link_tokens
    ADD CONSTRAINT link_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_building_id_fkey FOREIGN KEY (building_id) REFERENCES buildings(id);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY locations
    ADD CONSTRAINT locations_unit_id_fkey FOREIGN KEY (unit_id) REFERENCES units(id);
ALTER TABLE ONLY modem_status
    ADD CONSTRAINT modem_status_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_applied_invoice_id_fkey FOREIGN KEY (applied_invoice_id) REFERENCES invoices(id);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_folded_into_plan_change_id_fkey FOREIGN KEY (folded_into_plan_change_id) REFERENCES plan_changes(id);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_plan_change_id_fkey FOREIGN KEY (plan_change_id) REFERENCES plan_changes(id);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY pending_adjustments
    ADD CONSTRAINT pending_adjustments_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_from_plan_version_id_fkey FOREIGN KEY (from_plan_version_id) REFERENCES plan_versions(id);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY plan_changes
    ADD CONSTRAINT plan_changes_to_plan_version_id_fkey FOREIGN KEY (to_plan_version_id) REFERENCES plan_versions(id);
ALTER TABLE ONLY plan_versions
    ADD CONSTRAINT plan_versions_plan_id_fkey FOREIGN KEY (plan_id) REFERENCES plans(id);
ALTER TABLE ONLY plan_versions
    ADD CONSTRAINT plan_versions_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY plans
    ADD CONSTRAINT plans_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY status_events
    ADD CONSTRAINT status_events_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY status_events
    ADD CONSTRAINT status_events_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY subscribers
    ADD CONSTRAINT subscribers_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY subscribers
    ADD CONSTRAINT subscribers_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_building_id_fkey FOREIGN KEY (building_id) REFERENCES buildings(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_checkout_session_id_fkey FOREIGN KEY (checkout_session_id) REFERENCES checkout_sessions(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_location_id_fkey FOREIGN KEY (location_id) REFERENCES locations(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_plan_version_id_fkey FOREIGN KEY (plan_version_id) REFERENCES plan_versions(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY subscriptions
    ADD CONSTRAINT subscriptions_unit_id_fkey FOREIGN KEY (unit_id) REFERENCES units(id);
ALTER TABLE ONLY ticket_comments
    ADD CONSTRAINT ticket_comments_ticket_id_fkey FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE;
ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY units
    ADD CONSTRAINT units_building_id_fkey FOREIGN KEY (building_id) REFERENCES buildings(id);
ALTER TABLE ONLY usage_monthly
    ADD CONSTRAINT usage_monthly_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);
ALTER TABLE ONLY users
    ADD CONSTRAINT users_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY verification_codes
    ADD CONSTRAINT verification_codes_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY verification_codes
    ADD CONSTRAINT verification_codes_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY verified_sessions
    ADD CONSTRAINT verified_sessions_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY verified_sessions
    ADD CONSTRAINT verified_sessions_subscriber_id_fkey FOREIGN KEY (subscriber_id) REFERENCES subscribers(id);
ALTER TABLE ONLY webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_blocked_by_fkey FOREIGN KEY (blocked_by) REFERENCES webhook_deliveries(id);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_provider_id_fkey FOREIGN KEY (provider_id) REFERENCES providers(id);
ALTER TABLE ONLY webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_subscription_id_fkey FOREIGN KEY (subscription_id) REFERENCES subscriptions(id);

-- Triggers ---------------------------------------------------------------------------------------

-- Every change that must revoke login tokens bumps users.token_version (decisions.md, Safety: JWT).
CREATE TRIGGER users_revoke_tokens BEFORE UPDATE OF password_hash, role, sp_role, provider_id, disabled ON users FOR EACH ROW WHEN (((old.password_hash IS DISTINCT FROM new.password_hash) OR (old.role IS DISTINCT FROM new.role) OR (old.sp_role IS DISTINCT FROM new.sp_role) OR (old.provider_id IS DISTINCT FROM new.provider_id) OR (old.disabled IS DISTINCT FROM new.disabled))) EXECUTE FUNCTION users_bump_token_version();

-- Reference data ---------------------------------------------------------------------------------

-- Booking regions and their time zones (IANA).
INSERT INTO regions (code, time_zone) VALUES
  ('DE', 'Europe/Berlin'),
  ('DE-BW', 'Europe/Berlin'), ('DE-BY', 'Europe/Berlin'), ('DE-BE', 'Europe/Berlin'), ('DE-BB', 'Europe/Berlin'),
  ('DE-HB', 'Europe/Berlin'), ('DE-HH', 'Europe/Berlin'), ('DE-HE', 'Europe/Berlin'), ('DE-MV', 'Europe/Berlin'),
  ('DE-NI', 'Europe/Berlin'), ('DE-NW', 'Europe/Berlin'), ('DE-RP', 'Europe/Berlin'), ('DE-SL', 'Europe/Berlin'),
  ('DE-SN', 'Europe/Berlin'), ('DE-ST', 'Europe/Berlin'), ('DE-SH', 'Europe/Berlin'), ('DE-TH', 'Europe/Berlin'),
  -- Canada spans six zones: the country row takes the most populous one; provinces name their own.
  ('CA', 'America/Toronto'),
  ('CA-ON', 'America/Toronto'), ('CA-QC', 'America/Toronto'), ('CA-NS', 'America/Halifax'), ('CA-NB', 'America/Moncton'),
  ('CA-PE', 'America/Halifax'), ('CA-NL', 'America/St_Johns'), ('CA-MB', 'America/Winnipeg'), ('CA-SK', 'America/Regina'),
  ('CA-AB', 'America/Edmonton'), ('CA-BC', 'America/Vancouver'), ('CA-YT', 'America/Whitehorse'),
  ('CA-NT', 'America/Edmonton'), ('CA-NU', 'America/Iqaluit');
