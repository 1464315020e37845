-- The keys of the name index: each word, and each word of 5+ letters with one letter deleted,
-- marked '~' (so a query word, which never holds '~', meets only whole words). One typo is found by
-- key equality: a substituted or swapped letter shares a deleted form, a missing letter is a
-- deleted form, an extra letter deletes to the word (the service builds those keys of the query
-- word; agent_search_name_word_matches then keeps only true one-typo matches). And each pair of
-- two different words, 'a b' with a before b in byte order: a name of two or more words is looked
-- up by one pair (agent_search_name_query) instead of intersecting two words' customers. A key
-- holds a space only as a pair, and a query word never does, so a pair meets only both words whole.
-- Used by the expression index subscribers_search_name_keys_idx: the migrator rebuilds it when
-- this file (or one it calls) changes.
CREATE OR REPLACE FUNCTION agent_search_name_keys(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  SELECT coalesce(array_agg(DISTINCT k), '{}') FROM (
    SELECT w AS k FROM unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) w
    UNION ALL
    SELECT '~' || overlay(w PLACING '' FROM i FOR 1)
    FROM unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) w, generate_series(1, length(w)) i
    WHERE length(w) >= 5
    UNION ALL
    SELECT a || ' ' || b
    FROM unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) a,
         unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) b
    WHERE a COLLATE "C" < b COLLATE "C") k
$$;
