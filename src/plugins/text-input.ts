import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';

// Postgres text cannot hold U+0000, and a lone UTF-16 surrogate has no UTF-8 form (the driver would
// store U+FFFD in its place). Either is refused where the request is validated, once for every route
// and every part (params, querystring, body, headers), before the route's own zod schema runs, so it
// answers each surface's normal validation error naming the field, and the OpenAPI stays as it is.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path (`/a/0/b`) of the first string, or object key, in `data` that Postgres text cannot store.
 * Walked with a stack of its own, not by recursion: a body nested 100,000 deep must not overflow the
 * call stack (a 500) before its schema refuses it.
 */
export function findUnstorableText(data: unknown, path = ''): string | null {
  const stack: [unknown, string][] = [[data, path]];
  while (stack.length) {
    const [value, at] = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return at;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${at}/${i}`]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [key] of entries) if (UNSTORABLE.test(key)) return at;
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], `${at}/${entries[i]![0]}`]);
    }
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
        error: [
          {
            [ZOD_ISSUE]: true,
            keyword: 'invalid_string',
            instancePath: at,
            schemaPath: `#${at}/invalid_string`,
            message: 'must not contain U+0000 or unpaired surrogate characters',
            params: {},
          },
        ],
      } as never;
    }
    return validate(data) as never;
  };
};
