-- The search document's words for the invoice address (agent_search_doc), which a word must name whole
-- (agent_search_word_names_invoice, decisions.md "Search matching rules") and also start as a field (the word passes'
-- `lower(field) LIKE 'word%'`):
-- - 'i:' and each field lower-cased (the prefix);
-- - 'ih:' the house number without spaces, and 'ihd:' its digits where it is digits and one letter
--   (agent_search_number_matches: "12" names 12a);
-- - 'ip:' the postal code without spaces;
-- - 'iw:' each folded word of the street, city and postal code (agent_search_word_whole).
-- For a query word that folds to one word these say exactly what the rule says, so such a word needs no check of its
-- own (search-words.repository.ts). Cut to 256 characters, as agent_search_place_lexemes.
CREATE OR REPLACE FUNCTION agent_search_invoice_lexemes(p_street text, p_house text, p_postal text, p_city text) RETURNS text[]
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  out text[] := '{}';
  v text;
  w text;
  h text := replace(lower(p_house), ' ', '');
BEGIN
  FOREACH v IN ARRAY ARRAY[p_street, p_house, p_postal, p_city] LOOP
    CONTINUE WHEN v IS NULL OR v = '';
    out := out || ('i:' || left(lower(v), 256));
  END LOOP;
  IF h <> '' THEN
    out := out || ('ih:' || left(h, 256));
    IF h ~ '^[0-9]+.$' AND right(h, 1) BETWEEN 'a' AND 'z' THEN
      out := out || ('ihd:' || left(h, length(h) - 1));
    END IF;
  END IF;
  IF replace(p_postal, ' ', '') <> '' THEN
    out := out || ('ip:' || left(replace(lower(p_postal), ' ', ''), 256));
  END IF;
  FOREACH v IN ARRAY ARRAY[p_street, p_city, p_postal] LOOP
    CONTINUE WHEN v IS NULL;
    FOREACH w IN ARRAY string_to_array(translate(public.agent_search_fold_street(v), ',/.', '   '), ' ') LOOP
      CONTINUE WHEN w = '';
      out := out || ('iw:' || left(w, 256));
    END LOOP;
  END LOOP;
  RETURN out;
END
$$;
