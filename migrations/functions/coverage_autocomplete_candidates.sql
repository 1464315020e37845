-- Serviceability autocomplete candidates: the first p_fetch entries of the prefix range and of the
-- street-first range (coverage_street_first_key), in index order, with their buildings, as one JSON
-- value. No DISTINCT over the range (that would read all of it before any LIMIT): the caller keeps
-- one row per display and asks again with a larger p_fetch when a page may have been cut inside
-- its last key (serviceability.service.ts). p_upper is the smallest string above every string
-- starting with p_key; starts_with() keeps the answer exact when the range is bounded by a shorter
-- prefix.
CREATE OR REPLACE FUNCTION coverage_autocomplete_candidates(p_provider uuid, p_key text, p_upper text, p_fetch integer) RETURNS text
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET plan_cache_mode TO 'force_generic_plan'
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
