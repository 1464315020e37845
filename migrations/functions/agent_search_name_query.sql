-- What the name index is asked for a customer who holds every one of these name words (besides
-- what agent_search_name_query_wide.sql asks, for a customer with too many words for pairs): the
-- words as they are when fewer than two different ones have up to 64 letters; else the pair of the
-- first two of those in byte order, and every other word.
-- "anna schmidt" is one key whose customers are those called both, where the words alone are
-- thousands of customers each.
-- PL/pgSQL, not SQL: a SQL function with sub-selects is planned again on every call (not inlined),
-- while PL/pgSQL keeps its statements' plans for the session.
CREATE OR REPLACE FUNCTION agent_search_name_query(p_words text[]) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  w text[];
  s text[];
BEGIN
  -- A name word is never NULL, empty or spaced, so no customer holds such a query word; asked as it is,
  -- it could meet a key of another kind (' anna', 'anna schmidt').
  IF EXISTS (SELECT 1 FROM unnest(p_words) x WHERE x IS NULL OR x = '' OR position(' ' IN x) > 0) THEN
    RETURN NULL;
  END IF;
  w := ARRAY(SELECT DISTINCT x COLLATE "C" FROM unnest(p_words) x ORDER BY 1);
  s := ARRAY(SELECT x FROM unnest(w) WITH ORDINALITY u(x, i) WHERE length(x) <= 64 ORDER BY i);
  IF cardinality(s) < 2 THEN
    RETURN p_words;
  END IF;
  RETURN ARRAY[s[1] || ' ' || s[2]] || ARRAY(SELECT x FROM unnest(w) WITH ORDINALITY u(x, i) WHERE x <> s[1] AND x <> s[2] ORDER BY i);
END
$$;
