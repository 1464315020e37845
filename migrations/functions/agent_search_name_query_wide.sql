-- What the name index is asked for a customer with more than 12 name words (no pairs; see
-- agent_search_name_keys.sql) who holds every one of these words: each word marked with a leading
-- space. Only such customers hold these keys, so the lookup reads their few entries alone.
-- PL/pgSQL for its cached plan, as agent_search_name_query.
CREATE OR REPLACE FUNCTION agent_search_name_query_wide(p_words text[]) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
BEGIN
  IF p_words IS NULL THEN
    RETURN NULL;
  END IF;
  RETURN ARRAY(SELECT ' ' || x FROM unnest(p_words) WITH ORDINALITY u(x, i) ORDER BY i);
END
$$;
