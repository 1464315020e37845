-- Serviceability autocomplete: house-number-first addresses (CA, US: "12 King Street West, Toronto, ON M5V 2T6")
-- also match by prefix when the user types the street first ("King Street West 12").
--
-- coverage_street_first_key() derives the street-first spelling from the stored search_key (which the
-- application computes with searchKey()): the leading house-number token is moved behind the street
-- ("12a king street west toronto on m5v 2t6" → "king street west 12a toronto on m5v 2t6"). The street's
-- share of the key is the street lower-cased with the punctuation of searchKey() turned into single
-- spaces; when the stored key does not start with exactly "<house number> <street>" (an unusual street
-- the search key spells differently), the function answers NULL and that row is left to the trigram
-- fallback. Derived in SQL, so every writer of coverage_addresses (operator import, demo seed, tests,
-- the benchmark loader) is covered without a new column.
CREATE FUNCTION coverage_street_first_key(search_key text, house_number_norm text, street text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT CASE
    WHEN starts_with(search_key, lower(house_number_norm) || ' ' || btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g')))
    THEN btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g')) || ' ' || lower(house_number_norm)
      || substr(search_key, length(lower(house_number_norm)) + 2 + length(btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g'))))
  END
$$;

-- A btree range per provider in byte order (COLLATE "C"), like coverage_prefix_idx; only the
-- countries whose display puts the house number first (coverageColumns()).
CREATE INDEX coverage_street_first_idx ON coverage_addresses
  (provider_id, coverage_street_first_key(search_key, house_number_norm, street) COLLATE "C")
  WHERE country IN ('CA', 'US');
