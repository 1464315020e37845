-- The trigger function of 20261210000000_search_doc_words_per_provider.sql: the words a search document gains that
-- its provider's list in search_doc_words lacks, but its names ('n:', never asked for by prefix). A document that moves
-- to another provider brings all its words to that provider's list.
CREATE OR REPLACE FUNCTION agent_search_doc_provider_words_added() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO public.search_doc_words (provider_id, word)
  SELECT NEW.provider_id, w FROM unnest(tsvector_to_array(
    CASE WHEN TG_OP = 'INSERT' OR OLD.provider_id IS DISTINCT FROM NEW.provider_id THEN NEW.doc
         ELSE ts_delete(NEW.doc, tsvector_to_array(OLD.doc)) END)) w
  WHERE NOT starts_with(w, 'n:')
    AND NOT EXISTS (SELECT 1 FROM public.search_doc_words x WHERE x.provider_id = NEW.provider_id AND x.word = w);
  RETURN NULL;
END
$$;
