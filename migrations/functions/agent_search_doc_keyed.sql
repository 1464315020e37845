-- A search document (agent_search_doc) with its provider's key (agent_search_provider_key) before each word: what
-- search_documents_keyed_idx holds. A common word ("berlin", "n:müller") is then one index entry per provider, and
-- a search reads its own provider's, not every provider's (bench/README.md, "The provider in the index's words").
-- The words are cut to 256 characters in the document, so the key never takes one past a lexeme's length.
-- Used by the expression index search_documents_keyed_idx: a change is a new function and index
-- (migrations/README.md).
CREATE OR REPLACE FUNCTION agent_search_doc_keyed(p_provider uuid, p_doc tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT array_to_tsvector(ARRAY(SELECT public.agent_search_provider_key(p_provider) || x FROM unnest(tsvector_to_array(p_doc)) x))
$$;
