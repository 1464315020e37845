-- The trigger function of 20261209000000_search_doc_words.sql: the words a search document gains that
-- search_doc_words lacks, but its names ('n:', never asked for by prefix).
CREATE OR REPLACE FUNCTION agent_search_doc_words_added() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO public.search_doc_words (word)
  SELECT w FROM unnest(tsvector_to_array(NEW.doc)) w
  WHERE NOT starts_with(w, 'n:') AND (TG_OP = 'INSERT' OR NOT w = ANY (tsvector_to_array(OLD.doc)))
    AND NOT EXISTS (SELECT 1 FROM public.search_doc_words x WHERE x.word = w);
  RETURN NULL;
END
$$;
