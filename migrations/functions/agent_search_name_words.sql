-- The words of the contact's and the invoice contact's first and last names, lower case with ß as ss
-- (a keyboard without ß types "Weiss" for "Weiß"; nameWord in search.query.ts folds a query word the
-- same way), split at spaces, hyphens, dots, commas and slashes ("Meyer-Schulz": meyer, schulz).
CREATE OR REPLACE FUNCTION agent_search_name_words(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT coalesce(array_agg(DISTINCT w), '{}')
  FROM regexp_split_to_table(replace(lower(concat_ws(' ', p_first, p_last, p_inv_first, p_inv_last)), 'ß', 'ss'), '[\s,./-]+') w
  WHERE w <> ''
$$;
