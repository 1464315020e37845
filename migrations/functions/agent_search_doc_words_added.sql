-- The trigger function of 20261209000000_search_doc_words.sql: the words a search document gains, but its names
-- ('n:', never asked for by prefix), go into search_doc_words. In word order, so that two transactions adding the
-- same new words wait for each other in the same order.
CREATE OR REPLACE FUNCTION agent_search_doc_words_added() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO public.search_doc_words (word)
  SELECT w FROM unnest(tsvector_to_array(NEW.doc)) w
  WHERE NOT starts_with(w, 'n:') AND (TG_OP = 'INSERT' OR NOT w = ANY (tsvector_to_array(OLD.doc)))
  ORDER BY w
  ON CONFLICT (word) DO NOTHING;
  RETURN NULL;
END
$$;
