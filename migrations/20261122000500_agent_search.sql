-- /agent customer search: every field the search matches has an index-backed prefix range
-- (btree expression indexes with COLLATE "C", so `LIKE 'x%'` becomes an index range), and the
-- joins from a matched building/unit back to its subscribers are indexed too.

-- Invoice address of the subscriber
CREATE INDEX subscribers_search_invoice_street_idx ON subscribers (provider_id, lower(invoice_street) COLLATE "C");
CREATE INDEX subscribers_search_invoice_city_idx ON subscribers (provider_id, lower(invoice_city) COLLATE "C");
CREATE INDEX subscribers_search_invoice_postal_idx ON subscribers (provider_id, lower(invoice_postal_code) COLLATE "C");
CREATE INDEX subscribers_search_invoice_house_idx ON subscribers (provider_id, lower(invoice_house_number) COLLATE "C");

-- Service location: the building's address and the unit label
CREATE INDEX buildings_search_street_idx ON buildings (provider_id, lower(street) COLLATE "C");
CREATE INDEX buildings_search_city_idx ON buildings (provider_id, lower(city) COLLATE "C");
CREATE INDEX buildings_search_postal_idx ON buildings (provider_id, lower(postal_code) COLLATE "C");
CREATE INDEX buildings_search_name_idx ON buildings (provider_id, lower(name) COLLATE "C");
CREATE INDEX buildings_search_house_idx ON buildings (provider_id, lower(house_number) COLLATE "C");
CREATE INDEX units_search_label_idx ON units (lower(label) COLLATE "C");

-- From a building / unit / location to the subscriptions on it (the partial unique indexes cover
-- only non-terminal subscriptions; a cancelled customer is still a customer the agent can find)
CREATE INDEX subscriptions_building_idx ON subscriptions (building_id);
CREATE INDEX subscriptions_unit_idx ON subscriptions (unit_id);
CREATE INDEX subscriptions_location_idx ON subscriptions (location_id);

-- Agent reads and writes
CREATE INDEX tickets_subscriber_idx ON tickets (subscriber_id, created_at DESC);
CREATE INDEX customer_notes_subscriber_idx ON customer_notes (subscriber_id, created_at DESC);
CREATE INDEX verified_sessions_subscriber_idx ON verified_sessions (subscriber_id);
CREATE INDEX invoices_subscriber_paid_idx ON invoices (subscriber_id, paid_at DESC) WHERE status = 'paid';

-- Trigram fallback over the building address (the subscriber side has subscribers_search_trgm_idx)
CREATE INDEX buildings_search_trgm_idx ON buildings USING gin (
  (lower(coalesce(name, '') || ' ' || coalesce(street, '') || ' ' || coalesce(house_number, '') || ' ' || coalesce(postal_code, '') || ' ' || coalesce(city, ''))) gin_trgm_ops);
