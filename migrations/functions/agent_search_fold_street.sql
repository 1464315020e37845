-- A street (with its house number) folded as agent_search_fold, hyphens as spaces, and the forms of
-- "Straße" (straße, strasse, str.) as "str": "Karl-Marx-Straße 5", "Karl Marx Str. 5" and
-- "karl marx strasse 5" are one address. foldStreet in search.fold.ts folds a query the same way.
-- Used by the address indexes buildings_search_address_idx and
-- subscribers_search_invoice_address_idx (migration 20261206000000): the migrator rebuilds them
-- when this file or agent_search_fold.sql changes.
CREATE OR REPLACE FUNCTION agent_search_fold_street(p_value text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT replace(replace(replace(public.agent_search_fold(p_value), '-', ' '), 'strasse', 'str'), 'str.', 'str')
$$;
