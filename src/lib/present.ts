// Reads the compiler cannot prove (noUncheckedIndexedAccess) but the code around them guarantees:
// the one row a query always returns, a capture group outside any `?`, `*` or `|`, an index found
// a line before. Absence there is a bug: it is thrown as one, naming what was missing, rather than
// carried on as `undefined`.

/** `value`, which the code around it guarantees is there; `what` names it in the error otherwise. */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`internal error: ${what} is missing`);
  return value;
}

/** The first row of a query that always returns one (SELECT EXISTS, an aggregate, an upsert's RETURNING). */
export function firstRow<T>(rows: readonly T[]): T {
  return present(rows[0], 'the row the query always returns');
}

/** Capture group `n` of a match, for a group that always takes part in it. */
export function group(match: RegExpExecArray | RegExpMatchArray, n: number): string {
  return present(match[n], `capture group ${n} of ${String(match[0])}`);
}
