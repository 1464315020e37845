// The /agent error lists against the catalogue (src/lib/errors.catalogue.ts): each code an operation
// lists sits under the status the catalogue gives it, so a code answered with another status is a
// decision made once, in the catalogue, not in one route's list.
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/lib/errors.catalogue.js';
import { AGENT_ERRORS } from '../../src/surfaces/agent/agent.errors.js';

describe('the /agent error lists', () => {
  it('list every code under its catalogue status (the tool-only ones too)', () => {
    const misplaced = Object.entries(AGENT_ERRORS).flatMap(([operationId, contract]) =>
      Object.entries(contract).flatMap(([status, s]) =>
        [...(s.cases ?? []), ...(s.toolOnly ?? [])]
          .map((c) => (typeof c === 'string' ? c : c.code))
          .filter((code) => ERRORS[code].status !== Number(status))
          .map((code) => `${operationId} lists ${code} under ${status}; the catalogue says ${ERRORS[code].status}`),
      ),
    );
    expect(misplaced).toEqual([]);
  });
});
