-- The words of the contact's and the invoice contact's first and last names, folded by
-- agent_search_fold (lower case, accents and umlauts to the base letter, ß as ss, ae/oe/ue as
-- a/o/u: "Jürgen", "Juergen" and "Jurgen" are one word; nameWord in search.query.ts folds a query
-- word the same way), split at spaces, hyphens, dots, commas and slashes ("Meyer-Schulz": meyer, schulz).
CREATE OR REPLACE FUNCTION agent_search_name_words(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT coalesce(array_agg(DISTINCT w), '{}')
  FROM regexp_split_to_table(public.agent_search_fold(concat_ws(' ', p_first, p_last, p_inv_first, p_inv_last)), '[\s,./-]+') w
  WHERE w <> ''
$$;
