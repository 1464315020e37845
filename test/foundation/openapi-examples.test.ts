// Every status an operation declares carries an example, and every example is valid against its own
// schema: an agent that imitates the document sends and expects what the server really does.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { EXPORT_ENV, OPENAPI_FILES, renderSpecs } from '../../scripts/export-openapi.js';
import { ERRORS, withNextStep } from '../../src/lib/errors.catalogue.js';
import type { ErrorCode } from '../../src/lib/errors.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
type Media = { schema?: object; example?: unknown; examples?: Record<string, { value: unknown }> };
type Spec = {
  paths: Record<
    string,
    Record<string, { operationId: string; responses: Record<string, { description?: string; content?: Record<string, Media> }> }>
  >;
};

interface Found {
  where: string;
  problem: string;
}

function newAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);
  return ajv;
}

/** What is wrong with the examples of `spec`: a declared status without one, or one its schema refuses. */
export function exampleProblems(spec: Spec): Found[] {
  const ajv = newAjv();
  const found: Found[] = [];
  for (const item of Object.values(spec.paths)) {
    for (const [, op] of Object.entries(item).filter(([m]) => METHODS.includes(m))) {
      for (const [status, response] of Object.entries(op.responses)) {
        const where = `${op.operationId} ${status}`;
        const media = Object.entries(response.content ?? {});
        if (media.length === 0) found.push({ where, problem: 'no content' });
        for (const [type, m] of media) {
          const values = m.example !== undefined ? [m.example] : Object.values(m.examples ?? {}).map((e) => e.value);
          if (values.length === 0) found.push({ where: `${where} ${type}`, problem: 'no example' });
          if (status.startsWith('2') && values.length > 1)
            found.push({ where: `${where} ${type}`, problem: 'a 2xx has one whole example' });
          const validate = ajv.compile(m.schema ?? {});
          for (const v of values) {
            if (!validate(v)) found.push({ where: `${where} ${type}`, problem: ajv.errorsText(validate.errors) });
          }
        }
      }
    }
  }
  return found;
}

let t: TestApp;
let specs: Record<keyof typeof OPENAPI_FILES, Spec>;
beforeAll(async () => {
  const { EMBEDDED_DB_DIR: _dir, ...env } = EXPORT_ENV;
  t = await buildTestApp({ env });
  const rendered = await renderSpecs(t.app);
  specs = { agent: JSON.parse(rendered.agent), partner: JSON.parse(rendered.partner) };
});
afterAll(() => t.close());

describe.each(Object.keys(OPENAPI_FILES) as (keyof typeof OPENAPI_FILES)[])('openapi/%s.json examples', (name) => {
  it('every declared status of every operation has an example, valid against its own schema', () => {
    expect(exampleProblems(specs[name])).toEqual([]);
  });
});

describe('the example check itself', () => {
  const spec = (media: Media): Spec => ({
    paths: { '/x': { get: { operationId: 'x', responses: { 200: { content: { 'application/json': media } } } } } },
  });
  const schema = { type: 'object', properties: { days: { type: 'integer', minimum: 1 } }, required: ['days'] };

  it('fails a status without an example', () => {
    expect(exampleProblems(spec({ schema }))).toEqual([{ where: 'x 200 application/json', problem: 'no example' }]);
  });

  it('fails an example its schema refuses', () => {
    expect(exampleProblems(spec({ schema, example: { days: -9007199254740991 } }))[0]?.problem).toMatch(/days must be >= 1/);
  });

  it('passes a valid example', () => {
    expect(exampleProblems(spec({ schema, example: { days: 9 } }))).toEqual([]);
  });
});

const CODES = Object.keys(ERRORS) as ErrorCode[];

describe('/agent error examples', () => {
  const errorResponses = () =>
    Object.values(specs.agent.paths).flatMap((item) =>
      Object.values(item).flatMap((op) =>
        Object.entries(op.responses)
          .filter(([status]) => Number(status) >= 400 && status !== '429')
          .map(([status, r]) => ({
            where: `${op.operationId} ${status}`,
            description: r.description ?? '',
            media: r.content!['application/json']!,
          })),
      ),
    );

  it('each error status lists exactly the codes its description names, one example each', () => {
    const mismatched = errorResponses().flatMap(({ where, description, media }) => {
      const named = CODES.filter((c) => new RegExp(`\\b${c}\\b`).test(description)).sort();
      const examples = Object.keys(media.examples ?? {}).sort();
      return named.join() === examples.join() ? [] : [{ where, named, examples }];
    });
    expect(mismatched).toEqual([]);
  });

  it("an example is the envelope of its code, whose message ends with the code's next step", () => {
    const wrong = errorResponses().flatMap(({ where, media }) =>
      Object.entries(media.examples ?? {}).flatMap(([name, e]) => {
        const error = (e.value as { error: { code: ErrorCode; message: string } }).error;
        const ok = error.code === name && error.message.endsWith(`Next step: ${ERRORS[error.code].next.text}.`);
        return ok ? [] : [{ where, name, error }];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('a 403 of the key check says invalid_api_key and feature_not_enabled, never customer_not_found', () => {
    const search = specs.agent.paths['/agent/customers/search']!.get!.responses['403']!.content!['application/json']!;
    expect(Object.keys(search.examples!).sort()).toEqual(['feature_not_enabled', 'invalid_api_key']);
    const codes403 = errorResponses()
      .filter((r) => r.where.endsWith(' 403'))
      .flatMap((r) => Object.keys(r.media.examples ?? {}));
    expect(codes403).not.toContain('customer_not_found');
    expect(new Set(codes403)).toEqual(
      new Set(['invalid_api_key', 'feature_not_enabled', 'session_customer_mismatch', 'too_many_attempts']),
    );
  });

  it('withNextStep appends the step once, after the message', () => {
    expect(withNextStep('session_invalid', 'The verified session has expired.')).toBe(
      `The verified session has expired. Next step: ${ERRORS.session_invalid.next.text}.`,
    );
  });
});

describe('/agent document', () => {
  it('offers only the credentials the agent surface checks, and tags in the order of a conversation, each described', () => {
    const doc = specs.agent as Spec & {
      components: { securitySchemes: Record<string, unknown> };
      tags: { name: string; description: string }[];
    };
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'verifiedSession']);
    expect(doc.tags.map((tag) => tag.name)).toEqual(['identify', 'verify', 'read', 'change', 'escalate']);
    expect(doc.tags.every((tag) => tag.description.length > 20)).toBe(true);
    const used = new Set(
      Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (op as unknown as { tags: string[] }).tags)),
    );
    expect([...used].sort()).toEqual(['change', 'escalate', 'identify', 'read', 'verify']);
  });
});
