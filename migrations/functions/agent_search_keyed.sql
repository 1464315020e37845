-- Keys of a keyed search index (agent_search_name_keys_keyed), or the keys a query asks of it, each led by the
-- provider's key (agent_search_provider_key). NULL keys stay NULL, so a query that asks nothing
-- (agent_search_name_query's NULL) still meets no one.
CREATE OR REPLACE FUNCTION agent_search_keyed(p_provider uuid, p_keys text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT CASE WHEN p_keys IS NOT NULL THEN ARRAY(SELECT public.agent_search_provider_key(p_provider) || k FROM unnest(p_keys) WITH ORDINALITY u(k, i) ORDER BY i) END
$$;
