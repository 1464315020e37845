-- A search-document word's prefix as tsquery text for the documents' index (agent_search_doc_lexeme's quoting): the
-- words of the provider's documents it starts (search_doc_words), each whole, where there are 1 to 32 of them; the
-- word itself where there are none (no document of the provider holds a word it starts, so neither matches); else the
-- prefix itself ('w:1':*). The provider's own words: another provider's addresses never turn a prefix back into one
-- the index gathers in full. Also the shared rows (provider_id NULL) of the release before, until the next release
-- drops them (migrations/README.md): while the per-provider backfill runs, they hold the words it has not reached.
-- A GIN scan gathers every entry a prefix starts into one bitmap before it ANDs it with the query's other words, and
-- does not stop for statement_timeout meanwhile ('w:berlin':*: every customer of the provider in Berlin). Whole
-- words it reads as the other words' rarest lead it, skipping what they do not need: "Hans Hamburg" reads the
-- customers called Hans, not those in Hamburg. Past 32 words, each document the scan reads would be checked against
-- every one of them.
-- PL/pgSQL, which keeps its statement's plan for the session: as a SQL function its query was planned again in every
-- search (bench/README.md).
CREATE OR REPLACE FUNCTION agent_search_doc_prefix(p_provider uuid, p_word text) RETURNS text
    LANGUAGE plpgsql STABLE PARALLEL SAFE STRICT
    AS $$
DECLARE
  words text[];
BEGIN
  words := ARRAY(SELECT DISTINCT word FROM public.search_doc_words
                 WHERE (provider_id = p_provider OR provider_id IS NULL)
                   AND word >= p_word COLLATE "C" AND word < (p_word || chr(1114111)) COLLATE "C"
                 ORDER BY word LIMIT 33);
  IF cardinality(words) = 0 THEN
    RETURN public.agent_search_doc_lexeme(p_word, false);
  ELSIF cardinality(words) > 32 THEN
    RETURN public.agent_search_doc_lexeme(p_word, true);
  END IF;
  RETURN '(' || array_to_string(ARRAY(SELECT public.agent_search_doc_lexeme(w, false) FROM unnest(words) w), ' | ') || ')';
END
$$;
