-- /agent customer search under the "Safety" rules of docs/decisions.md: phone, email and customer
-- number match only in full; name words (contact and invoice contact) match whole words, with one
-- typo allowed in a word of 5+ letters; street, building, unit and city words match by prefix.
-- No search may reveal one character of a masked field, so every prefix path over a masked field
-- is gone: the prefix-range indexes on email, phone, number and names are dropped, and so is the
-- trigram index over names, email and invoice address (substrings of masked fields). The match count stops at 1,000.

-- 1. The invoice contact's phone, normalised like the contract contact's (written by the contact
-- update and the demo; existing rows: the contract phone when it is the same number, else an
-- international number as typed).
ALTER TABLE subscribers ADD COLUMN invoice_phone_e164 text;
UPDATE subscribers SET invoice_phone_e164 = CASE
    WHEN regexp_replace(invoice_phone, '\D', '', 'g') = regexp_replace(coalesce(phone, ''), '\D', '', 'g') THEN phone_e164
    WHEN invoice_phone ~ '^\s*\+' THEN '+' || regexp_replace(invoice_phone, '\D', '', 'g')
    WHEN invoice_phone ~ '^\s*00' THEN '+' || substr(regexp_replace(invoice_phone, '\D', '', 'g'), 3)
  END
WHERE invoice_phone IS NOT NULL;

-- 2. Whole values: equality lookups (the unique indexes serve email and customer number).
DROP INDEX subscribers_search_email_idx;
DROP INDEX subscribers_search_number_idx;
DROP INDEX subscribers_search_first_idx;
DROP INDEX subscribers_search_last_idx;
DROP INDEX subscribers_search_name_fl_idx;
DROP INDEX subscribers_search_name_lf_idx;
DROP INDEX subscribers_search_trgm_idx;
CREATE INDEX subscribers_search_invoice_email_idx ON subscribers (provider_id, lower(invoice_email)) WHERE invoice_email IS NOT NULL;
CREATE INDEX subscribers_search_invoice_phone_idx ON subscribers (provider_id, invoice_phone_e164) WHERE invoice_phone_e164 IS NOT NULL;

-- 3. Name words. The words of the contact's and the invoice contact's first and last names, lower
-- case, split at spaces, hyphens, dots, commas and slashes ("Meyer-Schulz": meyer, schulz).
CREATE FUNCTION agent_search_name_words(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT w), '{}')
  FROM regexp_split_to_table(lower(concat_ws(' ', p_first, p_last, p_inv_first, p_inv_last)), '[\s,./-]+') w
  WHERE w <> ''
$$;

-- The keys of the name index: each word, and each word of 5+ letters with one letter deleted,
-- marked '~' (so a query word, which never holds '~', meets only whole words). One typo is found by
-- key equality: a substituted or swapped letter shares a deleted form, a missing letter is a
-- deleted form, an extra letter deletes to the word (the service builds those keys of the query
-- word; agent_search_name_word_matches then keeps only true one-typo matches).
CREATE FUNCTION agent_search_name_keys(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(array_agg(DISTINCT k), '{}') FROM (
    SELECT w AS k FROM unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) w
    UNION ALL
    SELECT '~' || overlay(w PLACING '' FROM i FOR 1)
    FROM unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) w, generate_series(1, length(w)) i
    WHERE length(w) >= 5) k
$$;

CREATE INDEX subscribers_search_name_keys_idx ON subscribers USING gin (agent_search_name_keys(first_name, last_name, invoice_first_name, invoice_last_name));

-- A query word (lower case) names a name word: equal; or, with p_typo and a query word of 5+
-- letters, one letter differs, is extra or is missing, or two neighbours are swapped. A missing
-- LAST letter is not a typo: the query word would be a prefix of the name word, and a prefix of a
-- name must match nothing.
CREATE FUNCTION agent_search_name_word_matches(p_word text, p_name_word text, p_typo boolean) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  a integer := length(p_word);
  b integer := length(p_name_word);
  i integer := 1;
BEGIN
  IF p_word = p_name_word THEN RETURN true; END IF;
  IF NOT p_typo OR a < 5 OR abs(a - b) > 1 OR starts_with(p_name_word, p_word) THEN RETURN false; END IF;
  WHILE i <= least(a, b) AND substr(p_word, i, 1) = substr(p_name_word, i, 1) LOOP i := i + 1; END LOOP;
  IF a = b THEN
    RETURN substr(p_word, i + 1) = substr(p_name_word, i + 1)
      OR (substr(p_word, i, 1) = substr(p_name_word, i + 1, 1) AND substr(p_word, i + 1, 1) = substr(p_name_word, i, 1)
          AND substr(p_word, i + 2) = substr(p_name_word, i + 2));
  ELSIF a > b THEN
    RETURN substr(p_word, i + 1) = substr(p_name_word, i);
  ELSE
    RETURN substr(p_word, i) = substr(p_name_word, i + 1);
  END IF;
END
$$;

-- 4. The first pass. Probes are parallel arrays, one element per probe (search.query.ts builds them):
--   kind  'phone'   key: an E.164 number, equal to the contact's or the invoice contact's
--         'email'   key: an address (lower case, no spaces), equal to the contact's or the invoice contact's
--         'number'  key: a customer number (ABCD-1234), equal
--         'name'    names: name words (space-separated); every one is a word of the names
--         'address' key: "<street> <digits of the house number>" prefix of the service building's or the
--                   invoice address' street and house number; house: the house number as said; tokens:
--                   the other words, which must name the same place; names: the customer's name words, if said
--         'name_location'  names drive; tokens must all name one service location or the invoice address
-- At most p_cap + 1 matches are collected per probe: match_count stops there (the service answers
-- "more than p_cap").
-- Answer: one row per match and service location (subscription order), matches ordered by last
-- name, first name, id, at most p_limit matches; a match without a subscription has one row with
-- NULL location columns.
DROP FUNCTION agent_customer_search(uuid, text[], text[], text[], text[], text[], text[], integer);

CREATE FUNCTION agent_customer_search(
  p_provider uuid, p_kinds text[], p_keys text[], p_houses text[], p_names text[], p_tokens text[], p_limit integer, p_cap integer)
RETURNS TABLE (
  id uuid, first_name text, last_name text, email text, phone text, customer_number text, match_count bigint,
  subscription_status text, street text, house_number text, postal_code text, city text, unit_label text
)
LANGUAGE plpgsql STABLE PARALLEL SAFE
-- Generic plans carry default row estimates, so their costs are far above jit_above_cost: JIT would
-- compile every statement (0.7 s, measured) to run it in 0.1 ms.
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
  nw text[];
  toks text[];
  t1 text;
  t2 text;
  t3 text;
  t4 text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_kinds, 1), 0) LOOP
    k := p_kinds[i];
    lo := CASE WHEN k IN ('phone', 'number') THEN p_keys[i] ELSE lower(p_keys[i]) END;
    hi := lo || chr(1114111);  -- above every string that starts with lo (byte order)
    hn := replace(lower(p_houses[i]), ' ', '');
    nw := string_to_array(lower(p_names[i]), ' ');
    toks := coalesce(string_to_array(lower(p_tokens[i]), ' '), '{}');
    CONTINUE WHEN cardinality(toks) > 4;
    t1 := toks[1];
    t2 := toks[2];
    t3 := toks[3];
    t4 := toks[4];

    IF k = 'phone' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND s.phone_e164 COLLATE "C" = lo
        UNION
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND s.invoice_phone_e164 = lo AND s.invoice_phone_e164 IS NOT NULL
        LIMIT p_cap + 1);
    ELSIF k = 'email' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND lower(s.email) = lo
        UNION
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND lower(s.invoice_email) = lo AND s.invoice_email IS NOT NULL
        LIMIT p_cap + 1);
    ELSIF k = 'number' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE s.provider_id = p_provider AND s.customer_number = lo);
    ELSIF k = 'name' THEN
      hits := hits || ARRAY(
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit FROM subscribers s
        WHERE agent_search_name_keys(s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nw
          AND s.provider_id = p_provider
        LIMIT p_cap + 1);
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
          -- the invoice address (filtered on the index's leaf pages); its other words name its
          -- postal code or city, or the unit of one of the customer's service locations
          SELECT v.id FROM (
            SELECT s.id, s.invoice_postal_code, s.invoice_city FROM subscribers s
            WHERE s.provider_id = p_provider AND s.invoice_street IS NOT NULL AND s.invoice_house_number IS NOT NULL
              AND lower(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" >= lo
              AND lower(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" < hi
              AND agent_search_number_matches(s.invoice_house_number, hn)
            OFFSET 0) v
          WHERE (agent_search_word_names_place(t1, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, NULL)
              AND agent_search_word_names_place(t2, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, NULL)
              AND agent_search_word_names_place(t3, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, NULL)
              AND agent_search_word_names_place(t4, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, NULL))
            OR EXISTS (
              SELECT 1 FROM subscriptions sl
              CROSS JOIN LATERAL (SELECT coalesce(sl.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = sl.location_id)) AS unit_id) w
              JOIN units u ON u.id = w.unit_id
              WHERE sl.subscriber_id = v.id
                AND agent_search_word_names_place(t1, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, u.label)
                AND agent_search_word_names_place(t2, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, u.label)
                AND agent_search_word_names_place(t3, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, u.label)
                AND agent_search_word_names_place(t4, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL, u.label)
              OFFSET 0)
        )
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit
        FROM (SELECT DISTINCT subscriber_id FROM sub) d
        CROSS JOIN LATERAL (SELECT s.* FROM subscribers s WHERE s.id = d.subscriber_id AND s.provider_id = p_provider OFFSET 0) s
        WHERE nw IS NULL
          OR agent_search_name_words(s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nw
        LIMIT p_cap + 1);
    ELSIF k = 'name_location' THEN
      hits := hits || ARRAY(
        WITH n AS MATERIALIZED (
          SELECT s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number FROM subscribers s
          WHERE agent_search_name_keys(s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nw
            AND s.provider_id = p_provider
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
              AND agent_search_word_names_place(t1, b.house_number, b.postal_code, b.city, b.street, b.name, u.label)
              AND agent_search_word_names_place(t2, b.house_number, b.postal_code, b.city, b.street, b.name, u.label)
              AND agent_search_word_names_place(t3, b.house_number, b.postal_code, b.city, b.street, b.name, u.label)
              AND agent_search_word_names_place(t4, b.house_number, b.postal_code, b.city, b.street, b.name, u.label)
            OFFSET 0)
          OR EXISTS (
            SELECT 1 FROM subscribers x
            WHERE x.id = n.id
              AND agent_search_word_names_place(t1, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL, NULL)
              AND agent_search_word_names_place(t2, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL, NULL)
              AND agent_search_word_names_place(t3, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL, NULL)
              AND agent_search_word_names_place(t4, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL, NULL)
            OFFSET 0)
        LIMIT p_cap + 1);
    END IF;
  END LOOP;

  RETURN QUERY
  WITH h AS (SELECT DISTINCT x.id, x.first_name, x.last_name, x.email, x.phone, x.customer_number FROM unnest(hits) x),
  page AS (
    SELECT h.*, count(*) OVER () AS total FROM h
    ORDER BY lower(h.last_name), lower(h.first_name), h.id
    LIMIT p_limit
  )
  SELECT page.id, page.first_name, page.last_name, page.email, page.phone, page.customer_number, least(page.total, p_cap + 1),
    loc.status, b.street, b.house_number, b.postal_code, b.city, u.label
  FROM page
  LEFT JOIN LATERAL (
    SELECT sl.status, sl.created_at, sl.id,
      coalesce(sl.building_id, (SELECT l.building_id FROM locations l WHERE l.id = sl.location_id)) AS building_id,
      coalesce(sl.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = sl.location_id)) AS unit_id
    FROM subscriptions sl WHERE sl.subscriber_id = page.id
    OFFSET 0) loc ON true
  LEFT JOIN buildings b ON b.id = loc.building_id
  LEFT JOIN units u ON u.id = loc.unit_id
  ORDER BY lower(page.last_name), lower(page.first_name), page.id, loc.created_at, loc.id;
END
$$;
