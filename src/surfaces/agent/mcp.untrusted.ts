// Which strings of a tool result a customer, buyer or caller wrote (issue 30 §6): the fields the
// route's response schema marks `x-untrusted` (common.schemas.ts `untrusted()`), found in the result
// as JSON Pointers (RFC 6901). callTool puts them in the result's `_meta["netsvc/untrusted"]`, so an
// agent's prompt can fence those values as data, never instructions.
import { z } from 'zod';

export const UNTRUSTED_META_KEY = 'netsvc/untrusted';

type JsonSchema = {
  'x-untrusted'?: boolean;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

const schemas = new WeakMap<z.ZodType, JsonSchema>();

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  let s = schemas.get(schema);
  if (!s) schemas.set(schema, (s = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', reused: 'inline' }) as JsonSchema));
  return s;
}

const escape = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The JSON Pointers of the non-empty strings of `data` that `schema` marks x-untrusted. */
export function untrustedPointers(schema: z.ZodType, data: unknown): string[] {
  const out: string[] = [];
  const walk = (s: JsonSchema | undefined, value: unknown, at: string) => {
    if (!s || value === null || value === undefined) return;
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(alt, value, at);
    if (typeof value === 'string') {
      if (s['x-untrusted'] && value !== '' && !out.includes(at)) out.push(at);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(s.items, v, `${at}/${i}`));
    } else if (typeof value === 'object' && s.properties) {
      for (const [k, v] of Object.entries(value)) walk(s.properties[k], v, `${at}/${escape(k)}`);
    }
  };
  walk(jsonSchemaOf(schema), data, '');
  return out;
}
