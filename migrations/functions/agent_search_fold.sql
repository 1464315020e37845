-- A word as a speech-to-text agent may spell it, folded to one form (docs/decisions.md "Spellings
-- the search folds"): lower case; accented letters to their base letter (é, à, ç, ø, ł ...), umlauts
-- too (ü to u); ß to ss, æ to ae, œ to oe; then the German transliterations ae, oe, ue to a, o, u,
-- so "Jürgen", "Juergen" and "Jurgen" are one word. search.fold.ts folds a query word the same way
-- (test/agent/search-fold.test.ts holds the two to the same answers). Used by the name index
-- (through agent_search_name_words) and the address indexes (through agent_search_fold_street).
CREATE OR REPLACE FUNCTION agent_search_fold(p_value text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$
  SELECT replace(replace(replace(replace(replace(replace(translate(lower(p_value),
    'àáâãäåāăąÀÁÂÃÄÅĀĂĄçćčĉċÇĆČĈĊďđĎĐèéêëēĕėęěÈÉÊËĒĔĖĘĚğĝġģĞĜĠĢĥħĤĦìíîïĩīĭįıÌÍÎÏĨĪĬĮĵĴķĶĺļľŀłĹĻĽĿŁñńņňŉÑŃŅŇòóôõöøōŏőÒÓÔÕÖØŌŎŐŕŗřŔŖŘśŝşšșŚŜŞŠȘţťŧțŢŤŦȚùúûüũūŭůűųÙÚÛÜŨŪŬŮŰŲŵŴýÿŷÝŸŶźżžŹŻŽ',
    'aaaaaaaaaaaaaaaaaaccccccccccddddeeeeeeeeeeeeeeeeeegggggggghhhhiiiiiiiiiiiiiiiiijjkkllllllllllnnnnnnnnnoooooooooooooooooorrrrrrssssssssssttttttttuuuuuuuuuuuuuuuuuuuuwwyyyyyyzzzzzz'),
    'ß', 'ss'), 'æ', 'ae'), 'œ', 'oe'), 'ae', 'a'), 'oe', 'o'), 'ue', 'u')
$$;
