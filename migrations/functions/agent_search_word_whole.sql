-- Some word of the value (words split at spaces, hyphens, commas, slashes and dots) is the token.
CREATE OR REPLACE FUNCTION agent_search_word_whole(p_value text, p_token text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT p_value IS NOT NULL AND position(' ' || p_token || ' ' IN ' ' || translate(lower(p_value), '-,/.', '    ') || ' ') > 0
$$;
