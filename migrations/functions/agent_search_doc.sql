-- A customer's search document (search_documents.doc), the words the word passes and the name-and-place probe
-- can match: its index finds the customers that have every word of a query, which are then checked word by word
-- (agent_customer_search, search-words.repository.ts). Its name words whole and each with one letter deleted
-- ('n:', the keys of agent_search_name_keys that hold one word), the words of its invoice address
-- (agent_search_invoice_lexemes), and those of the building and unit of each of its subscriptions, directly or
-- through its location (agent_search_place_lexemes): only the customer's provider's, as the word passes' check reads
-- them, so a word the document answers alone never reaches another provider's building.
-- NULL for a customer that does not exist. PL/pgSQL keeps its statements' plans for the session (a trigger or the
-- backfill calls it once per customer).
CREATE OR REPLACE FUNCTION agent_search_doc(p_subscriber uuid) RETURNS tsvector
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    AS $$
DECLARE
  c record;
  out text[];
  w text;
  i integer;
BEGIN
  SELECT s.provider_id, s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name, s.invoice_street,
         s.invoice_house_number, s.invoice_postal_code, s.invoice_city
  INTO c FROM subscribers s WHERE s.id = p_subscriber;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  out := public.agent_search_invoice_lexemes(c.invoice_street, c.invoice_house_number, c.invoice_postal_code, c.invoice_city)
    || ARRAY(
      SELECT x FROM subscriptions s
      LEFT JOIN locations l ON l.id = s.location_id
      LEFT JOIN buildings b ON b.id IN (s.building_id, l.building_id) AND b.provider_id = c.provider_id
      LEFT JOIN units u ON u.id IN (s.unit_id, l.unit_id)
      CROSS JOIN LATERAL unnest(public.agent_search_place_lexemes(b.street, b.house_number, b.postal_code, b.city, b.name, u.label)) x
      WHERE s.subscriber_id = p_subscriber AND s.provider_id = c.provider_id);
  FOREACH w IN ARRAY public.agent_search_name_words(c.first_name, c.last_name, c.invoice_first_name, c.invoice_last_name) LOOP
    out := out || ('n:' || left(w, 256));
    CONTINUE WHEN length(w) < 5;
    FOR i IN 1 .. length(w) LOOP
      out := out || ('n:~' || left(overlay(w PLACING '' FROM i FOR 1), 256));
    END LOOP;
  END LOOP;
  -- array_to_tsvector removes repeated words
  RETURN array_to_tsvector(out);
END
$$;
