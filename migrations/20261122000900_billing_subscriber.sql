-- Subscriber self-service, the billing engine and cancellation.

-- A card setup in progress (setup_id is the processor's id: internal; the client secret handed to
-- the browser is kept only as a hash, so a confirm can be matched to the setup it belongs to).
ALTER TABLE subscribers
  ADD COLUMN card_setup_id text,
  ADD COLUMN card_setup_secret_hash bytea;

-- One first invoice per subscription: collecting the first payment twice never bills twice.
CREATE UNIQUE INDEX invoices_subscription_first_key ON invoices (subscription_id) WHERE kind = 'first';

-- The dunning run looks for open invoices by due date.
CREATE INDEX invoices_open_due_idx ON invoices (due_date) WHERE status = 'open';

-- Open credit notes are applied to the next invoice of their subscription.
CREATE INDEX credit_notes_open_idx ON credit_notes (subscription_id) WHERE state = 'open';
