-- The address probe of the customer search reads street and house number folded
-- (agent_search_fold_street: umlauts, accents, "Straße"/"strasse"/"str."): the two prefix-range
-- indexes it reads are rebuilt over the folded expression (agent_customer_search uses it
-- byte for byte).
DROP INDEX IF EXISTS buildings_search_address_idx;
CREATE INDEX buildings_search_address_idx ON buildings USING btree (provider_id, agent_search_fold_street(((COALESCE(street, ''::text) || ' '::text) || COALESCE(house_number, ''::text))) COLLATE "C");
DROP INDEX IF EXISTS subscribers_search_invoice_address_idx;
CREATE INDEX subscribers_search_invoice_address_idx ON subscribers USING btree (provider_id, agent_search_fold_street(((invoice_street || ' '::text) || invoice_house_number)) COLLATE "C") INCLUDE (id, invoice_street, invoice_house_number, invoice_postal_code, invoice_city) WHERE ((invoice_street IS NOT NULL) AND (invoice_house_number IS NOT NULL));
