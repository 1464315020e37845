-- A query word (lower case) names a name word: equal; or, with p_typo and a query word of 5+
-- letters, one letter differs, is extra or is missing, or two neighbours are swapped. A missing
-- LAST letter is not a typo: the query word would be a prefix of the name word, and a prefix of a
-- name must match nothing.
CREATE OR REPLACE FUNCTION agent_search_name_word_matches(p_word text, p_name_word text, p_typo boolean) RETURNS boolean
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  a integer := length(p_word);
  b integer := length(p_name_word);
  i integer := 1;
BEGIN
  IF p_word = p_name_word THEN RETURN true; END IF;
  IF NOT p_typo OR a < 5 OR abs(a - b) > 1 OR starts_with(p_name_word, p_word) THEN RETURN false; END IF;
  WHILE i <= least(a, b) AND substr(p_word, i, 1) = substr(p_name_word, i, 1) LOOP i := i + 1; END LOOP;
  IF a = b THEN
    RETURN substr(p_word, i + 1) = substr(p_name_word, i + 1)
      OR (substr(p_word, i, 1) = substr(p_name_word, i + 1, 1) AND substr(p_word, i + 1, 1) = substr(p_name_word, i, 1)
          AND substr(p_word, i + 2) = substr(p_name_word, i + 2));
  ELSIF a > b THEN
    RETURN substr(p_word, i + 1) = substr(p_name_word, i);
  ELSE
    RETURN substr(p_word, i) = substr(p_name_word, i + 1);
  END IF;
END
$$;
