-- Some word of the value (words split at spaces, hyphens, commas and slashes) starts with the token;
-- both folded by agent_search_fold_street (umlauts, accents, "Straße"/"strasse"/"str." as "str").
CREATE OR REPLACE FUNCTION agent_search_word_prefix(p_value text, p_token text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT p_value IS NOT NULL AND position(' ' || public.agent_search_fold_street(p_token) IN ' ' || translate(public.agent_search_fold_street(p_value), ',/', '  ')) > 0
$$;
