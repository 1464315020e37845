-- migrate: no-transaction
-- The name index's keys led by the customer's provider's key (migrations/functions/agent_search_name_keys_keyed.sql),
-- built beside reads and writes; the name probes and the word passes read it once this release serves.
CREATE INDEX CONCURRENTLY IF NOT EXISTS subscribers_search_name_keys_keyed_idx ON subscribers USING gin (agent_search_name_keys_keyed(provider_id, first_name, last_name, invoice_first_name, invoice_last_name)) WITH (fastupdate = off)
