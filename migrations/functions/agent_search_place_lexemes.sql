-- The search document's words for one service place, its building and unit (agent_search_doc):
-- - 'f:' and each field lower-cased, as the word passes match it by prefix (`lower(field) LIKE 'word%'`);
-- - 'w:' and each word of a street, building name, city or postal code, folded (agent_search_word_prefix and
--   agent_search_word_whole split at spaces, and at ',', '/' and '.');
-- - 'h:' and a house number, unit label or postal code without spaces (agent_search_number_matches, a postal code
--   given whole).
-- Cut to 256 characters: a query holds at most 200, so a prefix of it still finds the cut value.
CREATE OR REPLACE FUNCTION agent_search_place_lexemes(p_street text, p_house text, p_postal text, p_city text, p_name text, p_unit text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  out text[] := '{}';
  v text;
  f text;
  w text;
BEGIN
  FOREACH v IN ARRAY ARRAY[p_street, p_house, p_postal, p_city, p_name, p_unit] LOOP
    CONTINUE WHEN v IS NULL OR v = '';
    out := out || ('f:' || left(lower(v), 256));
  END LOOP;
  FOREACH v IN ARRAY ARRAY[p_house, p_unit, p_postal] LOOP
    CONTINUE WHEN v IS NULL OR replace(v, ' ', '') = '';
    out := out || ('h:' || left(replace(lower(v), ' ', ''), 256));
  END LOOP;
  FOREACH v IN ARRAY ARRAY[p_street, p_name, p_city, p_postal] LOOP
    CONTINUE WHEN v IS NULL;
    f := public.agent_search_fold_street(v);
    FOREACH w IN ARRAY string_to_array(translate(f, ',/', '  '), ' ') || string_to_array(translate(f, ',/.', '   '), ' ') LOOP
      CONTINUE WHEN w = '';
      out := out || ('w:' || left(w, 256));
    END LOOP;
  END LOOP;
  RETURN out;
END
$$;
