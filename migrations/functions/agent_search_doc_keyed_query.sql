-- A query of the search documents' words (tsquery text, as agent_search_doc_lexeme builds it) asked of
-- search_documents_keyed_idx: each of its lexemes led by the provider's key (agent_search_provider_key), prefixes and
-- operators kept. It rewrites the query's canonical text, in which every lexeme is quoted and a quote inside one is
-- doubled, so the pattern meets each lexeme whole and nothing else; the key is hex digits and a slash.
CREATE OR REPLACE FUNCTION agent_search_doc_keyed_query(p_provider uuid, p_query text) RETURNS tsquery
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT regexp_replace(p_query::tsquery::text, '''((?:[^'']|'''')*)''',
    '''' || public.agent_search_provider_key(p_provider) || '\1''', 'g')::tsquery
$$;
