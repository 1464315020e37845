-- House-number-first addresses (CA, US: "12 King Street West, Toronto, ON M5V 2T6") also match by
-- prefix when the street is typed first ("King Street West 12"): the leading house-number token of
-- the stored search_key (searchKey() in the application) moves behind the street. When the key does
-- not start with exactly "<house number> <street>", NULL: that row is left to the trigram fallback.
-- Derived in SQL, so every writer of coverage_addresses is covered without a column of its own.
-- Used by the expression index coverage_street_first_idx: the migrator rebuilds it when this changes.
CREATE OR REPLACE FUNCTION coverage_street_first_key(search_key text, house_number_norm text, street text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
  SELECT CASE
    WHEN starts_with(search_key, lower(house_number_norm) || ' ' || btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g')))
    THEN btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g')) || ' ' || lower(house_number_norm)
      || substr(search_key, length(lower(house_number_norm)) + 2 + length(btrim(regexp_replace(lower(street), '[,;:.()"''[:space:]]+', ' ', 'g'))))
  END
$$;
