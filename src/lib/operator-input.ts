import type { z } from 'zod';
import { AppError } from './errors.js';
import { present } from './present.js';

/**
 * Parses an operator's input (the CLI's options or an admin route's body) with the operation's own
 * schema, so both entries refuse the same things with the same words: 422 "<field>: <what is wrong>".
 */
export function parseOperatorInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const i = present(r.error.issues[0], 'the first validation issue');
  const field = i.path.join('.') || 'input';
  throw new AppError(422, 'validation_error', `${field}: ${i.message}`);
}
