-- /agent customer search, first pass: the probes' matches carry every column of a page row, so
-- the page reads no subscriber row again. A name search returned 25 of its matches with 25
-- primary-key lookups (two or three pages each, most of them not in shared buffers); the full-name
-- indexes now hold the page's columns and answer the whole match list from their leaf pages.
ALTER TYPE agent_search_hit ADD ATTRIBUTE email text, ADD ATTRIBUTE phone text, ADD ATTRIBUTE customer_number text;

DROP INDEX subscribers_search_name_fl_idx;
CREATE INDEX subscribers_search_name_fl_idx ON subscribers (provider_id, lower(first_name || ' ' || last_name) COLLATE "C")
  INCLUDE (id, first_name, last_name, email, phone, customer_number);
DROP INDEX subscribers_search_name_lf_idx;
CREATE INDEX subscribers_search_name_lf_idx ON subscribers (provider_id, lower(last_name || ' ' || first_name) COLLATE "C")
  INCLUDE (id, first_name, last_name, email, phone, customer_number);

-- Same probes and answer as migration 1100 (see its comments).
CREATE OR REPLACE FUNCTION agent_customer_search(
  p_provider uuid, p_kinds text[], p_keys text[], p_houses text[], p_name_modes text[], p_name_keys text[],
  p_tokens text[], p_limit integer)
RETURNS TABLE (
  id uuid, first_name text, last_name text, email text, phone text, customer_number text, match_count bigint,
  service_locations json
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
-- Generic plans carry default row estimates (thousands of rows per range), so their costs are far
-- above jit_above_cost: JIT would compile every statement (0.7 s, measured) to run it in 0.1 ms.
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $$
#variable_conflict use_column
DECLARE
  hits agent_search_hit[] := '{}';
  i integer;
  k text;
  lo text;
  hi text;
  hn text;
  nm text;
  nlo text;
  nhi text;
  toks text[];
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_kinds, 1), 0) LOOP
    k := p_kinds[i];
    lo := CASE WHEN k IN ('phone', 'number') THEN p_keys[i] ELSE lower(p_keys[i]) END;
    hi := lo || chr(1114111);  -- above every string that starts with lo (byte order)
    hn := replace(lower(p_houses[i]), ' ', '');
    nm := p_name_modes[i];
    nlo := lower(p_name_keys[i]);
    nhi := nlo || chr(1114111);
    toks := coalesce(string_to_array(lower(p_tokens[i]), ' '), '{}');

    IF k = 'phone' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND s.phone_e164 COLLATE "C" >= lo AND s.phone_e164 COLLATE "C" < hi);
    ELSIF k = 'email' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND lower(s.email) COLLATE "C" >= lo AND lower(s.email) COLLATE "C" < hi);
    ELSIF k = 'number' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND s.customer_number COLLATE "C" >= lo AND s.customer_number COLLATE "C" < hi);
    ELSIF k = 'name' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider
          AND lower(s.first_name || ' ' || s.last_name) COLLATE "C" >= lo AND lower(s.first_name || ' ' || s.last_name) COLLATE "C" < hi
        UNION ALL
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider
          AND lower(s.last_name || ' ' || s.first_name) COLLATE "C" >= lo AND lower(s.last_name || ' ' || s.first_name) COLLATE "C" < hi);
    ELSIF k = 'name_word' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND lower(s.first_name) COLLATE "C" >= lo AND lower(s.first_name) COLLATE "C" < hi
        UNION ALL
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND lower(s.last_name) COLLATE "C" >= lo AND lower(s.last_name) COLLATE "C" < hi);
    ELSIF k = 'address' THEN
      hits := hits || ARRAY(
        WITH b AS MATERIALIZED (
          -- the buildings at that street and house number, and the words their address does not
          -- explain (at most one may remain: the unit)
          SELECT b.id,
            ARRAY(SELECT t FROM unnest(toks) t
                  WHERE NOT ((length(t) >= 3 AND agent_search_word_prefix(b.postal_code, t)) OR agent_search_word_prefix(b.city, t))) AS rest
          FROM buildings b
          WHERE b.provider_id = p_provider
            AND lower(coalesce(b.street, '') || ' ' || coalesce(b.house_number, '')) COLLATE "C" >= lo
            AND lower(coalesce(b.street, '') || ' ' || coalesce(b.house_number, '')) COLLATE "C" < hi
            AND agent_search_number_matches(b.house_number, hn)
        ),
        sub AS (
          SELECT x.subscriber_id FROM b CROSS JOIN LATERAL (
            SELECT s.subscriber_id FROM subscriptions s WHERE s.building_id = b.id AND s.provider_id = p_provider
            UNION ALL
            SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id
            WHERE l.building_id = b.id AND s.provider_id = p_provider
            OFFSET 0) x
          WHERE cardinality(b.rest) = 0
          UNION ALL
          SELECT x.subscriber_id FROM b
          CROSS JOIN LATERAL (
            SELECT u.id FROM units u WHERE u.building_id = b.id AND agent_search_number_matches(u.label, b.rest[1]) OFFSET 0) u
          CROSS JOIN LATERAL (
            SELECT s.subscriber_id FROM subscriptions s WHERE s.unit_id = u.id AND s.provider_id = p_provider
            UNION ALL
            SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id
            WHERE l.unit_id = u.id AND s.provider_id = p_provider
            OFFSET 0) x
          WHERE cardinality(b.rest) = 1
          UNION ALL
          -- the invoice address; its other words name its postal code or city, or the unit of one of
          -- the customer's service locations
          SELECT s.id FROM subscribers s
          WHERE s.provider_id = p_provider AND s.invoice_street IS NOT NULL AND s.invoice_house_number IS NOT NULL
            AND lower(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" >= lo
            AND lower(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" < hi
            AND agent_search_number_matches(s.invoice_house_number, hn)
            AND (agent_search_place_matches(toks, NULL, s.invoice_postal_code, s.invoice_city, NULL, NULL, NULL)
              OR EXISTS (
                SELECT 1 FROM subscriptions sl
                CROSS JOIN LATERAL (SELECT coalesce(sl.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = sl.location_id)) AS unit_id) w
                JOIN units u ON u.id = w.unit_id
                WHERE sl.subscriber_id = s.id
                  AND agent_search_place_matches(toks, NULL, s.invoice_postal_code, s.invoice_city, NULL, NULL, u.label)
                OFFSET 0))
        )
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit
        FROM (SELECT DISTINCT subscriber_id FROM sub) d
        CROSS JOIN LATERAL (SELECT s.* FROM subscribers s WHERE s.id = d.subscriber_id AND s.provider_id = p_provider OFFSET 0) s
        WHERE nm IS NULL
          OR (nm = 'full' AND (starts_with(lower(s.first_name || ' ' || s.last_name), nlo) OR starts_with(lower(s.last_name || ' ' || s.first_name), nlo)))
          OR (nm = 'word' AND (starts_with(lower(s.first_name), nlo) OR starts_with(lower(s.last_name), nlo))));
    ELSIF k = 'name_location' THEN
      -- A one- or two-letter name ("Li", "Wu") is a whole first or last name here, not a prefix
      -- of thousands of them, each checked against its locations.
      IF nm = 'word' AND length(nlo) <= 2 THEN nhi := nlo || chr(1); END IF;
      hits := hits || ARRAY(
        WITH n AS MATERIALIZED (
          SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number FROM subscribers s
          WHERE nm = 'full' AND s.provider_id = p_provider
            AND lower(s.first_name || ' ' || s.last_name) COLLATE "C" >= nlo AND lower(s.first_name || ' ' || s.last_name) COLLATE "C" < nhi
          UNION
          SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number FROM subscribers s
          WHERE nm = 'full' AND s.provider_id = p_provider
            AND lower(s.last_name || ' ' || s.first_name) COLLATE "C" >= nlo AND lower(s.last_name || ' ' || s.first_name) COLLATE "C" < nhi
          UNION
          SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number FROM subscribers s
          WHERE nm = 'word' AND s.provider_id = p_provider AND lower(s.first_name) COLLATE "C" >= nlo AND lower(s.first_name) COLLATE "C" < nhi
          UNION
          SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number FROM subscribers s
          WHERE nm = 'word' AND s.provider_id = p_provider AND lower(s.last_name) COLLATE "C" >= nlo AND lower(s.last_name) COLLATE "C" < nhi
        )
        SELECT ROW(n.id, n.first_name, n.last_name, n.email, n.phone, n.customer_number)::agent_search_hit FROM n
        WHERE EXISTS (
            SELECT 1 FROM subscriptions s
            CROSS JOIN LATERAL (
              SELECT coalesce(s.building_id, (SELECT l.building_id FROM locations l WHERE l.id = s.location_id)) AS building_id,
                     coalesce(s.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = s.location_id)) AS unit_id) w
            LEFT JOIN buildings b ON b.id = w.building_id
            LEFT JOIN units u ON u.id = w.unit_id
            WHERE s.subscriber_id = n.id
              AND agent_search_place_matches(toks, b.house_number, b.postal_code, b.city, b.street, b.name, u.label)
            OFFSET 0)
          OR EXISTS (
            SELECT 1 FROM subscribers x
            WHERE x.id = n.id
              AND agent_search_place_matches(toks, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL, NULL)
            OFFSET 0));
    END IF;
  END LOOP;

  RETURN QUERY
  WITH h AS (SELECT DISTINCT x.id, x.first_name, x.last_name, x.email, x.phone, x.customer_number FROM unnest(hits) x),
  page AS (
    SELECT h.*, count(*) OVER () AS total FROM h
    ORDER BY lower(h.last_name), lower(h.first_name), h.id
    LIMIT p_limit
  )
  SELECT page.id, page.first_name, page.last_name, page.email, page.phone, page.customer_number, page.total,
    (SELECT coalesce(json_agg(json_build_object(
        'status', sl.status, 'street', b.street, 'house_number', b.house_number,
        'postal_code', b.postal_code, 'city', b.city, 'unit_label', u.label) ORDER BY sl.created_at, sl.id), '[]'::json)
     FROM subscriptions sl
     CROSS JOIN LATERAL (
       SELECT coalesce(sl.building_id, (SELECT l.building_id FROM locations l WHERE l.id = sl.location_id)) AS building_id,
              coalesce(sl.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = sl.location_id)) AS unit_id) w
     LEFT JOIN buildings b ON b.id = w.building_id
     LEFT JOIN units u ON u.id = w.unit_id
     WHERE sl.subscriber_id = page.id)
  FROM page
  ORDER BY lower(page.last_name), lower(page.first_name), page.id;
END
$$;
