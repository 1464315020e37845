-- What the name index is asked for a customer who holds every one of these name words: the words
-- as they are when fewer than two are different; else the pair of the first two in byte order
-- (a key of agent_search_name_keys) and the rest. "anna schmidt" is one key whose customers are
-- those called both, where the words alone are thousands of customers each.
CREATE OR REPLACE FUNCTION agent_search_name_query(p_words text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT CASE WHEN cardinality(w) >= 2 THEN ARRAY[w[1] || ' ' || w[2]] || w[3:] ELSE p_words END
  FROM (SELECT ARRAY(SELECT DISTINCT x COLLATE "C" FROM unnest(p_words) x ORDER BY 1) AS w) d
$$;
