-- The keys of the name index: each word, and each word of 5+ letters with one letter deleted,
-- marked '~' (so a query word, which never holds '~', meets only whole words). One typo is found by
-- key equality: a substituted or swapped letter shares a deleted form, a missing letter is a
-- deleted form, an extra letter deletes to the word (the service builds those keys of the query
-- word; agent_search_name_word_matches then keeps only true one-typo matches).
-- And each pair of two different words of up to 64 letters, 'a b' with a before b in byte order:
-- a name of two or more words is looked up by one pair plus the rest instead of intersecting the
-- words' customers (the query is built by the function of agent_search_name_query.sql). A name
-- with more than 12 such words gets, instead of its pairs, each word again marked with a leading
-- space (at most 66 pairs a customer: the pairs grow with the square of the words, and four fields
-- of 100 characters hold 200 words); the search asks for those as well (agent_search_name_query_wide),
-- and only such customers hold them. A key holds a space only as a pair or as that mark, and a
-- query word never does, so a pair meets only both words whole.
-- Used by the expression index subscribers_search_name_keys_idx: the migrator rebuilds it when
-- this file (or one it calls) changes.
CREATE OR REPLACE FUNCTION agent_search_name_keys(p_first text, p_last text, p_inv_first text, p_inv_last text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
  WITH w AS (SELECT unnest(public.agent_search_name_words(p_first, p_last, p_inv_first, p_inv_last)) AS w),
    p AS (SELECT w FROM w WHERE length(w) <= 64),
    n AS (SELECT count(*) AS n FROM p)
  SELECT coalesce(array_agg(DISTINCT k), '{}') FROM (
    SELECT w AS k FROM w
    UNION ALL
    SELECT '~' || overlay(w PLACING '' FROM i FOR 1) FROM w, generate_series(1, length(w)) i WHERE length(w) >= 5
    UNION ALL
    SELECT a.w || ' ' || b.w FROM p a, p b, n WHERE n.n <= 12 AND a.w COLLATE "C" < b.w COLLATE "C"
    UNION ALL
    SELECT ' ' || w FROM w, n WHERE n.n > 12) k
$$;
