-- One place word (lower case; NULL: no word) names the service location: its house number, unit
-- label, postal code (3+ characters, a prefix of one of its words), city, street or building name
-- (a prefix of one of their words).
CREATE OR REPLACE FUNCTION agent_search_word_names_place(p_token text, p_house text, p_postal text, p_city text, p_street text, p_name text, p_unit text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT p_token IS NULL
    OR agent_search_number_matches(p_house, p_token) OR agent_search_number_matches(p_unit, p_token)
    OR (length(p_token) >= 3 AND agent_search_word_prefix(p_postal, p_token))
    OR agent_search_word_prefix(p_city, p_token) OR agent_search_word_prefix(p_street, p_token) OR agent_search_word_prefix(p_name, p_token)
$$;
