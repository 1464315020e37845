-- A provider's key in the search indexes' words (agent_search_doc_keyed): eight hex digits of its id's hash, so that
-- an index scan reads one provider's entries of a word, not every provider's. Two providers that share a key only
-- read each other's entries as well; every query still keeps its own provider's rows.
CREATE OR REPLACE FUNCTION agent_search_provider_key(p_provider uuid) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT left(md5(p_provider::text), 8) || '/'
$$;
