-- Serviceability autocomplete at a million addresses: both prefix ranges answered from the index
-- alone, and the statement planned once per connection.
--
-- 1. Covering indexes. A prefix range of 17 rows used to fetch 17 heap pages scattered over the
--    table (rows are stored in load order, not key order); with every column of a suggestion in
--    the index, an index-only scan reads the two or three leaf pages that hold the range.
--    coverage_prefix_idx keeps its name and key; coverage_street_first_idx (migration 1200) keeps
--    its name, key and predicate, and also carries the function's inputs so that the key itself is
--    read from the index rather than recomputed per row.
DROP INDEX coverage_prefix_idx;
CREATE INDEX coverage_prefix_idx ON coverage_addresses (provider_id, search_key COLLATE "C")
  INCLUDE (display, orderable, building_id, id, street, house_number, postal_code, city, province, country);

DROP INDEX coverage_street_first_idx;
CREATE INDEX coverage_street_first_idx ON coverage_addresses
  (provider_id, coverage_street_first_key(search_key, house_number_norm, street) COLLATE "C")
  INCLUDE (display, orderable, building_id, id, street, house_number, postal_code, city, province, country, search_key, house_number_norm)
  WHERE country IN ('CA', 'US');

-- 2. The candidates statement as a PL/pgSQL function: prepared once per connection and run with a
--    generic plan (two index-only range scans under their LIMITs, then the buildings of at most
--    2 × p_fetch rows) instead of being parsed and planned on every keystroke (planning this UNION
--    cost about 0.3 ms of server CPU, ten times its execution), and answered as one JSON value
--    (one row of one column to read instead of a page of rows).
--
--    Each range returns its first p_fetch entries in plain index order: no DISTINCT ON (display)
--    over the range, which reads and sorts all of it (15,000 rows for "hau" at 1M addresses) before
--    any LIMIT. The caller picks one row per display (rows of one display share one key, so they are
--    adjacent) and asks again with a larger p_fetch when a page that may have been cut inside its
--    last key left it too few (serviceability.service.ts). p_upper is the smallest string above
--    every string starting with p_key; starts_with() keeps the answer exact when the caller could
--    only bound the range by a shorter prefix.
CREATE FUNCTION coverage_autocomplete_candidates(p_provider uuid, p_key text, p_upper text, p_fetch integer)
RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  v_rows text;
BEGIN
  SELECT json_agg(json_build_object(
           'src', d.src, 'k', d.k, 'id', d.id, 'display', d.display, 'building_id', d.building_id,
           'street', d.street, 'house_number', d.house_number, 'postal_code', d.postal_code, 'city', d.city,
           'province', d.province, 'country', d.country, 'orderable', d.orderable, 'building_in_coverage', b.in_coverage)
           ORDER BY d.src, d.k COLLATE "C")::text
    INTO v_rows
  FROM (
    (SELECT c.id, c.building_id, c.street, c.house_number, c.postal_code, c.city, c.province, c.country,
       c.display, c.orderable, 0 AS src, c.search_key AS k
     FROM coverage_addresses c
     WHERE c.provider_id = p_provider
       AND c.search_key COLLATE "C" >= p_key AND c.search_key COLLATE "C" < p_upper AND starts_with(c.search_key, p_key)
     ORDER BY c.search_key COLLATE "C"
     LIMIT p_fetch)
    UNION ALL
    (SELECT c.id, c.building_id, c.street, c.house_number, c.postal_code, c.city, c.province, c.country,
       c.display, c.orderable, 1 AS src, coverage_street_first_key(c.search_key, c.house_number_norm, c.street) AS k
     FROM coverage_addresses c
     WHERE c.provider_id = p_provider AND c.country IN ('CA', 'US')
       AND coverage_street_first_key(c.search_key, c.house_number_norm, c.street) COLLATE "C" >= p_key
       AND coverage_street_first_key(c.search_key, c.house_number_norm, c.street) COLLATE "C" < p_upper
       AND starts_with(coverage_street_first_key(c.search_key, c.house_number_norm, c.street), p_key)
     ORDER BY coverage_street_first_key(c.search_key, c.house_number_norm, c.street) COLLATE "C"
     LIMIT p_fetch)
  ) d
  LEFT JOIN buildings b ON b.id = d.building_id;
  RETURN coalesce(v_rows, '[]');
END
$$;
