-- One place word (lower case; NULL: no word) names the invoice address whole: its house number or a
-- service location's unit label (as agent_search_number_matches), its postal code (whole, spaces
-- ignored, or one of its words: "M5V" of "M5V 2T6"), or a whole word of its city or street.
CREATE OR REPLACE FUNCTION agent_search_word_names_invoice(p_token text, p_house text, p_postal text, p_city text, p_street text, p_unit text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT p_token IS NULL
    OR agent_search_number_matches(p_house, p_token) OR agent_search_number_matches(p_unit, p_token)
    OR (p_postal IS NOT NULL AND replace(lower(p_postal), ' ', '') = replace(p_token, ' ', ''))
    OR agent_search_word_whole(p_postal, p_token)
    OR agent_search_word_whole(p_city, p_token) OR agent_search_word_whole(p_street, p_token)
$$;
