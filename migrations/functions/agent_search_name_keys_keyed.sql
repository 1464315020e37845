-- The name index's keys (agent_search_name_keys) each led by the customer's provider's key
-- (agent_search_provider_key): what subscribers_search_name_keys_keyed_idx holds, so that a common name ("Zoë",
-- thousands of customers of every provider) is read as its own provider's entries only. The search asks it through
-- agent_search_keyed, with the same provider.
-- Used by the expression index subscribers_search_name_keys_keyed_idx: a change is a new function and index
-- (migrations/README.md).
CREATE OR REPLACE FUNCTION agent_search_name_keys_keyed(p_provider uuid, p_first text, p_last text, p_inv_first text, p_inv_last text)
    RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT public.agent_search_keyed(p_provider, public.agent_search_name_keys(p_first, p_last, p_inv_first, p_inv_last))
$$;
