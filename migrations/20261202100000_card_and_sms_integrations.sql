-- Issue 29 §1, §2: a provider's SMS gateway (Twilio) and the card processor's events.
-- The card-processor connection stays providers.card_processor_account: a Stripe connected account
-- (acct_…) under the platform key of the environment (docs/decisions.md "Card processor and SMS gateway").
-- The gateway's auth token is sealed (AES-256-GCM under SECRETS_KEY, src/lib/secret-box.ts), never in clear;
-- providers.sms_configured stays the switch that turns SMS codes on, kept true while a gateway row exists.
CREATE TABLE provider_sms_gateways (
    provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
    kind text DEFAULT 'twilio' NOT NULL CHECK (kind = 'twilio'),
    account_sid text NOT NULL,
    auth_token_sealed bytea NOT NULL,
    sender text NOT NULL,  -- the From: an E.164 number, or a Messaging Service SID (MG…)
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT provider_sms_gateways_pkey PRIMARY KEY (provider_id)
);

-- Stripe events applied, by event id: a redelivered event is answered and not applied twice.
CREATE TABLE card_processor_events (
    id text NOT NULL,
    type text NOT NULL,
    account text,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT card_processor_events_pkey PRIMARY KEY (id)
);
CREATE INDEX card_processor_events_received_idx ON card_processor_events USING btree (received_at);
