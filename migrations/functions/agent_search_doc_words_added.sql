-- The trigger function of 20261209000000_search_doc_words.sql: the words a search document gains that
-- search_doc_words lacks, but its names ('n:', never asked for by prefix). No trigger calls it since
-- 20261210000000_search_doc_words_per_provider.sql (agent_search_doc_provider_words_added keeps each provider's
-- words); it stays because that earlier file names it, and a new database runs every file.
CREATE OR REPLACE FUNCTION agent_search_doc_words_added() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO public.search_doc_words (word)
  SELECT w FROM unnest(tsvector_to_array(
    CASE WHEN TG_OP = 'INSERT' THEN NEW.doc ELSE ts_delete(NEW.doc, tsvector_to_array(OLD.doc)) END)) w
  WHERE NOT starts_with(w, 'n:') AND NOT EXISTS (SELECT 1 FROM public.search_doc_words x WHERE x.word = w);
  RETURN NULL;
END
$$;
