-- Brings search_documents of these customers up to date (the triggers of agent_search_doc_changed call it); a
-- customer that no longer exists has no row (the foreign key removes it).
CREATE OR REPLACE FUNCTION agent_search_doc_refresh(p_ids uuid[]) RETURNS void
    LANGUAGE sql
    AS $$
  INSERT INTO search_documents (subscriber_id, provider_id, doc)
  SELECT s.id, s.provider_id, public.agent_search_doc(s.id) FROM subscribers s
  WHERE s.id IN (SELECT DISTINCT x FROM unnest(p_ids) x WHERE x IS NOT NULL)
  ON CONFLICT (subscriber_id) DO UPDATE SET doc = EXCLUDED.doc, provider_id = EXCLUDED.provider_id
  WHERE search_documents.doc IS DISTINCT FROM EXCLUDED.doc OR search_documents.provider_id IS DISTINCT FROM EXCLUDED.provider_id
$$;
