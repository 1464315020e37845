import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { group } from '../lib/present.js';

// The vendors' published documents the local stand-ins check requests against (test/fixtures/<vendor>/,
// README there names source and version). Found from src/ and from the build in dist/ alike.
export function readVendorDocument<T>(vendor: 'stripe' | 'twilio', file: string): T {
  for (const up of ['../..', '../../..']) {
    const p = path.resolve(import.meta.dirname, up, 'test/fixtures', vendor, file);
    if (existsSync(p)) return JSON.parse(readFileSync(p, 'utf8')) as T;
  }
  throw new Error(`test/fixtures/${vendor}/${file} not found`);
}

export type JsonSchema = {
  type?: string;
  enum?: unknown[];
  maxLength?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  format?: string;
};

export interface ParamProblem {
  code: 'parameter_unknown' | 'parameter_missing' | 'parameter_invalid';
  param: string;
  message: string;
}

export type FormValue = string | FormValue[] | { [k: string]: FormValue };

/**
 * Stripe's form encoding (`metadata[invoice_id]=…`, `expand[0]=…`, `payment_method_types[]=card`) as nested
 * values: an object whose keys are all indexes becomes an array.
 */
export function decodeStripeForm(entries: Iterable<[string, string]>): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of entries) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    const parts = m ? [group(m, 1), ...[...group(m, 2).matchAll(/\[([^[\]]*)\]/g)].map((x) => group(x, 1))] : [key];
    let node: Record<string, FormValue> = root;
    parts.forEach((part, i) => {
      const k = part === '' ? String(Object.keys(node).length) : part;
      if (i === parts.length - 1) node[k] = value;
      else {
        if (typeof node[k] !== 'object' || node[k] === null) node[k] = {};
        node = node[k] as Record<string, FormValue>;
      }
    });
  }
  const arrays = (v: FormValue): FormValue => {
    if (typeof v === 'string' || Array.isArray(v)) return v;
    const keys = Object.keys(v);
    const fixed = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, arrays(x)]));
    return keys.length > 0 && keys.every((k, i) => k === String(i)) ? Object.values(fixed) : fixed;
  };
  return arrays(root) as Record<string, FormValue>;
}

/** A form value checked against the published JSON schema; the first problem, as Stripe names it. */
export function checkParams(schema: JsonSchema | undefined, value: FormValue | undefined, param: string): ParamProblem | null {
  if (!schema) return null;
  if (value === undefined) return null;
  if (schema.anyOf) {
    const problems = schema.anyOf.map((s) => checkParams(s, value, param));
    if (problems.some((p) => p === null)) return null;
    return problems.find((p) => p?.code !== 'parameter_invalid') ?? problems[0] ?? null; // anyOf is never empty
  }
  const invalid = (why: string): ParamProblem => ({ code: 'parameter_invalid', param, message: `Invalid ${param}: ${why}` });
  if (schema.enum && !(typeof value === 'string' && schema.enum.includes(value)))
    return invalid(`must be one of ${schema.enum.join(', ')}`);
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return invalid('must be a string');
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return invalid(`longer than ${schema.maxLength}`);
      return null;
    case 'integer':
      return typeof value === 'string' && /^-?\d+$/.test(value) ? null : invalid('must be an integer');
    case 'number':
      return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? null : invalid('must be a number');
    case 'boolean':
      return value === 'true' || value === 'false' ? null : invalid('must be a boolean');
    case 'array': {
      const items = Array.isArray(value) ? value : null;
      if (!items) return invalid('must be an array');
      for (const [i, item] of items.entries()) {
        const p = checkParams(schema.items, item, `${param}[${i}]`);
        if (p) return p;
      }
      return null;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return invalid('must be an object');
      return checkObject(schema, value, param);
    }
    default:
      return null;
  }
}

/** The members of an object (a request body: param ''), unknown and missing ones included. */
export function checkObject(schema: JsonSchema, value: Record<string, FormValue>, param = ''): ParamProblem | null {
  const name = (k: string) => (param ? `${param}[${k}]` : k);
  for (const k of schema.required ?? [])
    if (value[k] === undefined) return { code: 'parameter_missing', param: name(k), message: `Missing required param: ${name(k)}.` };
  for (const [k, v] of Object.entries(value)) {
    const sub = schema.properties?.[k];
    if (sub) {
      const p = checkParams(sub, v, name(k));
      if (p) return p;
    } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      const p = checkParams(schema.additionalProperties, v, name(k));
      if (p) return p;
    } else if (!schema.additionalProperties) {
      return { code: 'parameter_unknown', param: name(k), message: `Received unknown parameter: ${name(k)}` };
    }
  }
  return null;
}
