-- The /agent customer search (search.query.ts builds the probes, search.repository.ts calls it).
-- Phone, email and customer number match whole; name words whole, with one typo in 5+ letters
-- (agent_search_name_keys, asked of the keyed index: agent_search_name_keys_keyed); service-location words by
-- prefix; invoice-address words whole
-- (decisions.md, Safety: search). Names and streets are folded (agent_search_fold, _fold_street:
-- decisions.md "Spellings the search folds"); the address probe's key is folded here. Answers one row per match and service location, page order.
-- Where the rows come from an index that does not lead with the provider (a building's or unit's subscriptions; the
-- name index's keys hold a key two providers may share), the provider is checked as `(... = p_provider) IS TRUE`,
-- which no index serves: in this function's
-- generic plan a provider is one of n_distinct, and with a few hundred providers the planner read the whole provider's
-- entries of a provider-leading index into a bitmap to AND with the name's (bench/README.md, "Ten times the data").
-- work_mem 16MB keeps the bitmap of a common name exact at 10M customers: at the default 4MB it went lossy, and
-- every row of a lossy page is checked again through agent_search_name_keys ("Zoë": 2.1 s, at 16MB 45 ms).
CREATE OR REPLACE FUNCTION agent_customer_search(p_provider uuid, p_kinds text[], p_keys text[], p_houses text[], p_names text[], p_tokens text[], p_limit integer, p_cap integer) RETURNS TABLE(id uuid, first_name text, last_name text, email text, phone text, customer_number text, match_count bigint, subscription_status text, street text, house_number text, postal_code text, city text, unit_label text)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET plan_cache_mode TO 'force_generic_plan'
    SET jit TO 'off'
    SET work_mem TO '16MB'
    AS $$
#variable_conflict use_column
DECLARE
  hits agent_search_hit[] := '{}';
  i integer;
  k text;
  lo text;
  hn text;
  nw text[];
  nk text[];
  nm text[];
  toks text[];
  t1 text;
  t2 text;
  t3 text;
  t4 text;
  nq text;
  nn text;
  fw text;
  iq text;
  t text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_kinds, 1), 0) LOOP
    k := p_kinds[i];
    lo := CASE WHEN k IN ('phone', 'number') THEN p_keys[i]
               WHEN k = 'address' THEN agent_search_fold_street(p_keys[i])
               ELSE lower(p_keys[i]) END;
    hn := replace(lower(p_houses[i]), ' ', '');
    nw := string_to_array(lower(p_names[i]), ' ');
    -- the name index's key queries, for the probes that read it (not on every phone or email probe)
    nk := CASE WHEN k = 'name' THEN public.agent_search_keyed(p_provider, public.agent_search_name_query(nw)) END;
    nm := CASE WHEN k = 'name' THEN public.agent_search_keyed(p_provider, public.agent_search_name_query_wide(nw)) END;
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
        WHERE (agent_search_name_keys_keyed(s.provider_id, s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nk
               OR agent_search_name_keys_keyed(s.provider_id, s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nm)
          AND (s.provider_id = p_provider) IS TRUE
        LIMIT p_cap + 1);
    ELSIF k = 'address' THEN
      -- With place words, each invoice address at the street and house number is first tested on its customer's search
      -- document (iq): for each place word, a unit it names, a postal code or a word it names whole ('h:', 'ip:', 'iw:'),
      -- what the check below needs of a match. A street and house number is every customer invoiced there, and the
      -- check reads each one's subscriptions for the unit; the document is one row in hand. Not the document's index
      -- for them all: the address index reads the provider's street and number as one key (bench/README.md,
      -- "Prefixes asked as whole words").
      iq := NULL;
      IF cardinality(toks) > 0 THEN
        FOREACH t IN ARRAY toks LOOP
          fw := (SELECT x FROM unnest(string_to_array(public.agent_search_fold_street(t), ' ')) x WHERE x <> '' LIMIT 1);
          CONTINUE WHEN fw IS NULL;
          iq := concat_ws(' & ', iq, '(' || public.agent_search_doc_number(p_provider, 'h:', t) || ' | ' || public.agent_search_doc_lexeme('ip:' || t, false)
            || ' | ' || public.agent_search_doc_lexeme('iw:' || fw, false) || ')');
        END LOOP;
      END IF;
      hits := hits || ARRAY(
        WITH b AS MATERIALIZED (
          -- the buildings at that street and house number, and the words their address does not
          -- explain (at most one may remain: the unit). The key is the folded street and house number; lo
          -- ends in the house number's digits, and a house number that names hn never adds a digit to them
          -- ("12", "12a", "12 a", "12-14"): two ranges, the keys that start with lo but not with lo and a
          -- digit (chr(1114111) is above every character), not every key that starts with lo ("Friedrichstraße
          -- 1": every house number from 1 to 199)
          SELECT b.id,
            ARRAY(SELECT t FROM unnest(toks) t
                  WHERE NOT ((length(t) >= 3 AND agent_search_word_prefix(b.postal_code, t)) OR agent_search_word_prefix(b.city, t))) AS rest
          FROM (VALUES (lo, lo || '0'), (lo || ':', lo || chr(1114111))) r(key_from, key_to)
          CROSS JOIN LATERAL (
            SELECT b.* FROM buildings b
            WHERE b.provider_id = p_provider
              AND agent_search_fold_street(coalesce(b.street, '') || ' ' || coalesce(b.house_number, '')) COLLATE "C" >= r.key_from
              AND agent_search_fold_street(coalesce(b.street, '') || ' ' || coalesce(b.house_number, '')) COLLATE "C" < r.key_to
              AND agent_search_number_matches(b.house_number, hn)
            OFFSET 0) b
        ),
        sub AS (
          SELECT x.subscriber_id FROM b CROSS JOIN LATERAL (
            SELECT s.subscriber_id FROM subscriptions s WHERE s.building_id = b.id AND (s.provider_id = p_provider) IS TRUE
            UNION ALL
            SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id
            WHERE l.building_id = b.id AND (s.provider_id = p_provider) IS TRUE
            OFFSET 0) x
          WHERE cardinality(b.rest) = 0
          UNION ALL
          SELECT x.subscriber_id FROM b
          CROSS JOIN LATERAL (
            SELECT u.id FROM units u WHERE u.building_id = b.id AND agent_search_number_matches(u.label, b.rest[1]) OFFSET 0) u
          CROSS JOIN LATERAL (
            SELECT s.subscriber_id FROM subscriptions s WHERE s.unit_id = u.id AND (s.provider_id = p_provider) IS TRUE
            UNION ALL
            SELECT s.subscriber_id FROM locations l JOIN subscriptions s ON s.location_id = l.id
            WHERE l.unit_id = u.id AND (s.provider_id = p_provider) IS TRUE
            OFFSET 0) x
          WHERE cardinality(b.rest) = 1
          UNION ALL
          -- the invoice address (filtered on the index's leaf pages, then on the search document where there are
          -- place words); its other words name its postal code or city, or the unit of one of the customer's service
          -- locations
          SELECT v.id FROM (VALUES (lo, lo || '0'), (lo || ':', lo || chr(1114111))) r(key_from, key_to)
          CROSS JOIN LATERAL (
            SELECT s.id, s.invoice_postal_code, s.invoice_city FROM subscribers s
            WHERE s.provider_id = p_provider AND s.invoice_street IS NOT NULL AND s.invoice_house_number IS NOT NULL
              AND agent_search_fold_street(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" >= r.key_from
              AND agent_search_fold_street(s.invoice_street || ' ' || s.invoice_house_number) COLLATE "C" < r.key_to
              AND agent_search_number_matches(s.invoice_house_number, hn)
              AND (iq IS NULL OR EXISTS (
                SELECT 1 FROM search_documents d WHERE d.subscriber_id = s.id AND d.doc @@ iq::tsquery OFFSET 0))
            OFFSET 0) v
          WHERE (agent_search_word_names_invoice(t1, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL)
              AND agent_search_word_names_invoice(t2, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL)
              AND agent_search_word_names_invoice(t3, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL)
              AND agent_search_word_names_invoice(t4, NULL, v.invoice_postal_code, v.invoice_city, NULL, NULL))
            OR EXISTS (
              SELECT 1 FROM subscriptions sl
              CROSS JOIN LATERAL (SELECT coalesce(sl.unit_id, (SELECT l.unit_id FROM locations l WHERE l.id = sl.location_id)) AS unit_id) w
              JOIN units u ON u.id = w.unit_id
              WHERE sl.subscriber_id = v.id
                AND agent_search_word_names_invoice(t1, NULL, v.invoice_postal_code, v.invoice_city, NULL, u.label)
                AND agent_search_word_names_invoice(t2, NULL, v.invoice_postal_code, v.invoice_city, NULL, u.label)
                AND agent_search_word_names_invoice(t3, NULL, v.invoice_postal_code, v.invoice_city, NULL, u.label)
                AND agent_search_word_names_invoice(t4, NULL, v.invoice_postal_code, v.invoice_city, NULL, u.label)
              OFFSET 0)
        )
        SELECT ROW(s.id, s.first_name, s.last_name, s.email, s.phone, s.customer_number)::agent_search_hit
        FROM (SELECT DISTINCT subscriber_id FROM sub) d
        CROSS JOIN LATERAL (SELECT s.* FROM subscribers s WHERE s.id = d.subscriber_id AND s.provider_id = p_provider OFFSET 0) s
        WHERE nw IS NULL
          OR agent_search_name_words(s.first_name, s.last_name, s.invoice_first_name, s.invoice_last_name) @> nw
        LIMIT p_cap + 1);
    ELSIF k = 'name_location' THEN
      -- The candidates: customers whose search document (search_documents, agent_search_doc) holds every name word, and for each
      -- place word of two or more characters a house number or unit it names ('h:': the word, or a bare number and one
      -- letter, agent_search_doc_number), a word of a place it starts ('w:': its first folded word, a prefix), or an
      -- invoice house number, postal code or word it names whole ('ih:', 'ihd:', 'ip:', 'iw:'): what
      -- agent_search_word_names_place and _invoice below need of a match, each asked of the index as whole words
      -- where it can be. Not every customer of the name: a common one is thousands. The 'n:' words
      -- are the name words whole (agent_search_name_words), which is what the name keys' query asks, so the names
      -- need no check of their own; the place words are checked below.
      -- (A word of over 256 characters is cut in the document; a query holds at most 200.)
      nn := (SELECT string_agg(public.agent_search_doc_lexeme('n:' || x, false), ' & ') FROM unnest(nw) x WHERE x <> '');
      nq := nn;
      FOREACH t IN ARRAY toks LOOP
        CONTINUE WHEN length(t) < 2;
        fw := (SELECT x FROM unnest(string_to_array(public.agent_search_fold_street(t), ' ')) x WHERE x <> '' LIMIT 1);
        CONTINUE WHEN fw IS NULL;
        nq := nq || ' & (' || public.agent_search_doc_number(p_provider, 'h:', t)
          || ' | ' || public.agent_search_doc_prefix(p_provider, 'w:' || fw)
          || ' | ' || public.agent_search_doc_lexeme('ih:' || t, false)
          || ' | ' || public.agent_search_doc_lexeme('ihd:' || t, false)
          || ' | ' || public.agent_search_doc_lexeme('ip:' || t, false)
          || ' | ' || public.agent_search_doc_lexeme('iw:' || fw, false) || ')';
      END LOOP;
      CONTINUE WHEN nq IS NULL;
      -- A place word's 'w:' prefix that starts more than 32 words stays a prefix (agent_search_doc_prefix), which
      -- the GIN scan gathers in full before it ANDs it with the names. Where one does (':*' in the query; a word
      -- that itself holds ":*" only asks needlessly), first whether any of the provider's documents holds the
      -- names: an address read as a name and a place ("Talstraße 15 7D": no one is called Talstrasse) paid the
      -- gathering in full, 106 ms at 10M. Without a prefix the scan of a name no one has ends at once, and the
      -- question would cost a common name a second read of its entries. A CTE,
      -- because it is planned for all its rows: as a plain EXISTS the generic plan of one provider's 1M customers
      -- read the table from the start to find a first match (0.5 s for a name no one has).
      IF position(':*' IN nq) > 0 THEN
        CONTINUE WHEN NOT EXISTS (
          WITH named AS MATERIALIZED (
            SELECT 1 FROM search_documents d
            WHERE public.agent_search_doc_keyed(d.provider_id, d.doc) @@ public.agent_search_doc_keyed_query(p_provider, nn)
              AND d.provider_id = p_provider)
          SELECT 1 FROM named);
      END IF;
      hits := hits || ARRAY(
        WITH n AS MATERIALIZED (
          SELECT c.id, c.first_name, c.last_name, c.email, c.phone, c.customer_number
          FROM (SELECT d.subscriber_id FROM search_documents d
            WHERE public.agent_search_doc_keyed(d.provider_id, d.doc) @@ public.agent_search_doc_keyed_query(p_provider, nq)
              AND d.provider_id = p_provider OFFSET 0) d
          CROSS JOIN LATERAL (SELECT s.* FROM subscribers s WHERE s.id = d.subscriber_id AND s.provider_id = p_provider OFFSET 0) c
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
              AND agent_search_word_names_invoice(t1, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL)
              AND agent_search_word_names_invoice(t2, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL)
              AND agent_search_word_names_invoice(t3, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL)
              AND agent_search_word_names_invoice(t4, x.invoice_house_number, x.invoice_postal_code, x.invoice_city, x.invoice_street, NULL)
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
