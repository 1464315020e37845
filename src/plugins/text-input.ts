import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';

// Postgres text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form (the driver would
// store U+FFFD in its place). Either is refused where the request is validated, once for every route
// and every part (params, querystring, body, headers), before the route's own zod schema runs, so it
// answers each surface's normal validation error naming the field, and the OpenAPI stays as it is.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path (`/a/0/b`) of the first string, or object key, in `data` that Postgres text cannot store. */
export function findUnstorableText(data: unknown, path = ''): string | null {
  if (typeof data === 'string') return UNSTORABLE.test(data) ? path : null;
  if (data === null || typeof data !== 'object') return null;
  if (Array.isArray(data)) {
    for (let i = 0; i < data.length; i++) {
      const found = findUnstorableText(data[i], `${path}/${i}`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, value] of Object.entries(data)) {
    if (UNSTORABLE.test(key)) return path;
    const found = findUnstorableText(value, `${path}/${key}`);
    if (found !== null) return found;
  }
  return null;
}

// The marker fastify-type-provider-zod puts on its issues, so the error handlers read this one the
// same way as any other zod validation issue.
const ZOD_ISSUE = Symbol.for('ZodFastifySchemaValidationError');

export const textSafeValidatorCompiler: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route as never) as (data: unknown) => unknown;
  return (data: unknown) => {
    const at = findUnstorableText(data);
    if (at !== null) {
      return {
        error: [{
          [ZOD_ISSUE]: true,
          keyword: 'invalid_string',
          instancePath: at,
          schemaPath: `#${at}/invalid_string`,
          message: 'must not contain U+0000 or unpaired surrogate characters',
          params: {},
        }],
      } as never;
    }
    return validate(data) as never;
  };
};
