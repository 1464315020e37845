// The spellings the customer search folds (docs/decisions.md "Spellings the search folds"): the
// same steps as migrations/functions/agent_search_fold.sql and agent_search_fold_street.sql, which
// fold the indexed names and addresses; a query is folded here the same way before it is looked up
// (test/agent/search-fold.test.ts holds both to the same answers).

const ACCENTED =
  'àáâãäåāăąÀÁÂÃÄÅĀĂĄçćčĉċÇĆČĈĊďđĎĐèéêëēĕėęěÈÉÊËĒĔĖĘĚğĝġģĞĜĠĢĥħĤĦìíîïĩīĭįıÌÍÎÏĨĪĬĮĵĴķĶĺļľŀłĹĻĽĿŁñńņňŉÑŃŅŇòóôõöøōŏőÒÓÔÕÖØŌŎŐŕŗřŔŖŘśŝşšșŚŜŞŠȘţťŧțŢŤŦȚùúûüũūŭůűųÙÚÛÜŨŪŬŮŰŲŵŴýÿŷÝŸŶźżžŹŻŽ';
const BASE =
  'aaaaaaaaaaaaaaaaaaccccccccccddddeeeeeeeeeeeeeeeeeegggggggghhhhiiiiiiiiiiiiiiiiijjkkllllllllllnnnnnnnnnoooooooooooooooooorrrrrrssssssssssttttttttuuuuuuuuuuuuuuuuuuuuwwyyyyyyzzzzzz';
const BASE_OF = new Map([...ACCENTED].map((c, i) => [c, BASE[i]!]));

/**
 * Lower case; accented letters and umlauts to their base letter; ß to ss, æ to ae, œ to oe; then
 * ae, oe, ue to a, o, u ("Jürgen", "Juergen", "Jurgen": "jurgen").
 */
export function foldWord(value: string): string {
  const base = [...value.toLowerCase()].map((c) => BASE_OF.get(c) ?? c).join('');
  return base
    .replaceAll('ß', 'ss')
    .replaceAll('æ', 'ae')
    .replaceAll('œ', 'oe')
    .replaceAll('ae', 'a')
    .replaceAll('oe', 'o')
    .replaceAll('ue', 'u');
}

/**
 * A street (with its house number) folded as foldWord, hyphens as spaces, and the forms of
 * "Straße" (straße, strasse, str.) as "str": "Karl-Marx-Straße 5", "Karl Marx Str. 5" and
 * "karl marx strasse 5" are one address.
 */
export function foldStreet(value: string): string {
  return foldWord(value).replaceAll('-', ' ').replaceAll('strasse', 'str').replaceAll('str.', 'str');
}

/**
 * A word read as a prefix of streets as they are written (the word passes of the search, whose
 * indexes are on the lower-cased text): a word ending in a form of "Straße" is cut to "...str",
 * the prefix all its forms share ("Invalidenstrasse" finds "Invalidenstraße" and "Invalidenstr.").
 */
export const streetStem = (word: string): string => word.replace(/(?:stra(?:ß|ss)e|str\.?)$/iu, 'str');
