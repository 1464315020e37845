-- Equal (lower case, without spaces), or a bare number the value extends by one letter a-z
-- ("12" finds "12a", "4" finds "4B"); no pattern is built from the caller's text.
CREATE OR REPLACE FUNCTION agent_search_number_matches(p_value text, p_token text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $_$
  SELECT p_value IS NOT NULL AND (
    replace(lower(p_value), ' ', '') = p_token
    OR (p_token ~ '^[0-9]+$' AND length(replace(lower(p_value), ' ', '')) = length(p_token) + 1
        AND starts_with(replace(lower(p_value), ' ', ''), p_token) AND right(replace(lower(p_value), ' ', ''), 1) BETWEEN 'a' AND 'z'))
$_$;
