-- A search-document word (agent_search_doc) as tsquery text: quoted, so that any text is one lexeme, and with
-- `p_prefix` marked to match every lexeme it starts. The word passes build their queries from these.
CREATE OR REPLACE FUNCTION agent_search_doc_lexeme(p_lexeme text, p_prefix boolean) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT '''' || replace(replace(p_lexeme, '\', '\\'), '''', '''''') || '''' || CASE WHEN p_prefix THEN ':*' ELSE '' END
$$;
