-- Each customer's search document (migrations/functions/agent_search_doc.sql), kept up to date by triggers, so
-- that one index answers which customers have every word of a query. A table of its own: filling a column of
-- subscribers would rewrite every customer's row and each of its indexes. Existing customers get theirs from
-- the next file, in batches; its index is built after them.
CREATE TABLE search_documents (
  subscriber_id uuid PRIMARY KEY REFERENCES subscribers(id) ON DELETE CASCADE,
  provider_id uuid NOT NULL,
  doc tsvector NOT NULL
);

CREATE TRIGGER subscribers_search_doc AFTER INSERT OR UPDATE OF provider_id, first_name, last_name, invoice_first_name, invoice_last_name,
    invoice_street, invoice_house_number, invoice_postal_code, invoice_city
  ON subscribers FOR EACH ROW EXECUTE FUNCTION agent_search_doc_changed();
CREATE TRIGGER subscriptions_search_doc AFTER INSERT OR DELETE OR UPDATE OF subscriber_id, building_id, unit_id, location_id
  ON subscriptions FOR EACH ROW EXECUTE FUNCTION agent_search_doc_changed();
CREATE TRIGGER locations_search_doc AFTER UPDATE OF building_id, unit_id
  ON locations FOR EACH ROW EXECUTE FUNCTION agent_search_doc_changed();
CREATE TRIGGER buildings_search_doc AFTER UPDATE OF street, house_number, postal_code, city, name
  ON buildings FOR EACH ROW EXECUTE FUNCTION agent_search_doc_changed();
CREATE TRIGGER units_search_doc AFTER UPDATE OF label
  ON units FOR EACH ROW EXECUTE FUNCTION agent_search_doc_changed();
