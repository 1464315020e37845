// Which values a contact rollback link restores, when later /agent edits changed the same fields.
// The rule (issue 30 §3): the person the first confirmation mail reached can still restore what they
// had. An edit after the link's own edit is walked back when it has a link of its own whose
// `expected` values stand now: undoing the link then undoes that whole chain of edits, and uses the
// chain's later links (so whoever received those cannot undo the restoration). An edit that left no
// link (another path, or a link already used) breaks the chain: the link has moved on.
import type { ContactColumns } from '../rollback-links/index.js';
import { present } from '../../lib/present.js';

interface ContactLink {
  id: string;
  restore: ContactColumns;
  expected: ContactColumns;
}

const holds = (state: ContactColumns, values: ContactColumns) => Object.keys(values).every((c) => state[c] === values[c]);

/**
 * `current`: the customer's values now, of every column the links name. `later`: the unused links of
 * later edits, newest first. Returns the values to write and the later links undone with it, or null
 * when the link's own change no longer stands and no chain of later links leads back to it.
 */
export function resolveContactUndo(
  link: ContactLink,
  later: ContactLink[],
  current: ContactColumns,
): { values: ContactColumns; chain: string[] } | null {
  let state = { ...current };
  const chain: string[] = [];
  const left = [...later];
  while (!holds(state, link.expected)) {
    const i = left.findIndex((l) => holds(state, l.expected));
    if (i < 0) return null;
    const step = present(left.splice(i, 1)[0], 'the link found a line above');
    state = { ...state, ...step.restore };
    chain.push(step.id);
  }
  state = { ...state, ...link.restore };
  const values = Object.fromEntries(Object.entries(state).filter(([c, value]) => value !== current[c] || c in link.restore));
  return { values, chain };
}
