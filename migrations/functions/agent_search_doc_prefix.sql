-- A search-document word's prefix as tsquery text for the documents' index (agent_search_doc_lexeme's quoting): the
-- words of search_doc_words it starts, each whole, where there are 1 to 32 of them; the word itself where there are
-- none (no document holds a word it starts, so neither matches); else the prefix itself ('w:1':*).
-- A GIN scan gathers every entry a prefix starts into one bitmap before it ANDs it with the query's other words, and
-- does not stop for statement_timeout meanwhile ('w:berlin':*: every customer in Berlin, of every provider). Whole
-- words it reads as the other words' rarest lead it, skipping what they do not need: "Hans Hamburg" reads the
-- customers called Hans, not those in Hamburg. Past 32 words, each document the scan reads would be checked against
-- every one of them.
CREATE OR REPLACE FUNCTION agent_search_doc_prefix(p_word text) RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE STRICT
    AS $$
  SELECT CASE WHEN count(*) = 0 THEN public.agent_search_doc_lexeme(p_word, false)
              WHEN count(*) <= 32 THEN '(' || string_agg(public.agent_search_doc_lexeme(w.word, false), ' | ') || ')'
              ELSE public.agent_search_doc_lexeme(p_word, true) END
  FROM (SELECT DISTINCT word FROM public.search_doc_words
        WHERE word >= p_word COLLATE "C" AND word < (p_word || chr(1114111)) COLLATE "C"
        ORDER BY word LIMIT 33) w
$$;
