// The JSON body parser of every route (issue 30 §2). Fastify's own parser hands any body within the
// route's bodyLimit to JSON.parse: 500,000 `[` took 55-65 ms to refuse (350-650 ms under load), on
// unmatched paths too. Here, before JSON.parse:
// - an unmatched path (its answer is a 404 whatever the body says) parses nothing;
// - one linear scan refuses a body nested deeper than MAX_JSON_DEPTH (400 in the surface's shape);
// then Fastify's default parser (prototype-poisoning checks included) parses what is left.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors.js';

/** No route takes more than a handful of levels; the bulk provisioning body is 4 deep. */
export const MAX_JSON_DEPTH = 64;

/** The body limit of a route that declares none: every single-entity body is well under 16 KB. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_ARRAY = 91; // [
const OPEN_OBJECT = 123; // {
const CLOSE_ARRAY = 93;
const CLOSE_OBJECT = 125;

/** Whether `text` opens more than `max` arrays or objects at once (brackets inside strings do not count). */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: the next quote not escaped by an odd run of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return false; // unterminated: JSON.parse refuses it, cheaply
        let slashes = 0;
        for (let j = end - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** Counts the bodies handed to JSON.parse (tests prove that a refused body never got there). */
export const jsonParseCount = { value: 0 };

export function registerJsonBody(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // The 404 answer does not read the body: nothing to parse.
    if (request.is404) return done(null, undefined);
    const text = body as string;
    if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new AppError(400, 'bad_request', `Malformed JSON body: nested deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    jsonParseCount.value++;
    return parse(request, text, done);
  });
}
