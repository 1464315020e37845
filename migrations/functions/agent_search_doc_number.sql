-- A query word (lower case, no spaces) as a house number or unit label names one (agent_search_number_matches), as
-- tsquery text over the search document's words of that kind (`p_kind`: 'h:' a service place's, as
-- agent_search_place_lexemes writes them): the word itself, and where it is a bare number, the words of
-- search_doc_words that extend it by one letter a-z ("12": 'h:12', 'h:12a'; not 'h:120', which its prefix would
-- also ask the index for). At most 27 words, each whole, so the documents' index never gathers a prefix for it.
CREATE OR REPLACE FUNCTION agent_search_doc_number(p_kind text, p_word text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE STRICT
    AS $$
  SELECT '(' || string_agg(public.agent_search_doc_lexeme(w.x, false), ' | ' ORDER BY w.x) || ')'
  FROM (SELECT p_kind || p_word AS x
        UNION
        SELECT word FROM public.search_doc_words
        WHERE p_word ~ '^[0-9]+$'
          AND word >= (p_kind || p_word || 'a') COLLATE "C" AND word < (p_kind || p_word || '{') COLLATE "C"
          AND length(word) = length(p_kind || p_word) + 1) w
$$;
