-- A query word (lower case, no spaces) as a house number or unit label names one (agent_search_number_matches), as
-- tsquery text over the search document's words of that kind (`p_kind`: 'h:' a service place's, as
-- agent_search_place_lexemes writes them): the word itself, and where it is a bare number, the provider's words of
-- search_doc_words that extend it by one letter a-z ("12": 'h:12', 'h:12a'; not 'h:120', which its prefix would
-- also ask the index for). At most 27 words, each whole, so the documents' index never gathers a prefix for it.
-- The shared rows of the release before count as well, as in agent_search_doc_prefix. PL/pgSQL for its plan's sake,
-- as agent_search_doc_prefix.
CREATE OR REPLACE FUNCTION agent_search_doc_number(p_provider uuid, p_kind text, p_word text) RETURNS text
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    AS $_$
DECLARE
  words text[] := ARRAY[p_kind || p_word];
BEGIN
  IF p_word ~ '^[0-9]+$' THEN
    words := words || ARRAY(
      SELECT DISTINCT word FROM public.search_doc_words
      WHERE (provider_id = p_provider OR provider_id IS NULL)
        AND word >= (p_kind || p_word || 'a') COLLATE "C" AND word < (p_kind || p_word || '{') COLLATE "C"
        AND length(word) = length(p_kind || p_word) + 1
      ORDER BY word);
  END IF;
  RETURN '(' || array_to_string(ARRAY(SELECT public.agent_search_doc_lexeme(w, false) FROM unnest(words) w), ' | ') || ')';
END
$_$;
